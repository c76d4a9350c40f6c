"""Search tests on known positions, at fixed depth (never wall clock for results)."""
import random
import threading
import time

import pytest

from conftest import board_of
from fairymax.board import Board
from fairymax.search import FEATURES, MATE, Searcher, SearchInfo, static_exchange
from fairymax.evaluate import (SEARCH_WEIGHTS, WEIGHT_DEFAULTS, evaluate_board, forget_weights, get_weights,
                               init_psq, lone_mater_letters, set_weights)

MATE_BOUND = MATE - 200


def board_at(variant, fen=None):
    board = Board.from_name(variant)
    if fen:
        board.set_fen(fen)
    return board


@pytest.fixture
def chess_weights_restored():
    yield
    forget_weights(Board.from_name("normal").variant)


def searched(board, depth, without=(), **kw):
    """A fresh searcher, the features named in `without` turned off, after a
    fixed-depth search, and that search's last complete SearchInfo."""
    searcher = Searcher(8)
    for name in without:
        searcher.features &= ~FEATURES[name]
    last = None
    for info in searcher.iterate(board, max_depth=depth, **kw):
        if info.complete:
            last = info
    assert last is not None
    return searcher, last


def search(board, depth, without=(), **kw):
    """Last complete SearchInfo of a fixed-depth search with a fresh searcher."""
    return searched(board, depth, without, **kw)[1]


def best_text(board, info):
    return board.move_text(info.pv[0])


def assert_pv_legal(board, pv):
    b = board.copy()
    for m in pv:
        assert m in b.legal_moves()
        b.push(m)


# ---------------------------------------------------------------- mates

@pytest.mark.parametrize("fen, move, plies", [
    ("6k1/5ppp/8/8/8/8/1r3PPP/3R2K1 w - - 0 1", "d1d8", 1),
    ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", "a1a6", 3),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", "d5f6", 3),
    ("6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", "g2g1", 3),
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", "f8c5", 5),
])
def test_mate_found_with_mate_score(fen, move, plies):
    """Found at the depth of the mate and one ply of quiescence; with razoring, which
    ends some nodes on a quiescence search that sees no mate, at most one ply later."""
    board = board_at("normal", fen)
    for without, depth in ((("razor",), plies + 1), ((), plies + 2)):
        info = search(board, depth, without=without)
        assert best_text(board, info) == move
        assert info.score == MATE - plies
        assert_pv_legal(board, info.pv)
        assert len(info.pv) == plies


def test_being_mated_scores_negative_mate():
    # Black's only move Ka7 is answered by Qa5#
    board = board_at("normal", "k7/2K5/8/1Q6/8/8/8/8 b - - 0 1")
    info = search(board, 3)
    assert best_text(board, info) == "a8a7"
    assert info.score == -(MATE - 2)


def test_mate_threat_avoided():
    # White threatens Rd8#; Black must make room for its king (or cover d8)
    board = board_at("normal", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1")
    info = search(board, 4)
    assert info.score > -MATE_BOUND
    board.push(info.pv[0])
    reply = search(board, 2)
    assert reply.score < MATE_BOUND


# ---------------------------------------------------------------- stalemate

def test_stalemate_avoided_in_chess():
    # Qb2 mates; most other queen moves stalemate the lone king
    board = board_at("normal", "8/8/8/8/8/1qk5/8/K7 b - - 0 1")
    info = search(board, 3)
    assert best_text(board, info) == "b3b2"
    assert info.score == MATE - 1


def test_stalemate_is_a_draw_in_chess_not_a_win():
    # Rb2 would stalemate White: a draw in chess, so the engine plays on
    board = board_at("normal", "8/8/8/7p/7P/1rk5/8/K7 b - - 0 1")
    info = search(board, 4)
    assert best_text(board, info) != "b3b2"
    assert info.score > 300


def test_stalemate_sought_in_shatranj():
    # In shatranj the stalemated side loses: Rb2 wins at once
    board = board_at("shatranj", "8/8/8/7p/7P/1rk5/8/K7 b - - 0 1")
    info = search(board, 4)
    assert best_text(board, info) == "b3b2"
    assert info.score == MATE - 1


def test_losing_side_seeks_stalemate():
    # Desperado rook: Black, facing mate, checks until the rook is taken with stalemate
    board = board_at("normal", "7k/5Q2/5K2/8/8/8/8/r7 b - - 0 1")
    info = search(board, 6)
    assert abs(info.score) < 50


# ---------------------------------------------------------------- variant rules

def test_shatranj_bare_king_wins():
    board = board_at("shatranj", "7r/8/8/8/8/2k5/7R/K7 b - - 0 1")
    info = search(board, 4)
    assert best_text(board, info) == "h8h2"
    assert info.score >= MATE_BOUND


def test_bare_king_is_no_win_in_chess():
    board = board_at("normal", "7r/8/8/8/8/2k5/7R/K7 b - - 0 1")
    info = search(board, 4)
    assert best_text(board, info) == "h8h2"
    assert 300 < info.score < MATE_BOUND


def test_makruk_pawn_promotes_to_met_on_the_sixth_rank():
    # exd6 takes the rook and promotes (makruk: on the 6th rank, to a met); the score
    # counts the met and the pawn left against the bare king, in the weights in use
    board = board_at("makruk", "k7/8/3r4/4P3/8/8/P7/4K3 w - - 0 1")
    info = search(board, 4)
    assert best_text(board, info) == "e5d6m"
    weights = get_weights(board.variant)
    assert info.score > weights["material_eg_m"] + weights["material_eg_p"]
    board.push(info.pv[0])
    assert "M" in board.fen().split()[0]


def test_makruk_promotion_push_when_it_is_the_way_to_win():
    board = board_at("makruk", "k7/8/8/4P3/8/8/P7/4K3 w - - 0 1")
    info = search(board, 5)
    assert best_text(board, info) == "e5e6m"


# ---------------------------------------------------------------- tactics (WAC)

@pytest.mark.parametrize("fen, move", [
    ("r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1", "h6h7"),
    ("5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1", "c6c4"),
    ("7k/p7/1R5K/6r1/6p1/6P1/8/8 w - - 0 1", "b6b7"),
    ("rnbqkb1r/pppp1ppp/8/4P3/6n1/7P/PPPNPPP1/R1BQKBNR b KQkq - 0 1", "g4e3"),
    ("r4q1k/p2bR1rp/2p2Q1N/5p2/5p2/2P5/PP3PPP/R5K1 w - - 0 1", "e7f7"),
    ("3q1rk1/p4pp1/2pb3p/3p4/6Pr/1PNQ4/P1PB1PP1/4RRK1 b - - 0 1", "d6h2"),
])
def test_tactics(fen, move):
    board = board_at("normal", fen)
    info = search(board, 7)
    assert best_text(board, info) == move


def test_wins_hanging_queen():
    board = board_at("normal", "rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 0 1")
    info = search(board, 3)
    assert best_text(board, info) == "c1g5"


# ---------------------------------------------------------------- driver behaviour

def test_node_count_is_reproducible_and_limits_hold():
    board = board_at("normal")
    a, b = Searcher(8), Searcher(8)
    for _ in a.iterate(board, max_depth=6):
        pass
    for _ in b.iterate(board, max_depth=6):
        pass
    assert a.nodes == b.nodes
    c = Searcher(8)
    infos = list(c.iterate(board, max_nodes=3000))
    assert infos and c.nodes <= 3000
    assert infos[-1].pv[0] in board.legal_moves()


def test_a_searcher_forgets_scores_of_other_weights(chess_weights_restored):
    """The evaluation caches live as long as the searcher: scores from before a change of
    weights must not come back after it."""
    board = board_at("normal", "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    reused = Searcher(8)
    for _ in reused.iterate(board, max_depth=6):
        pass
    set_weights(board.variant, {"mobility": 20, "open_file": 80})
    reused.clear()
    for _ in reused.iterate(board, max_depth=6):
        pass
    fresh = Searcher(8)
    for _ in fresh.iterate(board, max_depth=6):
        pass
    assert reused.nodes == fresh.nodes


def test_the_variants_weights_set_how_selective_the_search_is():
    """Capablanca's weights file prunes more (null_*, reduce_checks, improving_lmr) than the
    defaults, and extends checks at the horizon; shatranj and makruk take improving_lmr
    alone, chess and courier the defaults: the same search with the defaults' pruning
    takes more nodes, and a step of 0 is refused before it could divide."""
    defaults = {name: WEIGHT_DEFAULTS[name] for name in SEARCH_WEIGHTS}
    pruning_defaults = {name: value for name, value in defaults.items() if name != "horizon_checks"}
    for other, changed in (("normal", {}), ("courier", {}), ("shatranj", {"improving_lmr": 1}),
                           ("makruk", {"improving_lmr": 1})):
        weights = get_weights(board_at(other).variant)
        assert {name: weights[name] for name in defaults} == {**defaults, **changed}
    board = board_at("capablanca")
    variant = board.variant
    assert {name: get_weights(variant)[name] for name in defaults} != defaults
    try:
        selective, _ = searched(board, 7)
        set_weights(variant, pruning_defaults)
        init_psq(variant)
        plain, _ = searched(board, 7)
        assert selective.nodes < plain.nodes
        with pytest.raises(ValueError, match="null_depth_step must be positive"):
            set_weights(variant, {"null_depth_step": 0})
    finally:
        forget_weights(variant)
        init_psq(variant)


@pytest.mark.parametrize("variant_name,depth", [("capablanca", 7), ("shatranj", 10), ("makruk", 10)])
def test_improving_lmr_changes_the_search(variant_name, depth):
    """improving_lmr (late moves reduced a ply more where the static eval is not above
    that of two plies before) reaches the search in each variant whose weights set it:
    the search with it set to 0 visits another number of nodes, and its principal
    variation stays legal.  (Fewer nodes at every depth is not a property: in
    capablanca's start position it takes more nodes to depth 9 and fewer to depth 11,
    through re-searches and move order.)"""
    board = board_at(variant_name)
    variant = board.variant
    assert get_weights(variant)["improving_lmr"] == 1
    reduced, info = searched(board, depth)
    assert_pv_legal(board, info.pv)
    try:
        set_weights(variant, {"improving_lmr": 0})
        init_psq(variant)
        plain, _ = searched(board, depth)
        assert reduced.nodes != plain.nodes
    finally:
        forget_weights(variant)
        init_psq(variant)


BACK_RANK = "4r1k1/5ppp/8/8/n7/8/5PPP/3Q2K1 w - - 0 1"   # Qxa4?? Re1#


def test_horizon_checks_see_a_mate_at_the_horizon():
    """To depth 2, Black's Re1 mate is its last full-width move.  Without horizon_checks
    White, in check at the horizon, stands pat there and takes the knight; with it the
    check is extended, the evasions are searched, there are none, and White keeps its
    queen home."""
    board = board_at("normal", BACK_RANK)
    variant = board.variant
    greedy = board.parse_move("d1a4")
    try:
        set_weights(variant, {"horizon_checks": 0})
        init_psq(variant)
        assert search(board, 2).pv[0] == greedy
        set_weights(variant, {"horizon_checks": 1})
        init_psq(variant)
        info = search(board, 2)
        assert info.pv[0] != greedy
        assert_pv_legal(board, info.pv)
    finally:
        forget_weights(variant)
        init_psq(variant)


def test_board_is_not_modified_and_infos_are_ordered():
    board = board_at("normal", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    fen = board.fen()
    infos = [i for i in Searcher(8).iterate(board, max_depth=5) if i.complete]
    assert [i.depth for i in infos] == [1, 2, 3, 4, 5]
    assert all(isinstance(i, SearchInfo) for i in infos)
    assert board.fen() == fen
    for info in infos:
        assert_pv_legal(board, info.pv)


def test_exclude_and_multipv():
    board = board_at("normal", "6k1/5ppp/8/8/8/8/1r3PPP/3R2K1 w - - 0 1")
    mate = board.parse_move("d1d8")
    info = search(board, 3, exclude=[mate])
    assert info.pv[0] != mate
    lines = [i for i in Searcher(8).iterate(board, max_depth=3, multipv=3) if i.complete and i.depth == 3]
    assert [i.multipv for i in lines] == [1, 2, 3]
    assert lines[0].pv[0] == mate
    assert len({i.pv[0] for i in lines}) == 3
    # lines after the first are searched one by one with their own windows, so their
    # scores may come out a few centipawns out of order; the best line comes first
    assert lines[0].score >= max(lines[1].score, lines[2].score)


def test_singular_extension_changes_the_tree_and_keeps_results_sound():
    """From depth 8 on a hash move that beats the others by a margin is searched a ply
    deeper: the tree is not the one searched without it, and lines and mates stay right."""
    board = board_at("normal", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    nodes = []
    for without in ((), ("singular",)):
        searcher, info = searched(board, 9, without)
        assert info.depth == 9
        assert_pv_legal(board, info.pv)
        nodes.append(searcher.nodes)
    assert nodes[0] != nodes[1]
    board = board_at("normal", "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1")
    info = search(board, 10)
    assert best_text(board, info) == "f8c5" and info.score == MATE - 5


def test_razoring_prunes_and_still_finds_the_mate():
    """Nodes whose evaluation is far below alpha near the leaves end on a quiescence
    search: fewer nodes, and the mate of the side that gave its material away stays."""
    board = board_at("normal", "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1")
    nodes = []
    for without in ((), ("razor",)):
        searcher, info = searched(board, 8, without)
        assert best_text(board, info) == "f8c5" and info.score == MATE - 5
        nodes.append(searcher.nodes)
    assert nodes[0] < nodes[1]


def test_stop_from_another_thread():
    board = board_at("capablanca")
    searcher = Searcher(8)
    threading.Timer(0.3, searcher.stop).start()
    start = time.monotonic()
    infos = list(searcher.iterate(board))
    assert time.monotonic() - start < 3.0
    assert infos and infos[-1].pv[0] in board.legal_moves()


def test_hard_time_limit():
    board = board_at("normal")
    start = time.monotonic()
    infos = list(Searcher(8).iterate(board, hard_ms=200))
    assert time.monotonic() - start < 2.0
    assert infos


def test_no_legal_moves_yields_nothing():
    board = board_at("normal", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")   # stalemate
    assert list(Searcher(8).iterate(board, max_depth=3)) == []


def test_evaluation_symmetric_and_material():
    init_psq(Board.from_name("normal").variant)
    start = board_at("normal")
    assert abs(evaluate_board(start)) < 30
    up_a_queen = board_at("normal", "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert evaluate_board(up_a_queen) > 700
    mirrored = board_at("normal", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1")
    assert evaluate_board(mirrored) == evaluate_board(up_a_queen)


@pytest.mark.parametrize("variant, maters", [("normal", "QRS"), ("makruk", "R"), ("courier", "Rm"),
                                             ("capablanca", "ACQRe"), ("shogi", "DHR")])
def test_pieces_that_mate_alone_are_read_off_the_rays(variant, maters):
    """Rook, queen (and normal's S, a second queen), chancellor, archbishop,
    capablanca's e (it also steps like a king), courier's mann (a commoner) and
    shogi's promoted rook and bishop mate a bare king on their own; the bishop,
    knight, ferz, met, khon, shogi's lance (a rook's move forward only) and gold do not."""
    assert lone_mater_letters(Board.from_name(variant).variant) == maters


def test_a_lone_piece_that_cannot_mate_is_a_dead_draw():
    """A makruk knight (worth more than the 400 that once marked mating material) and a
    bishop cannot mate alone: with one against a bare king the score is near zero;
    with a pawn beside it, still a win."""
    assert abs(evaluate_board(board_at("makruk", "8/8/8/3k4/8/3K4/4N3/8 b - - 0 1"))) < 50
    assert evaluate_board(board_at("makruk", "8/8/8/3k4/8/3KP3/4N3/8 b - - 0 1")) < -300
    assert abs(evaluate_board(board_at("capablanca", "10/10/10/4k5/10/4K5/5B4/10 b - - 0 1"))) < 50


@pytest.mark.parametrize("variant, fen", [
    ("makruk", "8/8/3r4/3k4/8/3K4/4N3/3R4 b - - 0 1"),        # knight and rook against rook
    ("makruk", "8/8/3s4/3k4/8/3K4/8/3R4 b - - 0 1"),          # rook against khon
    ("capablanca", "10/10/3r6/3k6/10/3K6/4B5/3R6 b - - 0 1"),  # bishop and rook against rook
    ("normal", "8/8/3r4/3k4/8/3K4/4B3/3R4 b - - 0 1")])
def test_a_lead_of_a_piece_that_cannot_mate_alone_without_pawns_is_drawish(variant, fen):
    """Without pawns, a lead of no more than the best piece that cannot mate alone (a
    makruk knight, 450; a capablanca bishop, 350; a chess bishop) is scaled toward a
    draw."""
    assert abs(evaluate_board(board_at(variant, fen))) < 150


def test_a_rook_ahead_without_pawns_is_not_drawish():
    assert evaluate_board(board_at("makruk", "8/8/3r4/3k4/8/3K4/4R3/3R4 b - - 0 1")) < -500


@pytest.mark.parametrize("variant", ["capablanca", "shatranj", "makruk", "courier", "grande-acedrex",
                                     "king-of-the-hill", "spartan", "almost-wildebeest"])
def test_every_kind_of_variant_searches(variant):
    board = board_at(variant)
    info = search(board, 3)
    assert_pv_legal(board, info.pv)
    assert abs(info.score) < 300


def test_short_games_in_every_variant(ours):
    """A few moves of self-play in every variant of pieces.ini, each chosen by a small
    node-limited search: every principal variation legal, the board left as it was."""
    searcher = Searcher(8)
    for name in sorted(ours):
        board = board_of(ours, name)
        for _ in range(10):
            if not board.legal_moves():
                break
            fen = board.fen()
            last = None
            for info in searcher.iterate(board, max_nodes=3000):
                last = info
            assert last is not None and board.fen() == fen, name
            assert_pv_legal(board, last.pv)
            board.push(last.pv[0])


def test_correction_history_learns_how_far_the_evaluation_is_off():
    """With a tempo of 300 cp the side to move's static score is about 300 too high at
    every node, so searches find it too high, and the correction of the root's pawn
    structure goes to the side of that error, within its bound of 64 cp; `clear`
    forgets it."""
    board = board_at("normal")
    searcher = Searcher(8)
    assert searcher.correction(board) == 0
    try:
        set_weights(board.variant, {"tempo": 300})
        init_psq(board.variant)
        for _ in searcher.iterate(board, max_depth=6):
            pass
        assert -64 <= searcher.correction(board) < -16
    finally:
        forget_weights(board.variant)
        init_psq(board.variant)
    searcher.clear()
    assert searcher.correction(board) == 0


# ---------------------------------------------------------------- Lazy SMP

@pytest.mark.parametrize("fen, move, plies", [
    ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", "a1a6", 3),
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", "f8c5", 5),
])
def test_threads_find_the_same_mates(fen, move, plies):
    board = board_at("normal", fen)
    searcher = Searcher(8)
    searcher.threads = 3
    last = None
    for info in searcher.iterate(board, max_depth=plies + 1):
        if info.complete:
            last = info
    assert best_text(board, last) == move and last.score == MATE - plies
    assert_pv_legal(board, last.pv)


def test_threads_share_the_work_and_end_with_the_search():
    board = board_at("normal", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    before = threading.active_count()
    one, two = Searcher(8), Searcher(8)
    two.threads = 2
    assert (one.threads, two.threads) == (1, 2)
    last = {}
    for searcher in (one, two):
        for info in searcher.iterate(board, max_depth=7):
            last[searcher.threads] = info
        assert threading.active_count() == before      # helpers joined
    # the helper's nodes are counted with the main thread's (which alone match one thread's)
    assert last[2].nodes > 0 and last[2].pv[0] in board.legal_moves()
    # stop() ends an unlimited two-thread search, helpers included
    gen = two.iterate(board)
    next(gen)
    timer = threading.Timer(0.2, two.stop)
    timer.start()
    for _ in gen:
        pass
    timer.join()
    assert threading.active_count() == before


def test_thread_count_changed_during_a_search_applies_to_the_next():
    board = board_at("normal")
    searcher = Searcher(8)
    searcher.threads = 2
    gen = searcher.iterate(board, max_depth=6)
    next(gen)
    searcher.threads = 1
    for info in gen:
        pass
    assert info.pv[0] in board.legal_moves() and searcher.threads == 1


@pytest.mark.parametrize("variant, fen, move, want", [
    # undefended: the victim's worth
    ("normal", "4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", "p"),
    ("normal", "4k3/8/8/8/8/8/4n3/3QK1R1 b - - 0 1", "e2g1", "r"),
    # a pawn or a knight defends: the queen is lost for a pawn
    ("normal", "4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", "losing"),
    ("normal", "2k5/2n5/8/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", "losing"),
    # ... unless the knight is pinned to its king
    ("normal", "2k5/2n5/8/3p4/8/8/8/2RQK3 w - - 0 1", "d1d5", "p"),
    # xiangqi: a Cannon recaptures over a screen; a Horse recaptures unless its leg is blocked
    ("xiangqi", "4k4/9/4c4/4p4/9/4p4/9/4R4/9/4K4 w - - 0 1", "e2e4", "losing"),
    ("xiangqi", "4k4/9/9/3n5/9/4p4/9/4R4/9/4K4 w - - 0 1", "e2e4", "losing"),
    ("xiangqi", "4k4/9/9/3n5/3p5/4p4/9/4R4/9/4K4 w - - 0 1", "e2e4", "p"),
])
def test_static_exchange(variant, fen, move, want):
    """SEE plays the exchange out with real moves: hoppers, lame leaps and pins count."""
    board = board_at(variant, fen)
    gain = static_exchange(board, board.parse_move(move))
    if want == "losing":
        assert gain < 0
    else:
        assert gain == board.variant.value(board.variant.type_of(want, 1))


@pytest.mark.parametrize("variant", ["normal", "capablanca", "shatranj", "xiangqi", "shogi"])
def test_static_exchange_window(variant):
    """Asked with a window, as the search asks whether a capture loses more than a
    margin, SEE stops once its answer is certain: it must give the full value clamped
    to the window, over every capture of positions from random play."""
    rng = random.Random(variant)
    checked = 0
    for _ in range(6):
        board = board_at(variant)
        for _ in range(80):
            moves = board.legal_moves()
            if not moves:
                break
            for move in moves:
                full = static_exchange(board, move)
                if full is None:
                    continue
                for lo, hi in ((-51, -50), (50, 51), (-400, 300), (0, 1), (-1, 0), (full - 1, full),
                               (full, full + 1)):
                    assert static_exchange(board, move, lo, hi) == min(max(full, lo), hi), (
                        board.fen(), board.move_text(move), lo, hi, full)
                checked += 1
            board.push(rng.choice(moves))
    assert checked > 300
    with pytest.raises(ValueError):
        static_exchange(board, move, 0, 0)
