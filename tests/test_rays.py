"""One test per kind of ray: a piece alone (or next to a blocker / hop platform) on an
empty board, and the exact set of squares it may go to.  The expected sets are worked
out by hand from the ray notation in ../shared/docs/fairymax.md, not taken from the engine."""
from __future__ import annotations

import textwrap

import pytest

from conftest import board_of
from fairymax import loader

# Piece numbers: 1/2 pawns, 3/4 kings, then one piece per kind of ray.
RAYS_INI = textwrap.dedent("""\
    version 4.8(w)

    Game: rays
    8x8
    0 0 0 0 3 0 0 0
    0 0 0 0 4 0 0 0
    p:100 -16,24 -16,6 -15,5 -17,5
    p:100 16,24 16,6 15,5 17,5
    k:-1 1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7
    k:-1 1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7
    n:325 14,7 31,7 33,7 18,7 -14,7 -31,7 -33,7 -18,7
    R:500 1,3 16,3 -1,3 -16,3
    Q:950 1,3 16,3 15,3 17,3 -1,3 -16,3 -15,3 -17,3
    G:200 1,F8 16,F8 15,F8 17,F8 -1,F8 -16,F8 -15,F8 -17,F8
    C:400 1,BA 16,BA -1,BA -16,BA
    H:300 16,1070 16,1F070 1,10070 1,FFFF0070 -16,1070 -16,1F070 -1,10070 -1,FFFF0070
    F:830 17,1003 15,1F003 -15,1003 -17,1F003 17,10003 -15,FFFF0003 -17,10003 15,FFFF0003
    D:300 16,14B8 16,1F4B8 -16,14B8 -16,1F4B8 1,104B8 1,FFFF04B8 -1,104B8 -1,FFFF04B8
    T:375 1,443 16,443 -1,443 -16,443
    Y:525 1,103 16,3 -1,103 -16,3
    E:1 15,70 17,70 -15,70 -17,70
    // end
    """)


@pytest.fixture(scope="module")
def rays(tmp_path_factory):
    path = tmp_path_factory.mktemp("ini") / "rays.ini"
    path.write_text(RAYS_INI)
    return loader.load_file(path)


def destinations(specs, variant, fen, square):
    board = board_of(specs, variant, fen)
    texts = [board.move_text(m) for m in board.legal_moves()]
    return {t[len(square):] for t in texts if t.startswith(square) and not t[len(square)].isdigit()}


def squares(text):
    return set(text.split())


# Kings stay on a1 and h8, off every line the tested piece uses.
CASES = [
    ("leaper alone", "7k/8/8/8/3N4/8/8/K7 w - - 0 1", "d4", "b3 b5 c2 c6 e2 e6 f3 f5"),
    ("leaper, own piece on a target", "7k/8/8/5P2/3N4/8/8/K7 w - - 0 1", "d4", "b3 b5 c2 c6 e2 e6 f3"),
    ("slider, own blocker and enemy target", "7k/8/3P4/8/3R1n2/8/8/K7 w - - 0 1", "d4",
     "d5 d3 d2 d1 c4 b4 a4 e4 f4"),
    ("grasshopper: lands just behind the first piece", "7k/8/3P4/8/1P1G1n2/8/8/K7 w - - 0 1", "d4",
     "d7 g4 a4"),
    ("cannon: moves as a rook, captures over one screen", "3n3k/8/3P4/8/3C4/8/8/K7 w - - 0 1", "d4",
     "d5 d8 e4 f4 g4 h4 c4 b4 a4 d3 d2 d1"),
    ("lame leaper (Horse) blocked next to it", "7k/8/8/3P4/3H4/8/8/K7 w - - 0 1", "d4",
     "b3 b5 c2 e2 f3 f5"),
    ("bent slider (Griffon): one diagonal step, then a rook line outward", "7k/8/8/8/3F4/8/8/K7 w - - 0 1",
     "d4", "e3 e2 e1 c3 c2 c1 e5 e6 e7 e8 c5 c6 c7 c8 f3 g3 h3 f5 g5 h5 b5 a5 b3 a3"),
    ("bent slider with its diagonal step blocked", "7k/8/8/4P3/3F4/8/8/K7 w - - 0 1", "d4",
     "e3 e2 e1 c3 c2 c1 c5 c6 c7 c8 f3 g3 h3 b5 a5 b3 a3"),
    ("bifurcator: splits diagonally one step before the first piece", "7k/8/8/8/3D4/8/8/K2P4 w - - 0 1",
     "d4", "e1 c1"),
    ("limited range (R3)", "7k/8/8/8/3T4/8/8/K7 w - - 0 1", "d4",
     "e4 f4 g4 c4 b4 a4 d5 d6 d7 d3 d2 d1"),
    ("cylinder: the side edges are joined", "7k/8/8/8/1Y2P3/8/8/K7 w - - 0 1", "b4",
     "c4 d4 a4 h4 g4 f4 b5 b6 b7 b8 b3 b2 b1"),
    ("lame alfil (Xiangqi elephant)", "7k/8/8/4P3/3E4/8/8/K7 w - - 0 1", "d4", "b2 f2 b6"),
    ("pawn double step only from its start", "7k/8/8/8/8/8/4P3/K7 w - - 0 1", "e2", "e3 e4"),
    ("pawn that has moved", "7k/8/8/8/8/4P3/8/K7 w - - 0 1", "e3", "e4"),
]


@pytest.mark.parametrize("label,fen,square,expected", CASES, ids=[c[0] for c in CASES])
def test_destinations(rays, label, fen, square, expected):
    assert destinations(rays, "rays", fen, square) == squares(expected)


def test_castling_strides(ours):
    # Capablanca: king f1 castles 3 squares each way (to i1 and c1)
    fen = "r4k3r/10/10/10/10/10/10/R4K3R w KQkq - 0 1"
    assert destinations(ours, "capablanca", fen, "f1") == squares("e1 g1 e2 f2 g2 i1 c1")
    # Janus: king e1 castles to i1 (4 squares) and b1 (3 squares)
    fen = "r3k4r/10/10/10/10/10/10/R3K4R w KQkq - 0 1"
    assert destinations(ours, "janus", fen, "e1") == squares("d1 f1 d2 e2 f2 i1 b1")
    board = board_of(ours, "janus", fen)
    board.push(board.parse_move("e1b1"))
    assert board.piece_at("c1") == ("R", False) and board.piece_at("a1") is None
    # no castling through an attacked square (f1 attacked by the rook on f8)
    fen = "r3kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1"
    assert destinations(ours, "normal", fen, "e1") == squares("d1 d2 e2 c1")


def test_initial_leaps(ours):
    """Cambodian king: an initial knight-like leap (b2, f2; c3 and e3 hold own pawns)."""
    board = board_of(ours, "cambodian")
    texts = {board.move_text(m)[2:] for m in board.legal_moves() if board.move_text(m).startswith("d1")}
    assert texts == squares("c2 d2 e2 b2 f2")
    board.push(board.parse_move("d1d2"))
    board.push(board.parse_move("a6a5"))
    board.push(board.parse_move("d2d1"))
    board.push(board.parse_move("a5a4"))
    texts = {board.move_text(m)[2:] for m in board.legal_moves() if board.move_text(m).startswith("d1")}
    assert texts == squares("c2 d2 e2")        # the king has moved: no more leaps


def test_duplicates_removed(ours):
    """Grande Acedrex's bent pieces reach some squares by two paths: 61 generated, 59 moves."""
    assert len(board_of(ours, "grande-acedrex").legal_moves()) == 59


def test_iron_piece_cannot_be_captured(tmp_path):
    """Values below -665 are uncapturable (Fairy-Max l.230): rays stop in front of them."""
    path = tmp_path / "iron.ini"
    path.write_text(RAYS_INI.replace("E:1 15,70 17,70 -15,70 -17,70", "I:-700 1,7 -1,7"))
    specs = loader.load_file(path)
    assert destinations(specs, "rays", "7k/8/8/8/3R1i2/8/8/K7 w - - 0 1", "d4") == \
        squares("d5 d6 d7 d8 d3 d2 d1 c4 b4 a4 e4")
