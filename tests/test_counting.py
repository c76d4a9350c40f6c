"""Thai counting (pieces.ini "Counting:"): makruk's board's and pieces' honour, as
Fairy-Stockfish counts them, in the board, its FEN, the search and under XBoard."""
import random

import pytest

from conftest import board_of
from enginepipe import EnginePipe
from fairymax import loader
from fairymax.search import MATE, Searcher

# endings with few pawns or none, so that counts start, run out and restart
MAKRUK_ENDINGS = ["4k3/8/2p5/8/3r4/4P3/1S6/R2K4 w - - 0 1", "r3k3/8/8/3p4/8/8/2SN4/R3K3 w - - 0 1",
                  "8/3k4/8/2n5/8/4P3/3MK3/8 w - - 0 30", "1k6/8/3s4/3p4/8/2N5/2SK4/7R b - - 0 40"]
ENDING_STARTS = {
    "makruk": MAKRUK_ENDINGS,
    "Cambodian": MAKRUK_ENDINGS,
    "ai-wok": ["4k3/8/2p5/8/3r4/4P3/1S6/A2K4 w - - 0 1", "1k6/8/3s4/3p4/8/2N5/2SK4/7A b - - 0 40"],
    "asean": ["4k3/8/2p5/8/3r4/4P3/1B6/R2K4 w - - 0 1", "r3k3/8/8/3p4/8/8/2BN4/R3K3 w - - 0 1",
              "8/3k4/8/2n5/8/4P3/3QK3/8 w - - 0 30", "8/2k5/8/8/8/8/1PB5/R3K3 w - - 0 1"],
}
FAIRY_STOCKFISH_NAME = {"Cambodian": "cambodian"}
FAIRY_STOCKFISH_FIFTY_MOVES = {"asean"}     # its only variant of these with the fifty-move rule


@pytest.mark.parametrize("variant", sorted(ENDING_STARTS))
def test_counts_and_counting_draws_match_fairy_stockfish(ours, variant):
    """Random games from endings: after every move our FEN (the count's limit and plies
    in the e.p. field and the clock, as Fairy-Stockfish writes them) is pyffish's, and
    pyffish's optional ending is a draw exactly where ours is the counting draw (or,
    in asean, the fifty-move rule's); positions that repeat an earlier one are left
    out, as pyffish counts repetitions its own way."""
    pyffish = pytest.importorskip("pyffish")
    theirs = FAIRY_STOCKFISH_NAME.get(variant, variant)
    rng = random.Random(15)
    counted = ended = 0
    for start in ENDING_STARTS[variant] * 2:
        board = board_of(ours, variant, start)
        played: list[str] = []
        for _ in range(200):
            fen = pyffish.get_fen(theirs, start, played)
            assert board.fen() == fen, (start, played)
            counted += fen.split()[3] != "-"
            ending = board.variant_rule_ending()
            fifty = variant in FAIRY_STOCKFISH_FIFTY_MOVES and board.halfmove_clock >= 100
            if board.repetition_ending() is None:
                over, value = pyffish.is_optional_game_end(theirs, start, played)
                assert (ending is not None or fifty) == (over and value == 0), (fen, played, ending)
            moves = pyffish.legal_moves(theirs, start, played)
            if ending is not None or not moves:
                ended += ending is not None
                break
            played.append(rng.choice(sorted(moves)))
            board.push(board.parse_move(played[-1]))
    assert counted > 200 and ended > 2, (counted, ended)


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
    """XBoard 4.9.1 names no counting rule among its adjudications, so it could not
    confirm a counting draw claim: past the count the engine moves on instead."""
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
    ("Counting: 0", "no count could ever start"),
    ("Counting: 64 Else=600", "Else=600 is not within"),
    ("Counting: 64 R=16 Sometimes", "LETTERS=MOVES pairs or options"),
])
def test_bad_counting_lines_are_refused(tmp_path, line, message):
    text = ("version 4.8(w)\n\nGame+: mini\n8x8=3\n4 0 0 3 0 0 0 4\n4 0 0 3 0 0 0 4\n"
            "p:100 -16,6 -15,5 -17,5\np:100 16,6 15,5 17,5\nk:-1 1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7\n"
            "R:630 1,3 16,3 -1,3 -16,3\n" + line + "\n")
    path = tmp_path / "mini.ini"
    path.write_text(text)
    with pytest.raises(loader.IniError, match=message):
        loader.load_file(path)


def test_counting_options_are_read(tmp_path):
    """The first number alone, and the options Cambodian (BoardMax) and asean (Else,
    FromZero) take."""
    path = tmp_path / "mini.ini"
    path.write_text("version 4.8(w)\n\nGame: mini\n8x8=3\n4 0 0 3 0 0 0 4\n4 0 0 3 0 0 0 4\n"
                    "p:100 -16,6 -15,5 -17,5\np:100 16,6 15,5 17,5\nk:-1 1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7\n"
                    "R:630 1,3 16,3 -1,3 -16,3\nCounting: 0 RR=7 R=15 Else=0 BoardMax=3 FromZero\n")
    rule = loader.load_file(path)["mini"].counting
    assert rule == loader.CountingRule(board_moves=0, else_moves=0, honours=[("RR", 7), ("R", 15)],
                                       board_max_pieces=3, from_zero=True)
