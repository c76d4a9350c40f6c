"""Shogi and minishogi (pieces.ini "Mirror:", "Promotes:", "PromotionZone:", "OnePerFile:",
"NoDropMate:", "Repetition:", "PerpetualCheck:"): hand-made rule positions, and legal moves against Fairy-Stockfish (pyffish)."""
from __future__ import annotations


import pytest

from conftest import (assert_moves_match_fairy_stockfish, assert_random_games_keep_state,
                      assert_repetition_endings_match_fairy_stockfish, board_of)


def moves_of(board) -> set[str]:
    return {board.move_text(m) for m in board.legal_moves()}


def test_start_position(ours):
    board = board_of(ours, "shogi")
    assert board.fen().startswith("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[] w")
    assert len(moves_of(board)) == 30
    for fen in ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[-] w 0 1",
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[] w - - 0 1"):
        board.set_fen(fen)
        assert len(moves_of(board)) == 30
    assert board_of(ours, "minishogi").fen().startswith("rbsgk/4p/5/P4/KGSBR[] w")


def test_black_moves_the_shared_pieces_mirrored(ours):
    """Lance, Knight, Silver and Gold are one type each; Black's move toward rank 1."""
    board = board_of(ours, "shogi", "4k4/9/9/9/4n4/9/9/9/K8[] b - - 0 1")
    assert {t for t in moves_of(board) if t.startswith("e5")} == {"e5d3", "e5d3+", "e5f3", "e5f3+"}
    board.set_fen("4k4/9/9/9/4l4/9/9/9/K8[] b - - 0 1")
    assert {t for t in moves_of(board) if t.startswith("e5")} == {
        "e5e4", "e5e3", "e5e3+", "e5e2", "e5e2+", "e5e1+"}
    board.set_fen("4k4/9/9/9/4g4/9/9/9/K8[] b - - 0 1")
    assert {t for t in moves_of(board) if t.startswith("e5")} == {
        "e5d4", "e5e4", "e5f4", "e5d5", "e5f5", "e5e6"}


def test_promotion_is_optional_in_the_zone_and_forced_where_the_piece_could_not_move(ours):
    board = board_of(ours, "shogi", "k8/4P4/4S4/4L4/9/9/4N4/9/4K4[] w - - 0 1")
    moves = moves_of(board)
    assert {t for t in moves if t.startswith("e8")} == {"e8e9+"}        # pawn to the last rank
    assert {t for t in moves if t.startswith("e3")} == {"e3d5", "e3f5"}  # outside the zone
    assert {t for t in moves if t.startswith("e7")} == {                  # silver, also leaving it
        "e7d6", "e7d6+", "e7d8", "e7d8+", "e7f6", "e7f6+", "e7f8", "e7f8+"}
    board.set_fen("k8/9/4N4/9/4L4/9/9/9/4K4[] w - - 0 1")
    moves = moves_of(board)
    assert {t for t in moves if t.startswith("e7")} == {"e7d9+", "e7f9+"}   # knight: last two ranks
    assert {t for t in moves if t.startswith("e5")} == {"e5e6"}          # blocked by the knight
    board.set_fen("k8/9/9/9/4L4/9/9/9/4K4[] w - - 0 1")
    assert {t for t in moves_of(board) if t.startswith("e5")} == {
        "e5e6", "e5e7", "e5e7+", "e5e8", "e5e8+", "e5e9+"}


def test_promotion_text(ours):
    board = board_of(ours, "shogi", "k8/9/4S4/9/9/9/9/9/4K4[] w - - 0 1")
    board.push(board.parse_move("e7e8+"))
    assert board.fen().startswith("k8/4+S4/9/")
    board.pop()
    for deferral in ("e7e8", "e7e8="):
        assert not board.is_promotion(board.parse_move(deferral))
    board.set_fen("k8/4+S4/9/9/9/9/9/9/4K4[] w - - 0 1")
    assert board.piece_at("e8") == ("+S", False)
    assert "e8e9" in moves_of(board) and "e8d7" not in moves_of(board)   # it moves as a Gold


def test_captured_promoted_piece_goes_to_hand_unpromoted(ours):
    board = board_of(ours, "shogi", "4k4/9/9/9/9/9/9/4+r4/4K4[] w - - 0 1")
    board.push(board.parse_move("e1e2"))
    assert board.holdings(0) == "R"
    board.check()
    assert "R@e5" in moves_of(board) or board.side_to_move == 1
    board.pop()
    assert board.holdings(0) == "" and board.piece_at("e2") == ("+r", False)


def test_no_drop_where_the_piece_could_never_move(ours):
    board = board_of(ours, "shogi", "4k4/9/9/9/9/9/9/9/4K4[PLNplnG] w - - 0 1")
    moves = moves_of(board)
    for letter, ranks in (("P", "12345678"), ("L", "12345678"), ("N", "1234567"), ("G", "123456789")):
        assert {t[-1] for t in moves if t.startswith(letter + "@")} == set(ranks), letter
    board.set_fen("4k4/9/9/9/9/9/9/9/4K4[PLNpln] b - - 0 1")
    moves = moves_of(board)
    for letter, ranks in (("P", "23456789"), ("L", "23456789"), ("N", "3456789")):
        assert {t[-1] for t in moves if t.startswith(letter + "@")} == set(ranks), letter


def test_no_second_pawn_on_a_file(ours):
    board = board_of(ours, "shogi", "4k4/9/9/9/9/9/4P4/9/4K4[P] w - - 0 1")
    assert not any(t.startswith("P@e") for t in moves_of(board))
    assert any(t.startswith("P@d") for t in moves_of(board))
    board.set_fen("4k4/9/9/9/9/9/4+P4/9/4K4[P] w - - 0 1")        # a tokin does not count
    assert any(t.startswith("P@e") for t in moves_of(board))
    board.set_fen("4k4/9/4p4/9/9/9/9/9/4K4[P] w - - 0 1")          # nor an enemy pawn
    assert any(t.startswith("P@e") for t in moves_of(board))


def test_pawn_drop_may_not_mate(ours):
    board = board_of(ours, "shogi", "k8/2S6/1G7/9/9/9/9/9/4K4[PG] w - - 0 1")
    moves = moves_of(board)
    assert "P@a8" not in moves                # it would mate
    assert "G@a8" in moves                    # another piece may
    board.set_fen("k8/9/1G7/9/9/9/9/9/4K4[P] w - - 0 1")
    assert "P@a8" in moves_of(board)          # a check the king escapes (b9)


def test_minishogi_zone_is_the_last_rank(ours):
    board = board_of(ours, "minishogi", "k4/5/1S3/P4/4K[] w - - 0 1")
    moves = moves_of(board)
    assert {t for t in moves if t.startswith("b3")} == {"b3a4", "b3b4", "b3c4", "b3c2"}   # a2: own pawn
    board.set_fen("4k/P4/5/1S3/K4[] w - - 0 1")
    assert {t for t in moves_of(board) if t.startswith("a4")} == {"a4a5+"}


@pytest.mark.parametrize("name", ["shogi", "minishogi"])
def test_random_games_keep_the_incremental_state(ours, name):
    assert_random_games_keep_state(ours, name, seed=5, games=4, plies=150)


def fairy_stockfish_moves(pyffish, name: str, start: str, played: list[str]) -> set[str]:
    """pyffish's legal moves, less the pawn drops that mate: Fairy-Stockfish lists them
    and scores the mate as a loss for the dropping side; shogi's rule (uchifuzume) and
    ours make them illegal."""
    moves = set(pyffish.legal_moves(name, start, played))
    return {text for text in moves
            if not (text.startswith("P@") and pyffish.gives_check(name, start, played + [text])
                    and not pyffish.legal_moves(name, start, played + [text]))}


@pytest.mark.parametrize("name,games,plies", [("shogi", 4, 150), ("minishogi", 12, 100)])
def test_legal_moves_agree_with_fairy_stockfish(ours, name, games, plies):
    """Random games: at every ply our legal moves are Fairy-Stockfish's (less the pawn
    drops that mate)."""
    played = assert_moves_match_fairy_stockfish(ours, name, seed=13, games=games, plies=plies,
                                                theirs_of=fairy_stockfish_moves)
    assert played > games * plies // 2


def flipped(fen: str) -> str:
    """The FEN with the ranks in reverse order and the colours swapped (hands and side to
    move too): the same position seen from the other side, for shogi's pieces."""
    placement, side = fen.split()[:2]
    board, _, hands = placement.partition("[")
    ranks = "/".join(reversed(board.split("/"))).swapcase()
    return f"{ranks}[{hands.swapcase()} {'b' if side == 'w' else 'w'} - - 0 1"


@pytest.mark.parametrize("fen", [
    "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL[] w - - 0 1",
    "ln1gk2nl/1r1s2gb1/p1pppp1pp/6p2/1p7/2P1S4/PP1PPPPPP/1BG4R1/LN2KGSNL[] b - - 0 1",
    "l3k3l/9/4+P4/9/9/2n6/9/5+b3/L3K3L[RGp] w - - 0 1",
])
def test_evaluation_is_the_same_from_either_side(ours, fen):
    """Black's Lance, Knight, Silver and Gold are scored with Black's moves (mobility and
    attacks read the mirrored rays)."""
    from fairymax.evaluate import evaluate_board, init_psq
    board = board_of(ours, "shogi", fen)
    init_psq(board.variant)
    other = board_of(ours, "shogi", flipped(fen))
    assert evaluate_board(other) == evaluate_board(board)


def test_full_hands_give_more_moves_than_the_old_move_list_held(ours):
    """Every piece in one hand: 525 drops and king moves, 559 with a Rook and a Bishop
    in the zone (more than the 512 of MAX_MOVES before shogi), Fairy-Stockfish's counts."""
    board = board_of(ours, "shogi", "4k4/9/9/9/9/9/9/9/4K4[RRBBGGGGSSSSNNNNLLLLPPPPPPPPPPPPPPPPPP] w - - 0 1")
    assert len(board.legal_moves()) == 525
    board.set_fen("k8/9/3R1B3/9/9/9/9/9/4K4[RBGGGGSSSSNNNNLLLLPPPPPPPPPPPPPPPPPP] w - - 0 1")
    assert len(board.legal_moves()) == len(board.generated_moves()) == 559


def test_repetition_across_captures(ours):
    """In a drop game a position can come back after captures (the pieces are dropped
    back): Gxd5 Gxd5 G@d4 G@e6 repeats the start."""
    board = board_of(ours, "shogi", "4k4/9/9/4g4/3g5/3G5/9/9/4K4[] w - - 0 1")
    start = board.key
    for text in ("d4d5", "e6d5", "G@d4", "G@e6"):
        board.push(board.parse_move(text))
    assert board.key == start and board.repetitions() == 1


def test_fourth_occurrence_is_a_draw(ours):
    """Sennichite: the start position comes back a 4th time after 12 moves; no ending
    before (chess would end at the 3rd), as Fairy-Stockfish says."""
    start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[-] w 0 1"
    cycle = ["h2g2", "b8c8", "g2h2", "c8b8"]
    assert assert_repetition_endings_match_fairy_stockfish(ours, "shogi", start, cycle * 3) == 12


PERPETUAL_START = "8k/9/9/9/9/9/9/9/R3K4[-] w 0 1"
PERPETUAL_CYCLE = ["i9i8", "a9a8", "i8i9", "a8a9"]


def test_perpetual_check_loses(ours):
    """The Rook checks with every move: at the 4th occurrence White loses, and it stays
    lost for whichever side is to move, as Fairy-Stockfish says."""
    moves = ["a1a9"] + PERPETUAL_CYCLE * 4
    assert assert_repetition_endings_match_fairy_stockfish(ours, "shogi", PERPETUAL_START, moves) == 13
    board = board_of(ours, "shogi", PERPETUAL_START)
    for text in moves[:13]:
        board.push(board.parse_move(text))
    assert board.outcome() == ("0-1", "White gives perpetual check")


def test_search_scores_a_perpetual_check_as_a_loss(ours):
    """Repeating the checking cycle is scored as being mated; a quiet rook move that
    breaks it is not."""
    from fairymax.search import MATE, Searcher
    board = board_of(ours, "shogi", PERPETUAL_START)
    for text in ["a1a9"] + PERPETUAL_CYCLE[:3]:
        board.push(board.parse_move(text))
    repeat = board.parse_move("a8a9")
    others = [m for m in board.legal_moves() if m != repeat]
    info = None
    for info in Searcher(hash_mb=4).iterate(board, max_depth=3, exclude=others):
        pass
    assert info.pv[0] == repeat and info.score < -MATE + 100
    for info in Searcher(hash_mb=4).iterate(board, max_depth=3, exclude=[repeat]):
        pass
    assert info.score > 300
