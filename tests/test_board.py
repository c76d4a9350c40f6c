"""Board invariants: FEN round trips, make/unmake over random playouts in every variant,
move text, bad input, and the perft command line."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from conftest import board_of
from perft_data import chess_cases, variant_cases

PLAYOUT_PLIES = 60


def all_variants(specs):
    return sorted(specs)


def fen_tells_all(spec) -> bool:
    """FEN records which pieces are unmoved only for pawns and castling pieces; variants
    with other initial moves (Cambodian king leap, Grande Acedrex king jump) can't be
    compared move for move after a FEN round trip."""
    return not any((mode & 15) == 4 and (mode & 0xC0) for piece in spec.pieces[2:]
                   for _, mode in piece.rays)


def snapshot(board):
    return (board.fen(), board.key, board.pieces(0), board.pieces(1), board.side_to_move)


def playout(board, rng, plies):
    """Random legal moves, checking the incremental state after every make and unmake."""
    made = []
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        text = board.move_text(move)
        assert board.parse_move(text) == move or board.variant.promotion_choices(board.side_to_move), text
        before = snapshot(board)
        board.push(move)
        board.check()
        made.append((move, before))
    for move, before in reversed(made):
        assert board.pop() == move
        board.check()
        assert snapshot(board) == before


@pytest.mark.parametrize("ini", ["ours", "fmax"])
def test_random_playouts_restore_everything(ini, request):
    specs = request.getfixturevalue(ini)
    rng = random.Random(20261122)
    for name in all_variants(specs):
        board = board_of(specs, name)
        board.check()
        start = snapshot(board)
        for _ in range(3):
            playout(board, rng, PLAYOUT_PLIES)
            assert snapshot(board) == start, name


def unpack(m):
    """(to, promotion, kind, gating) of packed move m (layout in fairymax/types.pxd: to
    bits 9-17, promotion 18-21, kind 22-23 where 1 is e.p., gating 28-29)."""
    return (m >> 9) & 0x1FF, (m >> 18) & 0xF, (m >> 22) & 3, (m >> 28) & 3


def test_key_after_predicts_plain_moves(ours):
    """The search prefetches a child's hash bucket with Board.key_after before it makes
    the move: along random games of every variant, the prediction must be the key that
    push gives for every plain move or capture (kind 0, no promotion or gating)."""
    rng = random.Random(20261124)
    plain_moves = 0
    for name in all_variants(ours):
        board = board_of(ours, name)
        for _ in range(40):
            moves = board.legal_moves()
            if not moves:
                break
            for m in moves:
                _, promo, kind, gate = unpack(m)
                if promo or kind or gate:
                    continue
                predicted, text = board.key_after(m), board.move_text(m)
                board.push(m)
                assert board.key == predicted, (name, text)
                board.pop()
                plain_moves += 1
            board.push(rng.choice(moves))
    assert plain_moves > 10000


@pytest.mark.parametrize("variant, fen, move, gives_check", [
    ("normal", "4k3/8/8/5N2/8/8/8/4K3 w - - 0 1", "f5d6", True),            # knight
    ("normal", "4k3/8/8/5N2/8/8/8/4K3 w - - 0 1", "f5h6", False),
    ("normal", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", True),             # rook
    ("normal", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a7", False),
    ("normal", "4k3/8/8/8/4B3/8/8/4R1K1 w - - 0 1", "e4d5", True),          # discovered
    ("normal", "4k3/8/8/8/4B3/8/8/4R1K1 w - - 0 1", "e4b1", True),
    ("normal", "4k3/8/8/4N3/4B3/8/8/4R1K1 w - - 0 1", "e4d5", False),      # still blocked
    ("normal", "4k3/8/8/8/8/4P3/8/4R1K1 w - - 0 1", "e3e4", False),         # blocks where it goes
    ("normal", "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", True),           # promotion
    ("normal", "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n", False),
    ("normal", "8/8/8/3k4/8/8/4P3/4K3 w - - 0 1", "e2e4", True),            # double push
    ("normal", "8/8/8/k2Pp2R/8/8/8/4K3 w - e6 0 1", "d5e6", True),          # e.p. opens the rank
    ("normal", "5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", True),             # castling rook
    ("capablanca", "4k5/10/10/10/10/3A6/10/4K5 w - - 0 1", "d3b5", True),   # archbishop slides
    ("capablanca", "4k5/10/10/10/10/10/10/A3K5 w - - 0 1", "a1b3", False),
    ("spartan", "1k4k1/8/8/8/8/8/8/4K2R w - - 0 1", "h1h8", False),         # one of two royals: no check
])
def test_check_read_off_the_last_move(variant, fen, move, gives_check, ours):
    """Where the variant allows, the search reads a check off the move that was just
    made (the moved piece and the line it left), and for pruning, off a move before it is
    made.  Board.check() compares both with the full test after every move of the random
    playouts; these positions cover each kind of check, and the e.p., castling and
    two-royal cases that take the full test."""
    board = board_of(ours, variant, fen)
    board.check()
    board.push(board.parse_move(move))
    assert board.in_check() == gives_check
    board.check()


def move_class(board, m, first_choice):
    """(captures, promotes to the first choice or where there is no choice, under-promotes)
    for packed move m."""
    to, promo, kind, _ = unpack(m)
    takes = kind == 1 or board.piece_at(board.square_name(to)) is not None
    main_promo = promo != 0 and (not first_choice or [promo] == first_choice)
    return takes, main_promo, promo != 0 and not main_promo


def assert_moves_split(board, label):
    """The search generates captures first and the quiet moves later: together they
    must be exactly the full move list, the captures list holding the captures and
    the promotions to the first choice, the quiets list everything else (under-promotions
    with or without capture included)."""
    first_choice = board.variant.promotion_choices(board.side_to_move)[:1]
    captures = board.generated_moves("captures")
    quiets = board.generated_moves("quiets")
    assert sorted(captures + quiets) == sorted(board.generated_moves("all")), label
    for m in captures:
        takes, main_promo, _ = move_class(board, m, first_choice)
        assert takes or main_promo, (label, board.move_text(m))
    for m in quiets:
        takes, main_promo, under_promo = move_class(board, m, first_choice)
        assert under_promo or not (takes or main_promo), (label, board.move_text(m))


def test_captures_and_quiets_split_all_moves(ours):
    """assert_moves_split along random games of every variant."""
    rng = random.Random(20261123)
    for name in all_variants(ours):
        board = board_of(ours, name)
        for _ in range(40):
            assert_moves_split(board, name)
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))


@pytest.mark.parametrize("case", chess_cases() + variant_cases(), ids=lambda c: f"{c.variant}-{c.name}")
def test_captures_and_quiets_split_in_reference_positions(ours, case):
    """assert_moves_split in the perft reference positions (promotions, e.p., castling,
    hoppers) and in every position one move from them."""
    board = board_of(ours, case.variant, case.fen)
    assert_moves_split(board, case.fen)
    for move in board.legal_moves():
        board.push(move)
        assert_moves_split(board, (case.fen, board.move_text(move)))
        board.pop()


@pytest.mark.parametrize("ini", ["ours", "fmax"])
def test_fen_round_trip(ini, request):
    """fen() -> set_fen() -> fen() is the identity, at the start and after random moves."""
    specs = request.getfixturevalue(ini)
    rng = random.Random(7)
    for name in all_variants(specs):
        board = board_of(specs, name)
        for _ in range(12):
            fen = board.fen()
            other = board_of(specs, name, fen)
            assert other.fen() == fen, name
            other.check()
            if fen_tells_all(specs[name]):
                assert sorted(map(other.move_text, other.legal_moves())) == \
                    sorted(map(board.move_text, board.legal_moves())), (name, fen)
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))


def test_start_fens(ours):
    assert board_of(ours, "normal").fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert board_of(ours, "capablanca").fen() == \
        "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1"
    assert board_of(ours, "courier").fen().startswith("rnebmkfwbenr/pppppppppppp/12/12/12/12/")
    assert board_of(ours, "makruk").fen() == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"
    assert board_of(ours, "janus").fen().startswith("rjnbkqbnjr/")


def test_ten_rank_coordinates(ours):
    """XBoard numbers the ranks of a 10-rank board 0-9."""
    board = board_of(ours, "roman")
    texts = set(map(board.move_text, board.legal_moves()))
    assert {"b0c2", "e1e3", "a1a2"} <= texts
    board.push(board.parse_move("e1e3"))
    assert "b9c7" in set(map(board.move_text, board.legal_moves()))


def test_castling_and_ep_in_fen(ours):
    board = board_of(ours, "normal", "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
    texts = set(map(board.move_text, board.legal_moves()))
    assert {"e1g1", "e1c1", "e5d6"} <= texts
    assert board.parse_move("O-O") == board.parse_move("e1g1")
    assert board.parse_move("O-O-O") == board.parse_move("e1c1")
    board = board_of(ours, "normal", "r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq - 0 1")
    texts = set(map(board.move_text, board.legal_moves()))
    assert "e1g1" in texts and "e1c1" not in texts and "e5d6" not in texts


def test_promotion_text(ours, fmax):
    board = board_of(ours, "normal", "8/P6k/8/8/8/8/8/K7 w - - 0 1")
    assert sorted(board.move_text(m) for m in board.legal_moves() if board.move_text(m).startswith("a7")) == \
        ["a7a8b", "a7a8n", "a7a8q", "a7a8r"]
    assert board.move_text(board.parse_move("a7a8")) == "a7a8q"
    assert board.move_text(board.parse_move("a7a8n")) == "a7a8n"
    # Fairy-Max's own file: one generated promotion, user choices accepted (not royal, not ...3)
    board = board_of(fmax, "normal", "8/P6k/8/8/8/8/8/K7 w - - 0 1")
    assert [board.move_text(m) for m in board.legal_moves() if board.move_text(m).startswith("a7")] == ["a7a8q"]
    assert board.move_text(board.parse_move("a7a8r")) == "a7a8r"
    with pytest.raises(ValueError):
        board.parse_move("a7a8k")


@pytest.mark.parametrize("fen", [
    "", "garbage", "8/8/8/8/8/8/8 w - - 0 1", "9/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",                       # no kings
    "k7/8/8/8/8/8/8/K5Rrr w - - 0 1",                  # rank too long
    "4k2R/8/8/8/8/8/8/4K3 w - - 0 1",                  # side not to move is in check
])
def test_bad_fens_rejected_and_position_kept(ours, fen):
    board = board_of(ours, "normal")
    board.push(board.parse_move("e2e4"))
    before = board.fen()
    with pytest.raises(ValueError):
        board.set_fen(fen)
    assert board.fen() == before
    board.check()


@pytest.mark.parametrize("variant, given, full", [
    # XBoard leaves out the castling and e.p. fields in variants without them
    ("shatranj", "rnbkqbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBKQBNR b 0 1",
     "rnbkqbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBKQBNR b - - 0 1"),
    ("normal", "bnnrqrkb/pppppppp/8/8/8/8/PPPPPPPP/BNNRQRKB w - 0 7",
     "bnnrqrkb/pppppppp/8/8/8/8/PPPPPPPP/BNNRQRKB w - - 0 7"),
    ("normal", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3",
     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"),
    ("normal", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b e3 3",
     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - e3 3 1"),
])
def test_fen_fields_told_apart_by_content(ours, variant, given, full):
    assert board_of(ours, variant, given).fen() == board_of(ours, variant, full).fen()


@pytest.mark.parametrize("fen", [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - - 0 1",    # one field too many
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 KQkq 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999999999999 1",
])
def test_fen_fields_out_of_place_rejected(ours, fen):
    with pytest.raises(ValueError):
        board_of(ours, "normal").set_fen(fen)


@pytest.mark.parametrize("text", ["e2e5", "e7e5", "z9z9", "", "e2", "O-O", "e2e4x5", "a1a1"])
def test_bad_moves_rejected(ours, text):
    board = board_of(ours, "normal")
    with pytest.raises(ValueError):
        board.parse_move(text)


def test_repetition_and_outcomes(ours):
    board = board_of(ours, "normal")
    for text in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push(board.parse_move(text))
    assert board.repetitions() == 2
    assert board.outcome() == ("1/2-1/2", "Draw by repetition")
    mate = board_of(ours, "normal", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert mate.outcome() == ("0-1", "Black mates")
    stale = board_of(ours, "normal", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stale.outcome() == ("1/2-1/2", "Stalemate")
    # shatranj: stalemate loses, and a bare king loses once the other side is to move
    stale = board_of(ours, "shatranj", "7k/8/7K/8/8/8/8/6R1 b - - 0 1")
    assert stale.outcome() == ("1-0", "Black is stalemated")
    bared = board_of(ours, "shatranj", "7k/8/6K1/8/8/8/8/R7 w - - 0 1")
    assert bared.outcome() == ("1-0", "Black has a bare king")


def test_perft_command_line():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "fairymax", "perft", *args],
                              capture_output=True, text=True, timeout=120)
    done = run("3", "--variant", "capablanca")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[-2] == "Nodes searched: 25228" and lines[-1].startswith("Nodes/second: ")
    done = run("2", "--divide", "--fen", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    lines = done.stdout.splitlines()
    assert len(lines) == 48 + 2 and lines[-2] == "Nodes searched: 2039"
    assert "e1g1 43" in lines
    for bad in (["x"], ["0"], ["2", "--variant", "nosuch"], ["2", "--fen", "bad fen"],
                ["2", "--ini", "/nonexistent.ini"]):
        done = run(*bad)
        assert done.returncode == 2 and done.stderr.strip().count("\n") == 0, bad


def test_largest_board(tmp_path):
    """14 files x 16 ranks, Fairy-Max's limit: set-up, two-digit ranks, FEN round trip."""
    from fairymax import loader
    path = tmp_path / "big.ini"
    path.write_text("version 4.8(w)\n\nGame: big\n14x16\n"
                    "4 5 0 0 0 0 3 0 0 0 0 0 5 4\n4 5 0 0 0 0 6 0 0 0 0 0 5 4\n"
                    "p:100 -16,24 -16,6 -15,5 -17,5\np:100 16,24 16,6 15,5 17,5\n"
                    "k:-1 1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7\n"
                    "R:500 1,3 16,3 -1,3 -16,3\nn:300 14,7 31,7 33,7 18,7 -14,7 -31,7 -33,7 -18,7\n"
                    "k:-1 1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7\nQ:950 1,3 16,3 15,3 17,3 -1,3 -16,3 -15,3 -17,3\n"
                    "// end\n")
    specs = loader.load_file(path)
    board = board_of(specs, "big")
    fen = board.fen()
    assert fen.startswith("rn4k5nr/pppppppppppppp/14/") and fen.split()[0].endswith("/RN4K5NR")
    texts = set(map(board.move_text, board.legal_moves()))
    assert {"a2a4", "n2n3", "b1c3", "b1a3"} <= texts and len(texts) == 14 * 2 + 4 + 2
    board.push(board.parse_move("a2a4"))
    assert {"a15a13", "b16c14"} <= set(map(board.move_text, board.legal_moves()))
    assert board_of(specs, "big", board.fen()).fen() == board.fen()
    assert board.perft(3) == sum(count for _, count in board.divide(3))


def test_seirawan_gating_text_and_fen(ours):
    board = board_of(ours, "seirawan")
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1"
    texts = set(map(board.move_text, board.legal_moves()))
    assert {"b1c3", "b1c3h", "b1c3e", "e2e4"} <= texts and "e2e4h" not in texts
    for text in ("b1c3", "b8c6h", "g1f3e"):
        board.push(board.parse_move(text))
    assert board.fen() == "rhbqkbnr/pppppppp/2n5/8/8/2N2N2/PPPPPPPP/R1BQKBER[He] b KQCDFkqcdfg - 3 2"
    assert board.piece_at("g1") == ("E", False)
    with pytest.raises(ValueError):
        board.parse_move("c6b4h")         # the knight has moved: no more gating from it
