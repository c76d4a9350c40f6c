"""Drop games (pieces.ini "Drops:"): hands, drops, demotion, FEN holdings and hashing,
checked by hand-made positions and against Fairy-Stockfish's rules (pyffish)."""
from __future__ import annotations


import pytest

from conftest import assert_moves_match_fairy_stockfish, assert_random_games_keep_state, board_of


def moves_of(board) -> set[str]:
    return {board.move_text(m) for m in board.legal_moves()}


def test_start_position_has_an_empty_hand(ours):
    board = board_of(ours, "crazyhouse")
    assert board.fen().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq")
    assert not any("@" in text for text in moves_of(board))


def test_captured_piece_changes_sides(ours):
    board = board_of(ours, "crazyhouse", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 2")
    board.push(board.parse_move("e4d5"))
    assert board.holdings(0) == "P" and board.holdings(1) == ""
    board.push(board.parse_move("d8d5"))
    assert board.holdings(0) == "P" and board.holdings(1) == "p"
    assert "P@e4" in moves_of(board)
    board.push(board.parse_move("P@e4"))
    board.check()
    assert board.piece_at("e4") == ("P", False)


def test_pawns_are_not_dropped_on_the_first_or_last_rank(ours):
    board = board_of(ours, "crazyhouse", "4k3/8/8/8/8/8/8/4K3[Pp] w - - 0 1")
    drops = {text for text in moves_of(board) if text.startswith("P@")}
    ranks = {text[-1] for text in drops}
    assert ranks == set("234567")
    assert len(drops) == 6 * 8


def test_pawn_dropped_on_its_start_rank_may_double_step(ours):
    board = board_of(ours, "crazyhouse", "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1")
    board.push(board.parse_move("P@a2"))
    board.push(board.parse_move("e8d8"))
    assert "a2a4" in moves_of(board)


def test_captured_promoted_piece_returns_as_a_pawn(ours):
    board = board_of(ours, "crazyhouse", "r3k3/1P6/8/8/8/8/8/4K3[] w - - 0 1")
    board.push(board.parse_move("b7b8q"))
    assert board.fen().startswith("rQ~2k3/")
    board.push(board.parse_move("a8b8"))
    assert board.holdings(1) == "p"
    board.check()
    board.pop()
    assert board.holdings(1) == ""
    assert board.piece_at("b8") == ("Q~", False)


def test_only_drops_that_stop_the_check_are_legal(ours):
    board = board_of(ours, "crazyhouse", "4k3/8/8/8/8/8/8/r3K3[N] w - - 0 1")
    drops = {text for text in moves_of(board) if "@" in text}
    assert drops == {"N@b1", "N@c1", "N@d1"}


def test_drop_gives_check(ours):
    board = board_of(ours, "crazyhouse", "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1")
    board.push(board.parse_move("Q@e7"))
    assert board.in_check()
    board.check()


def test_hand_counts_are_hashed(ours):
    """Two pawns in hand differ from none (keys per count, not one XORed key per piece)."""
    none = board_of(ours, "crazyhouse", "4k3/8/8/8/8/8/8/4K3[] w - - 0 1")
    two = board_of(ours, "crazyhouse", "4k3/8/8/8/8/8/8/4K3[PP] w - - 0 1")
    one = board_of(ours, "crazyhouse", "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1")
    assert len({none.key, one.key, two.key}) == 3


@pytest.mark.parametrize("fen", ["4k3/8/8/8/8/8/8/4K3/QRp w - - 0 1",
                                 "4k3/8/8/8/8/8/8/4K3[QRp] w - - 0 1"])
def test_holdings_as_bracket_or_extra_rank(ours, fen):
    board = board_of(ours, "crazyhouse", fen)
    assert board.fen().startswith("4k3/8/8/8/8/8/8/4K3[RQp] w")


@pytest.mark.parametrize("fen", ["4k3/8/8/8/8/8/8/4K3[K] w - - 0 1",
                                 "4k3/8/8/8/8/8/8/4K3[X] w - - 0 1"])
def test_bad_holdings_are_refused(ours, fen):
    board = board_of(ours, "crazyhouse")
    with pytest.raises(ValueError):
        board.set_fen(fen)
    assert board.fen().startswith("rnbqkbnr/")


def test_random_games_keep_the_incremental_state(ours):
    assert_random_games_keep_state(ours, "crazyhouse", seed=7, games=10, plies=150)


def test_legal_moves_agree_with_fairy_stockfish(ours):
    """Random crazyhouse games: at every ply our legal moves are Fairy-Stockfish's."""
    assert assert_moves_match_fairy_stockfish(ours, "crazyhouse", seed=11, games=12, plies=120) > 500


def test_piece_in_hand_counts_in_full_and_threatens_the_royal(ours):
    """A queen in the enemy's hand counts in full (no drawish scale without pawns: it
    can always be dropped), and more again against a royal with empty squares around it."""
    from fairymax.evaluate import evaluate_board, get_weights, init_psq
    board = board_of(ours, "crazyhouse", "4k3/8/8/8/8/8/8/4K3[q] w - - 0 1")
    init_psq(board.variant)
    weights = get_weights(board.variant)
    assert evaluate_board(board) <= -weights["material_mg_Q"] - weights["drop_threat"]
