"""Shared fixtures: the variant files and a board factory."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from fairymax import loader
from fairymax.board import Board
from fairymax.variant import Variant

FMAX_INI = Path("/usr/share/games/fairymax/fmax.ini")


@pytest.fixture(scope="session")
def ours():
    """Variants of the project's pieces.ini."""
    return loader.load_default()


@pytest.fixture(scope="session")
def fmax():
    """Variants of Fairy-Max's own fmax.ini (Debian package fairymax)."""
    if not FMAX_INI.is_file():
        pytest.skip("fairymax package not installed")
    return loader.load_file(FMAX_INI)


def board_of(specs, name: str, fen: str | None = None) -> Board:
    board = Board(Variant(specs[name]))
    if fen:
        board.set_fen(fen)
    return board


def assert_random_games_keep_state(specs, variant: str, seed: int, games: int, plies: int) -> None:
    """Random games of `variant`: every move reads back from its text, the incremental
    state matches a recount after every move and after taking them all back, and the
    FEN of the last position sets up the same position with the same moves."""
    rng = random.Random(seed)
    for _ in range(games):
        board = board_of(specs, variant)
        for _ in range(plies):
            moves = board.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            assert board.parse_move(board.move_text(move)) == move
            board.push(move)
            board.check()
        copy = board_of(specs, variant, board.fen())
        assert copy.fen() == board.fen()
        assert sorted(copy.legal_moves()) == sorted(board.legal_moves())
        while board.history:
            board.pop()
        board.check()


def assert_moves_match_fairy_stockfish(specs, variant: str, seed: int, games: int, plies: int,
                                       to_fsf=lambda text: text, theirs_of=None) -> int:
    """Random games of `variant`: at every ply our legal moves (our text turned into
    Fairy-Stockfish's by to_fsf) are exactly pyffish's, or what theirs_of(pyffish,
    variant, start FEN, moves played) makes of them.  Returns the plies played."""
    pyffish = pytest.importorskip("pyffish")
    if theirs_of is None:
        def theirs_of(pyffish, variant, start, played):
            return set(pyffish.legal_moves(variant, start, played))
    rng = random.Random(seed)
    start = pyffish.start_fen(variant)
    played_plies = 0
    for _ in range(games):
        board = board_of(specs, variant)
        played: list[str] = []
        for _ in range(plies):
            ours = {to_fsf(board.move_text(m)): m for m in board.legal_moves()}
            theirs = theirs_of(pyffish, variant, start, played)
            assert set(ours) == theirs, (board.fen(), played)
            if not theirs:
                break
            text = rng.choice(sorted(theirs))
            board.push(ours[text])
            board.check()
            played.append(text)
            played_plies += 1
    return played_plies


def assert_repetition_endings_match_fairy_stockfish(specs, variant: str, fen: str, moves: list,
                                                    to_fsf=lambda text: text) -> int:
    """Play `moves` (our text) from `fen`: after every move our repetition ending is
    pyffish's optional game end (none, a draw, or a win for the same side).  Returns
    the number of moves after which the game first ended (0: it did not)."""
    pyffish = pytest.importorskip("pyffish")
    board = board_of(specs, variant, fen)
    played: list[str] = []
    ended = 0
    for text in moves:
        board.push(board.parse_move(text))
        played.append(to_fsf(text))
        over, value = pyffish.is_optional_game_end(variant, fen, played)
        ours = board.repetition_ending()
        if not over:
            assert ours is None, (played, ours)
            continue
        to_move = board.side_to_move
        expected = "1/2-1/2" if value == 0 else ("1-0" if (value > 0) == (to_move == 0) else "0-1")
        assert ours is not None and ours[0] == expected, (played, ours, value)
        ended = ended or len(played)
    return ended
