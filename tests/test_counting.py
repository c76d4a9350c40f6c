"""Thai counting (pieces.ini "Counting:"): makruk's board's and pieces' honour, as
Fairy-Stockfish counts them, in the board, its FEN, the search and under XBoard."""
import random

import pytest

from conftest import board_of
from enginepipe import EnginePipe
from fairymax import loader
from fairymax.search import MATE, Searcher

# endings with few pawns or none, so that counts start, run out and restart
ENDING_STARTS = {
    "makruk": ["4k3/8/2p5/8/3r4/4P3/1S6/R2K4 w - - 0 1", "r3k3/8/8/3p4/8/8/2SN4/R3K3 w - - 0 1",
               "8/3k4/8/2n5/8/4P3/3MK3/8 w - - 0 30", "1k6/8/3s4/3p4/8/2N5/2SK4/7R b - - 0 40"],
    "ai-wok": ["4k3/8/2p5/8/3r4/4P3/1S6/A2K4 w - - 0 1", "1k6/8/3s4/3p4/8/2N5/2SK4/7A b - - 0 40"],
}


@pytest.mark.parametrize("variant", sorted(ENDING_STARTS))
def test_counts_and_counting_draws_match_fairy_stockfish(ours, variant):
    """Random games from endings: after every move our FEN (the count's limit and plies
    in the e.p. field and the clock, as Fairy-Stockfish writes them) is pyffish's, and
    our counting draw is pyffish's optional draw.  pyffish follows its own FENs, and
    knows no fifty-move rule in makruk, so its only optional ending here is the count."""
    pyffish = pytest.importorskip("pyffish")
    rng = random.Random(15)
    counted = ended = 0
    for start in ENDING_STARTS[variant] * 3:
        board = board_of(ours, variant, start)
        fen = pyffish.get_fen(variant, start, [])
        for _ in range(200):
            assert board.fen() == fen, (start, board.history)
            counted += fen.split()[3] != "-"
            over, value = pyffish.is_optional_game_end(variant, fen, [])
            ending = board.variant_rule_ending()
            assert (ending is not None) == (over and value == 0), (fen, ending)
            moves = pyffish.legal_moves(variant, fen, [])
            if ending is not None or not moves:
                ended += ending is not None
                break
            move = rng.choice(sorted(moves))
            board.push(board.parse_move(move))
            fen = pyffish.get_fen(variant, fen, [move])
    assert counted > 500 and ended > 3, (counted, ended)


def test_fairy_stockfish_counting_fens_are_read(ours):
    board = board_of(ours, "makruk", "8/8/s1KM4/k2S1n2/2M5/1S6/8/8 b - 128 18 74")
    assert board.fen() == "8/8/s1KM4/k2S1n2/2M5/1S6/8/8 b - 128 18 74"
    assert board.halfmove_clock == 0        # not written: the fifty-move count starts again
    # XBoard's way, without the castling field
    board.set_fen("8/8/s1KM4/k2S1n2/2M5/1S6/8/8 b 128 18 74")
    assert board.fen() == "8/8/s1KM4/k2S1n2/2M5/1S6/8/8 b - 128 18 74"
    # no count running: the last two numbers are the clock and the move number
    board.set_fen("8/8/s1KM4/k2S1n2/2M5/1S6/8/8 b - - 18 74")
    assert board.halfmove_clock == 18
    # chess has no counting: the same fields are refused
    with pytest.raises(ValueError, match="bad FEN fields"):
        board_of(ours, "normal", "8/8/8/k7/8/8/8/K7 b - 128 18 74")


def test_the_expired_count_draws_but_a_mate_still_wins(ours):
    board = board_of(ours, "makruk", "8/8/8/3k4/8/2R5/3K4/8 b - 32 33 1")
    assert board.outcome() == ("1/2-1/2", "Draw by counting rule")
    board = board_of(ours, "makruk", "3k4/8/3K4/8/8/8/8/R7 w - 32 32 1")
    board.push(board.parse_move("a1a8"))   # the 33rd ply of a 32-ply count mates
    assert board.outcome() == ("1-0", "White mates")


def search_score(ours, fen):
    board = board_of(ours, "makruk", fen)
    last = None
    for info in Searcher(8).iterate(board, max_depth=6):
        if info.complete:
            last = info
    return board.move_text(last.pv[0]), last.score


def test_the_search_plays_for_mate_within_the_count(ours):
    # one ply of the rook's count left: only the mate at once wins
    assert search_score(ours, "3k4/8/3K4/8/8/8/8/R7 w - 32 32 1") == ("a1a8", MATE - 1)
    # no mate in one: every move ends the count, a draw; without the count, a win
    assert search_score(ours, "8/8/8/3k4/8/2R5/3K4/8 w - 32 32 1")[1] == 0
    assert search_score(ours, "8/8/8/3k4/8/2R5/3K4/8 w - - 0 1")[1] > 300


def test_xboard_knows_no_counting_so_the_engine_plays_on():
    """XBoard 4.9.1 would score a counting draw claim false: past the count the engine
    moves on toward mate instead of claiming."""
    with EnginePipe() as engine:
        engine.handshake()
        engine.send("new", "variant makruk", "force",
                    "setboard 8/8/8/3k4/8/2R5/3K4/8 w - 32 40 1", "st 0.1", "go")
        out = engine.expect(r"^(move |1-0|0-1|1/2)")
        assert out[-1].startswith("move "), out


@pytest.mark.parametrize("line, message", [
    ("Counting: RR=8", "board's honour limit"),
    ("Counting: 64 RX=8", "'RX' is not one piece"),
    ("Counting: 64 Z=8", "'Z' is not one piece"),
    ("Counting: 64 R=0", "0 moves is not within"),
    ("Counting: 64 R16", "LETTERS=MOVES pairs"),
    ("Drops: all\nCounting: 64", "does not go with Drops"),
])
def test_bad_counting_lines_are_refused(tmp_path, line, message):
    text = ("version 4.8(w)\n\nGame+: mini\n8x8=3\n4 0 0 3 0 0 0 4\n4 0 0 3 0 0 0 4\n"
            "p:100 -16,6 -15,5 -17,5\np:100 16,6 15,5 17,5\nk:-1 1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7\n"
            "R:630 1,3 16,3 -1,3 -16,3\n" + line + "\n")
    path = tmp_path / "mini.ini"
    path.write_text(text)
    with pytest.raises(loader.IniError, match=message):
        loader.load_file(path)
