"""Xiangqi from pieces.ini's rule lines (Start, Region, RayRanks, FacingRoyals): the rules
one by one on hand-made positions, and legal moves against Fairy-Stockfish's (pyffish)."""
from __future__ import annotations

import re

import pytest

from conftest import assert_moves_match_fairy_stockfish, assert_repetition_endings_match_fairy_stockfish, board_of


def moves_of(board) -> set[str]:
    return {board.move_text(m) for m in board.legal_moves()}


def from_square(board, square: str) -> set[str]:
    return {text[len(square):] for text in moves_of(board) if re.match(square + r"[a-i]", text)}


def test_start_position(ours):
    board = board_of(ours, "xiangqi")
    assert board.fen() == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    assert len(moves_of(board)) == 44
    assert "h2e2" in moves_of(board)          # XBoard coordinates: ranks 0-9


def test_general_and_advisor_stay_in_the_palace(ours):
    board = board_of(ours, "xiangqi", "4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 0 1")
    assert from_square(board, "d0") == {"e0", "d1"}          # not c0 or c1
    assert from_square(board, "e1") == {"d2", "f2", "f0"}    # d0 is own; no square outside


def test_elephant_stays_home_and_is_blocked_at_the_eye(ours):
    board = board_of(ours, "xiangqi", "3k5/9/9/9/9/2B6/9/9/9/4K4 w - - 0 1")
    assert from_square(board, "c4") == {"a2", "e2"}          # a6, e6 lie across the river
    board = board_of(ours, "xiangqi", "3k5/9/9/9/9/9/9/9/3P5/2B1K4 w - - 0 1")
    assert from_square(board, "c0") == {"a2"}                # d1 blocks e2


def test_horse_is_blocked_by_its_leg(ours):
    board = board_of(ours, "xiangqi", "3k5/9/9/9/9/9/9/9/1P7/1N2K4 w - - 0 1")
    assert from_square(board, "b0") == {"d1"}                # b1 is the leg toward a2 and c2
    board = board_of(ours, "xiangqi", "3k5/9/9/9/9/9/9/9/9/1N2K4 w - - 0 1")
    assert from_square(board, "b0") == {"a2", "c2", "d1"}


def test_cannon_captures_over_exactly_one_piece(ours):
    board = board_of(ours, "xiangqi", "3k5/9/9/9/1r7/9/1p7/9/9/1C2K4 w - - 0 1")
    targets = from_square(board, "b0")
    assert "b5" in targets and "b3" not in targets and "b2" in targets


def test_soldier_steps_sideways_only_across_the_river(ours):
    board = board_of(ours, "xiangqi", "3k5/9/9/9/9/9/4P4/9/9/4K4 w - - 0 1")
    assert from_square(board, "e3") == {"e4"}
    board = board_of(ours, "xiangqi", "3k5/9/9/9/4P4/9/9/9/9/4K4 w - - 0 1")
    assert from_square(board, "e5") == {"e6", "d5", "f5"}


def test_generals_may_not_face_each_other(ours):
    board = board_of(ours, "xiangqi", "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
    assert "e0d0" not in moves_of(board)
    with pytest.raises(ValueError):
        board.set_fen("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1")


def test_no_legal_move_loses(ours):
    # Black's general on d9 is not attacked, but e9 (chariot e5) and d8 (chariot a8) are,
    # and the palace ends at d: no legal move, which loses
    board = board_of(ours, "xiangqi", "3k5/R8/9/9/4R4/9/9/9/9/5K3 b - - 0 1")
    assert not board.legal_moves() and not board.in_check()
    assert board.outcome()[0] == "1-0"


def to_fsf(text: str) -> str:
    """XBoard's 0-based ranks of a 10-rank board to Fairy-Stockfish's 1-based ones."""
    return re.sub(r"\d+", lambda m: str(int(m.group()) + 1), text)


def test_legal_moves_agree_with_fairy_stockfish(ours):
    """Random xiangqi games: at every ply our legal moves are Fairy-Stockfish's."""
    assert assert_moves_match_fairy_stockfish(ours, "xiangqi", seed=5, games=10, plies=100,
                                              to_fsf=to_fsf) > 500


def test_perpetual_check_loses_at_the_third_occurrence(ours):
    """Xiangqi keeps chess's threefold count, but the side that checks with every move
    loses, as Fairy-Stockfish says."""
    moves = ["a0a9"] + ["f9f8", "a9a8", "f8f9", "a8a9"] * 3
    assert assert_repetition_endings_match_fairy_stockfish(
        ours, "xiangqi", "5k3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1", moves, to_fsf=to_fsf) == 9


def test_checks_and_their_answers_do_not_count_toward_the_fifty_move_rule(ours):
    """XBoard, the referee, leaves every position in check and the one after it out of
    xiangqi's fifty-move count; a claim it counts short is a false claim and loses."""
    board = board_of(ours, "xiangqi", "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 97 1")
    # a0a9 checks, d9d8 answers, a9a8 checks, d8d9 answers: four positions not counted
    for move in ["a0a9", "d9d8", "a9a8", "d8d9", "e0f0", "d9e9"]:
        board.push(board.parse_move(move))
    assert board.halfmove_clock == 103 and board.rule_plies == 99
    assert board.outcome() is None
    board.push(board.parse_move("a8a7"))
    assert board.rule_plies == 100
    assert board.outcome() == ("1/2-1/2", "Draw by fifty move rule")


def test_a_soldiers_sideways_step_does_not_reset_the_fifty_move_count(ours):
    board = board_of(ours, "xiangqi", "3k5/9/9/9/4P4/9/9/9/9/4K4 w - - 10 1")
    board.push(board.parse_move("e5d5"))        # across the river: sideways, undoable
    assert board.halfmove_clock == 11
    board.push(board.parse_move("d9d8"))
    board.push(board.parse_move("d5d6"))        # forward: irreversible
    assert board.halfmove_clock == 0


def test_chess_counts_checks_toward_the_fifty_move_rule(ours):
    board = board_of(ours, "normal", "3k4/8/8/8/8/8/8/R3K3 w - - 98 1")
    for move in ["a1a8", "d8d7"]:
        board.push(board.parse_move(move))
    assert board.rule_plies == board.halfmove_clock == 100
    assert board.outcome() == ("1/2-1/2", "Draw by fifty move rule")
