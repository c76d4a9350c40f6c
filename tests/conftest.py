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


def assert_moves_match_fairy_stockfish(specs, variant: str, seed: int, games: int, plies: int,
                                       to_fsf=lambda text: text) -> int:
    """Random games of `variant`: at every ply our legal moves (our text turned into
    Fairy-Stockfish's by to_fsf) are exactly pyffish's.  Returns the plies played."""
    pyffish = pytest.importorskip("pyffish")
    rng = random.Random(seed)
    start = pyffish.start_fen(variant)
    played_plies = 0
    for _ in range(games):
        board = board_of(specs, variant)
        played: list[str] = []
        for _ in range(plies):
            ours = {to_fsf(board.move_text(m)): m for m in board.legal_moves()}
            theirs = set(pyffish.legal_moves(variant, start, played))
            assert set(ours) == theirs, (board.fen(), played)
            if not theirs:
                break
            text = rng.choice(sorted(theirs))
            board.push(ours[text])
            board.check()
            played.append(text)
            played_plies += 1
    return played_plies
