"""The tuner: self-play positions, teacher labels, and a fit that recovers known weights."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fairymax import evaluate, loader, tune
from fairymax.board import Board
from fairymax.variant import Variant

STOCKFISH = "/usr/games/stockfish"
FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"
OPENINGS = Path(__file__).resolve().parent.parent / "scripts" / "openings" / "chess_balanced.txt"


@pytest.fixture
def chess():
    variant = Variant(loader.load_default()["normal"])
    yield variant
    evaluate.forget_weights(variant)


def test_self_play_positions_are_quiet_and_legal(chess, tmp_path):
    out = tmp_path / "pos.fen"
    with out.open("w") as f:
        count = tune.self_play_positions(chess, tune.read_openings(str(OPENINGS)), 2, 500, 3, f)
    fens = out.read_text().splitlines()
    assert count == len(fens) > 20
    for fen in fens:
        board = Board(chess)
        board.set_fen(fen)
        assert not board.in_check() and board.legal_moves()


def test_weights_change_the_evaluation(chess):
    """A pawn ending is all end game: the end-game pawn value counts, the middle-game one
    not; with all pieces on the board it is the other way round."""
    ending = evaluate.PositionSet(chess, ["4k3/pp6/8/8/8/8/PPP5/4K3 w - - 0 1"])
    start = evaluate.PositionSet(chess, ["rnbqkbnr/pppppp2/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"])
    before = ending.evaluate()[0], start.evaluate()[0]
    weights = evaluate.get_weights(chess)
    evaluate.set_weights(chess, {"material_eg_p": weights["material_eg_p"] + 50})
    assert (ending.evaluate()[0], start.evaluate()[0]) == (before[0] + 50, before[1])
    evaluate.set_weights(chess, {"material_eg_p": weights["material_eg_p"],
                                 "material_mg_p": weights["material_mg_p"] + 50})
    assert (ending.evaluate()[0], start.evaluate()[0]) == (before[0], before[1] + 100)
    with pytest.raises(ValueError):
        evaluate.set_weights(chess, {"no_such_weight": 1})
    with pytest.raises(ValueError):
        evaluate.set_weights(chess, {"psq_mg_p": [0] * 10})       # chess tables take 64


def test_a_table_moves_a_piece_value_by_square(chess):
    """psq_mg_n / psq_eg_n: the knight's value by square from its owner's side, so the
    same table entry serves a white knight on c3 and a black one on c6."""
    white = evaluate.PositionSet(chess, ["4k3/p7/8/8/8/2N5/P7/4K3 w - - 0 1"])
    black = evaluate.PositionSet(chess, ["4k3/p7/2n5/8/8/8/P7/4K3 b - - 0 1"])
    assert white.evaluate() == black.evaluate()
    before = white.evaluate()[0]
    tables = evaluate.psq_tables(chess)
    for phase in evaluate.PHASES:
        table = tables[f"psq_{phase}_n"]
        table[2 * 8 + 2] += 30          # c3, White's view
        evaluate.set_weights(chess, {f"psq_{phase}_n": table})
    assert white.evaluate()[0] == black.evaluate()[0] == before + 30


def test_weights_file_tables_round_trip(tmp_path):
    path = tmp_path / "w.txt"
    weights = {"mobility": 3, "psq_mg_n": list(range(-32, 32))}
    tune.write_weights(path, weights, ["a header"])
    assert tune.read_weights(path) == weights
    path.write_text("mobility 3\n1 2 x\n")
    with pytest.raises(tune.UsageError, match=":2:"):
        tune.read_weights(path)


def test_fit_recovers_a_weight_from_its_own_labels(chess, tmp_path):
    """Label positions with our evaluation under known weights, start the fit elsewhere:
    the error falls and the weight moves back toward the one that made the labels."""
    fens = tmp_path / "pos.fen"
    with fens.open("w") as f:
        tune.self_play_positions(chess, tune.read_openings(str(OPENINGS)), 12, 300, 5, f)
    fens = fens.read_text().splitlines()
    truth = evaluate.get_weights(chess)
    teacher = evaluate.PositionSet(chess, fens).evaluate()
    evaluate.set_weights(chess, {"mobility": 8})
    errors = []
    fitted = tune.fit(chess, fens, teacher, 12, 1.0, errors.append)
    assert abs(fitted["mobility"] - truth["mobility"]) < 8 - truth["mobility"]
    train = [float(re.search(r"train (\S+)", line).group(1)) for line in errors if "train" in line]
    assert len(train) == 13 and train[-1] < train[0]


def test_fit_to_game_results(chess, tmp_path):
    """Labels `=1`, `=0.5`, `=0` are game results for the side to move: they are the
    targets themselves, matched by sigmoid(k * eval) with k fitted (Texel's method), and
    the fit lowers the error.  A result other than those three, or results mixed with
    teacher scores, is bad input."""
    fens = tmp_path / "pos.fen"
    with fens.open("w") as f:
        tune.self_play_positions(chess, tune.read_openings(str(OPENINGS)), 12, 300, 5, f)
    fens = fens.read_text().splitlines()
    scores = evaluate.PositionSet(chess, fens).evaluate()
    labels = tmp_path / "pos.lab"
    labels.write_text("".join(f"{fen};={1 if s > 60 else 0 if s < -60 else 0.5}\n"
                              for fen, s in zip(fens, scores)))
    fens, results = tune.load_labels(labels)
    k, teacher_scale = tune.label_scale(evaluate.PositionSet(chess, fens), results)
    assert k > 0 and teacher_scale is None
    targets = tune.label_targets(results, teacher_scale)
    assert targets == [float(r) for r in results] and set(targets) == {0.0, 0.5, 1.0}
    evaluate.set_weights(chess, {"mobility": 8})
    errors = []
    tune.fit(chess, fens, results, 6, 1.0, errors.append)
    assert errors[0].startswith("game results: sigmoid(")
    train = [float(re.search(r"train (\S+)", line).group(1)) for line in errors if "train" in line]
    assert train[-1] < train[0]
    labels.write_text(f"{fens[0]};=0.7\n")
    with pytest.raises(tune.UsageError, match="bad score '=0.7'"):
        tune.load_labels(labels)
    with pytest.raises(tune.UsageError, match="mix"):
        tune.label_scale(evaluate.PositionSet(chess, fens[:2]), [results[0], 30.0])


def test_line_search_finds_the_weight_that_made_the_labels(chess, tmp_path):
    """Labels from our evaluation with low_mobility 10, the search started at 0 (where it
    fits the teacher's scale): of 0, 10 and 20 the least error is at 10, and the weights
    are left as they were; a table's name is not a single weight."""
    fens = tmp_path / "pos.fen"
    with fens.open("w") as f:
        tune.self_play_positions(chess, tune.read_openings(str(OPENINGS)), 8, 300, 7, f)
    fens = fens.read_text().splitlines()
    evaluate.set_weights(chess, {"low_mobility": 10})
    teacher = evaluate.PositionSet(chess, fens).evaluate()
    evaluate.set_weights(chess, {"low_mobility": 0})
    _, errors = tune.line_search(chess, fens, teacher, "low_mobility", [0, 10, 20])
    assert errors[1] < min(errors[0], errors[2])
    assert evaluate.get_weights(chess)["low_mobility"] == 0
    with pytest.raises(tune.UsageError):
        tune.line_search(chess, fens, teacher, "psq_mg_P", [0])


@pytest.mark.skipif(not Path(STOCKFISH).exists(), reason="needs /usr/games/stockfish")
def test_label_with_stockfish(tmp_path):
    src, dst = tmp_path / "pos.fen", tmp_path / "pos.lab"
    src.write_text("4k3/8/8/8/8/8/8/QQQ1K3 w - - 0 1\n4k3/8/8/8/8/8/8/qqq1K3 w - - 0 1\n")
    teacher = tune.UciTeacher(STOCKFISH, None)
    assert tune.label_file(src, dst, teacher, 2000) == 2
    assert tune.label_file(src, dst, teacher, 2000) == 0          # resumed: nothing left
    teacher.close()
    scores = [int(line.rpartition(";")[2]) for line in dst.read_text().splitlines()]
    assert scores[0] > 1000 and scores[1] < -1000


@pytest.mark.parametrize("engine, variant", [(STOCKFISH, None), (FAIRY_STOCKFISH, "capablanca")])
def test_static_labels_are_the_teachers_eval_for_the_side_to_move(tmp_path, engine, variant):
    """--static: Stockfish's and Fairy-Stockfish's `eval` (their two formats), White's
    queen up scored high for White to move and low for Black to move; a
    position in check has no static score."""
    if not Path(engine).exists():
        pytest.skip(f"needs {engine}")
    board = "4k5/10/10/10/10/10/10/Q3K5" if variant else "4k3/8/8/8/8/8/8/Q3K3"
    src, dst = tmp_path / "pos.fen", tmp_path / "pos.lab"
    check = "4k5/10/10/10/10/10/10/4Q4K" if variant else "4k3/8/8/8/8/8/8/4Q2K"
    src.write_text(f"{board} w - - 0 1\n{board} b - - 0 1\n{check} b - - 0 1\n")
    teacher = tune.UciTeacher(engine, variant)
    assert tune.label_file(src, dst, teacher, 0, static=True) == 3
    teacher.close()
    scores = [line.rpartition(";")[2] for line in dst.read_text().splitlines()]
    assert int(scores[0]) > 500 and int(scores[1]) < -500 and scores[2] == "none"


@pytest.mark.skipif(not Path(STOCKFISH).exists(), reason="needs /usr/games/stockfish")
def test_labels_ignore_the_halfmove_clock(tmp_path):
    """Our evaluation has no clock term, so a position late in a fifty-move count gets
    the label of the same position with the count at zero (the teacher shrinks its
    score as the count grows)."""
    ending = "4k3/8/8/3n4/8/8/2N5/R3K3 w - - {} 80"
    src, dst = tmp_path / "pos.fen", tmp_path / "pos.lab"
    src.write_text(ending.format(0) + "\n" + ending.format(90) + "\n")
    teacher = tune.UciTeacher(STOCKFISH, None)
    tune.label_file(src, dst, teacher, 2000)
    teacher.close()
    fens, scores = tune.load_labels(dst)
    assert fens == [ending.format(0)] * 2
    # Not equal: the second search finds the first one's hash entries. With the
    # clock kept, the second score came out near half of the first.
    assert scores[0] > 100 and abs(scores[1] - scores[0]) < scores[0] * 0.15


def test_without_halfmove_clock():
    assert tune.without_halfmove_clock("8/8/8/8/8/8/8/K1k5 b - - 37 90") == "8/8/8/8/8/8/8/K1k5 b - - 0 90"
    assert tune.without_halfmove_clock("8/8/8/8/8/8/8/K1k5 b") == "8/8/8/8/8/8/8/K1k5 b"


def test_a_bad_fen_in_labels_is_named(tmp_path):
    """A broken FEN among the labels: one line naming the files and the FEN, status 2."""
    good = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1;30\n"
    labels = tmp_path / "pos.lab"
    labels.write_text(good * 120 + "4k3/8/8/8/8/8/4P3/4K3 x - - 0 1;30\n")
    done = subprocess.run([sys.executable, "-m", "fairymax", "tune", "line", str(labels),
                           "--weight", "mobility", "--values", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert str(labels) in done.stderr and "position 121 (4k3/8/8/8/8/8/4P3/4K3 x" in done.stderr


@pytest.mark.parametrize("args", [
    ["fit", "/nonexistent.lab"],
    ["fit", "/dev/null", "--variant", "nosuchvariant"],
    ["label", "/nonexistent.fen", "/tmp/x.lab", "--engine", "/nonexistent/engine"],
    ["line", "/nonexistent.lab", "--weight", "mobility", "--values", "0,4"],
    ["line", "/dev/null", "--weight", "mobility", "--values", "zero"],
    ["margins", "/nonexistent.fen"],
    ["margins", "/dev/null", "--variant", "nosuchvariant"],
    ["margins", "/dev/null", "--percentile", "0"],
])
def test_bad_input_one_line_and_status_2(args):
    done = subprocess.run([sys.executable, "-m", "fairymax", "tune", *args],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "fairymax tune: " in done.stderr


def test_psq_model_predicts_the_evaluation_after_a_table_change(chess, tmp_path):
    """The tuner's linear model of materials and tables agrees with the evaluation
    itself once its parameters are made the weights (up to rounding)."""
    np = pytest.importorskip("numpy")
    fens = tmp_path / "pos.fen"
    with fens.open("w") as f:
        tune.self_play_positions(chess, tune.read_openings(str(OPENINGS)), 4, 300, 7, f)
    positions = evaluate.PositionSet(chess, fens.read_text().splitlines())
    model = tune.PsqModel(chess, positions)
    params = model.params.copy()
    rng = np.random.default_rng(1)
    params[:, :-1] += rng.integers(-20, 21, size=params[:, :-1].shape)
    predicted = model.scores(params)
    evaluate.set_weights(chess, model.weights(params))
    actual = np.array(positions.evaluate())
    assert len(actual) > 50 and np.max(np.abs(predicted - actual)) <= 1.0


KNIGHT_LABEL_GAIN = 150     # what the labels add to the knight's middle-game value


def stronger_knight_labels(chess, tmp_path) -> tuple:
    """Self-play positions and, as their labels, our evaluation with the knight worth
    KNIGHT_LABEL_GAIN more in the middle game (the variant's weights are left as they
    were)."""
    path = tmp_path / "pos.fen"
    with path.open("w") as f:
        tune.self_play_positions(chess, tune.read_openings(str(OPENINGS)), 20, 300, 5, f)
    fens = path.read_text().splitlines()
    evaluate.set_weights(chess, {"material_mg_n": evaluate.get_weights(chess)["material_mg_n"]
                                + KNIGHT_LABEL_GAIN})
    teacher = evaluate.PositionSet(chess, fens).evaluate()
    evaluate.forget_weights(chess)
    return fens, teacher


def test_table_fit_lowers_the_error(chess, tmp_path):
    """Labels from stronger_knight_labels: the fit of the tables from the unchanged
    weights takes most of the error away."""
    fens, teacher = stronger_knight_labels(chess, tmp_path)
    log = []
    tune.fit(chess, fens, teacher, 0, 1.0, log.append, table_epochs=100, table_step=2.0)
    train = [float(re.search(r"train (\S+)", line).group(1)) for line in log if "train" in line]
    assert train[-1] < train[0] / 5


def test_material_fit_keeps_the_tables(chess, tmp_path):
    """Labels from stronger_knight_labels: the materials-only fit finds more than half
    of the knight's gain, and writes no table. The positions come from our own
    self-play, so every search change moves what the fit finds (+115, then +95 when
    the histories' aging changed): the bound leaves room for that."""
    start = evaluate.get_weights(chess)["material_mg_n"]
    fens, teacher = stronger_knight_labels(chess, tmp_path)
    weights = tune.fit(chess, fens, teacher, 0, 1.0, lambda line: None, table_epochs=300,
                       table_step=5.0, table_shape="material")
    assert not any(name.startswith("psq_") for name in weights)
    assert weights["material_mg_n"] > start + KNIGHT_LABEL_GAIN // 2


def term_change(chess, fens: list, weight: str, value: int) -> list:
    """How much each position's evaluation changes when `weight` goes from 0 to value."""
    positions = evaluate.PositionSet(chess, fens)
    evaluate.set_weights(chess, {weight: 0})
    before = positions.evaluate()
    evaluate.set_weights(chess, {weight: value})
    return [a - b for a, b in zip(positions.evaluate(), before)]


def test_pawn_threat_counts_pieces_a_pawn_attacks(chess):
    """pawn_threat: e4 attacks the knight on d5 (a pawn on e3 does not); from Black's
    side the same position scores the bonus against it."""
    assert term_change(chess, ["4k3/p7/8/3n4/4P3/8/P7/R3K3 w - - 0 1",
                               "4k3/p7/8/3n4/8/4P3/P7/R3K3 w - - 0 1",
                               "4k3/p7/8/3n4/4P3/8/P7/R3K3 b - - 0 1"], "pawn_threat", 50) == [50, 0, -50]


def test_pawn_push_threat_counts_pieces_a_pawn_step_would_attack(chess):
    """pawn_push_threat: e4-e5 would attack the knight on d6. Not when e5 is taken (the
    black pawn), when a black pawn on f6 guards e5, or when the step attacks nothing
    (knight on d7); from Black's side the bonus counts against it."""
    assert term_change(chess, ["4k3/8/3n4/8/4P3/8/8/R3K3 w - - 0 1",
                               "4k3/8/3n4/4p3/4P3/8/8/R3K3 w - - 0 1",
                               "4k3/8/3n1p2/8/4P3/8/8/R3K3 w - - 0 1",
                               "4k3/3n4/8/8/4P3/8/8/R3K3 w - - 0 1",
                               "4k3/8/3n4/8/4P3/8/8/R3K3 b - - 0 1"],
                       "pawn_push_threat", 50) == [50, 0, 0, 0, -50]


def test_pawn_structure_terms(chess):
    """pawn_supported counts e3 defending d4 (d4 and e4 side by side are no support);
    pawn_phalanx counts the pair d4-e4 once."""
    fens = ["4k3/8/8/8/3P4/4P3/8/4K3 w - - 0 1", "4k3/8/8/8/3PP3/8/8/4K3 w - - 0 1"]
    assert term_change(chess, fens, "pawn_supported", 20) == [20, 0]
    assert term_change(chess, fens, "pawn_phalanx", 20) == [0, 20]


def test_tempo_counts_for_the_side_to_move(chess):
    """tempo: a bonus for whichever side is to move, in full with all pieces on the board
    and none in a pawn ending."""
    fens = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "8/4k3/8/3P4/8/8/8/K7 b - - 0 1"]
    assert term_change(chess, fens, "tempo", 25) == [25, 25, 0]


def test_piece_threat_counts_attacks_on_greater_pieces(chess):
    """The knight on e3 attacks the rook on d5; the bishop on e3 attacks a knight on c5,
    worth less than THREAT_GAP more than the bishop: no threat."""
    assert term_change(chess, ["4k3/p7/8/3r4/8/4N3/P7/4K3 w - - 0 1",
                               "4k3/p7/8/2n5/8/4B3/P7/4K3 w - - 0 1"], "piece_threat", 30) == [30, 0]


def test_king_open_file_in_the_middle_game(chess):
    """White's king on e1 without pawns on the d and e files: two open files, at full
    middle-game weight (Black has all its pieces)."""
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBQKBNR w KQkq - 0 1"
    assert term_change(chess, [fen], "king_open_file", 10) == [-20]


def test_passed_pawn_path_and_royal_distances(chess):
    """The passer on d5 (3 steps: PASSER_FACTOR 3), d6 empty, the white king 5 steps from
    d6 and the black one 1; the free path counts double with Black's pieces gone. The
    pawn behind it on d4 is not a second passer."""
    fens = ["8/4k3/8/3P4/8/8/8/K7 w - - 0 1", "8/4k3/8/3P4/3P4/8/8/K7 w - - 0 1"]
    assert term_change(chess, fens, "passer_free", 10) == [60, 60]
    assert term_change(chess, fens, "passer_own_king", 4) == [-60, -60]
    assert term_change(chess, fens, "passer_enemy_king", 4) == [12, 12]


def test_passer_cap_keeps_a_pawn_below_its_promotion():
    """Makruk's pawn on e5 is one step from becoming a met on e6 (a pawn each on a2 and
    h7 keeps the end-game scaling out). With passer_cap 100, however much the weights
    make of passed pawns, the pawn scores no more than the met it becomes; without it,
    such weights make it score more. With the passer weights in use, which fit within
    the gain, the pawn keeps all of them. Black's pawn on e4, the same position with the
    colours swapped, scores the same from Black's side."""
    makruk = Variant(loader.load_default()["makruk"])
    white = ["k7/7p/8/4P3/8/8/P7/4K3 w - - 0 1", "k7/7p/4M3/8/8/8/P7/4K3 w - - 0 1"]
    black = ["4k3/p7/8/8/4p3/8/7P/K7 b - - 0 1", "4k3/p7/8/8/8/4m3/7P/K7 b - - 0 1"]
    inflated = {"passed": 1000, "passer_free": 50, "passer_enemy_king": 50}
    try:
        evaluate.set_weights(makruk, {"passer_cap": 100})
        pawn, met = evaluate.PositionSet(makruk, white).evaluate()
        evaluate.set_weights(makruk, inflated)
        capped_pawn, capped_met = evaluate.PositionSet(makruk, white).evaluate()
        assert capped_pawn <= capped_met
        assert evaluate.PositionSet(makruk, black).evaluate() == [capped_pawn, capped_met]
        evaluate.set_weights(makruk, {"passer_cap": 0})
        uncapped_pawn, uncapped_met = evaluate.PositionSet(makruk, white).evaluate()
        assert uncapped_pawn > uncapped_met
        evaluate.set_weights(makruk, {"passer_cap": 100, "passed": 0, "passer_free": 0,
                                      "passer_enemy_king": 0, "passer_own_king": 0})
        assert evaluate.PositionSet(makruk, white[:1]).evaluate()[0] < pawn < met
    finally:
        evaluate.forget_weights(makruk)


def test_king_zone_counts_attacks_around_the_enemy_royal(chess):
    """king_zone_n: the knight on f6 attacks g8 and h7, next to the black king on h8;
    on b1 it attacks none. From Black's side the same bonus counts against.
    The weight is per square, so twice the weight gives twice the change."""
    fens = ["7k/p7/5N2/8/8/8/P7/4K3 w - - 0 1", "7k/p7/8/8/8/8/P7/1N2K3 w - - 0 1",
            "7k/p7/5N2/8/8/8/P7/4K3 b - - 0 1"]
    near, far, black = term_change(chess, fens, "king_zone_n", 40)
    assert near > 0 and far == 0 and black == -near
    assert term_change(chess, fens[:1], "king_zone_n", 80) == [2 * near]
    assert "king_zone_n" in evaluate.type_weight_names(chess) and "king_zone_k" not in evaluate.type_weight_names(chess)


def test_mobility_per_type_counts_safe_squares_of_leapers_too(chess):
    """mobility_n: the knight on b1 reaches a3, c3 and d2, but only d2 where a black pawn
    on b4 guards a3 and c3; from Black's side the bonus counts against. A knight has no
    sliding ray, so without mobility_n it has no mobility term at all."""
    fens = ["4k3/p7/8/8/8/8/P7/1N2K3 w - - 0 1", "4k3/8/8/8/1p6/8/P7/1N2K3 w - - 0 1",
            "4k3/p7/8/8/8/8/P7/1N2K3 b - - 0 1"]
    assert term_change(chess, fens, "mobility_n", 10) == [30, 10, -30]
    assert "mobility_n" in evaluate.type_weight_names(chess) and "mobility_k" not in evaluate.type_weight_names(chess)


def test_low_mobility_counts_squares_short_of_three(chess):
    """low_mobility: the rook on a1, shut in by its own pawn and knight, reaches no
    square, three short; on d4 it reaches many, none short; with a black pawn on c3
    guarding b2 and d2, the rook on c1 reaches b1 and d1 only where its own pieces
    on a1 and e1 stop it (one short). From Black's side the penalty counts for it."""
    fens = ["4k3/p7/8/8/8/8/P7/RN2K3 w - - 0 1", "4k3/p7/8/8/3R4/8/P7/4K3 w - - 0 1",
            "4k3/8/8/8/8/2p5/2P5/N1R1K3 w - - 0 1", "4k3/p7/8/8/8/8/P7/RN2K3 b - - 0 1"]
    assert term_change(chess, fens, "low_mobility", 10) == [-30, 0, -10, 30]


# the weights of the terms each lazy exit skips: the per-call terms (all but the
# materials and tables), and of those the piece terms
PIECE_TERM_WEIGHTS = ("mobility", "king_attack", "open_file", "semi_open_file", "seventh_rank",
                      "piece_pair", "piece_threat", "pawn_threat", "pawn_push_threat", "low_mobility")


def test_skipped_terms_are_what_the_lazy_exits_leave_out(chess, tmp_path):
    """With those terms' weights at 0, evaluate gives the score each exit looks at; the
    differences to the full evaluation are skipped_terms' (positions with pawns on both
    sides, where neither the mop-up nor the drawish scale applies)."""
    out = tmp_path / "pos.fen"
    with out.open("w") as f:
        tune.self_play_positions(chess, tune.read_openings(str(OPENINGS)), 3, 300, 11, f)
    fens = [fen for fen in out.read_text().splitlines() if "P" in fen.split()[0] and "p" in fen.split()[0]]
    positions = evaluate.PositionSet(chess, fens)
    signs = [1 if fen.split()[1] == "w" else -1 for fen in fens]
    full = positions.evaluate()
    all_terms, piece_terms = positions.skipped_terms()
    weights = evaluate.get_weights(chess)
    evaluate.set_weights(chess, {name: 0 for name in PIECE_TERM_WEIGHTS + tuple(evaluate.type_weight_names(chess))})
    partial = positions.evaluate()
    evaluate.set_weights(chess, {name: 0 for name in evaluate.WEIGHT_NAMES
                                 if name not in evaluate.TABLE_DEFAULT_WEIGHTS + evaluate.UNFITTED_WEIGHTS})
    incremental = positions.evaluate()
    evaluate.set_weights(chess, weights)
    assert len(fens) > 50 and len(all_terms) == len(piece_terms) == len(fens)
    assert all_terms == [sign * (f - i) for sign, f, i in zip(signs, full, incremental)]
    assert piece_terms == [sign * (f - p) for sign, f, p in zip(signs, full, partial)]
    assert any(piece_terms) and any(a != p for a, p in zip(all_terms, piece_terms))


def test_margins_cover_the_percentile_and_are_written_into_the_weights_file(chess, tmp_path):
    """`tune margins` writes margins covering the percentile of the skipped terms into
    the weights file, rounded up, keeping its other weights and header; a second run
    replaces its header line."""
    out = tmp_path / "pos.fen"
    with out.open("w") as f:
        tune.self_play_positions(chess, tune.read_openings(str(OPENINGS)), 5, 300, 13, f)
    positions = evaluate.PositionSet(chess, out.read_text().splitlines())
    all_terms, piece_terms = positions.skipped_terms()
    everything = tune.measured_margins(chess, positions, 100.0)
    assert everything["lazy_margin"] >= max(map(abs, all_terms)) > everything["lazy_margin"] - tune.MARGIN_ROUNDING
    assert everything["piece_terms_margin"] >= max(map(abs, piece_terms))
    most = tune.measured_margins(chess, positions, 90.0)
    assert sum(abs(t) > most["lazy_margin"] for t in all_terms) <= len(all_terms) // 10
    assert most["lazy_margin"] <= everything["lazy_margin"]
    weights_file = tmp_path / "normal.txt"
    weights_file.write_text("# fitted by hand\nmobility 5\n")
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "fairymax", "tune", "margins", str(out),
                               "--percentile", "100", "--out", str(weights_file)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert tune.read_weights(weights_file) == {"mobility": 5, **everything}
    header = [line for line in weights_file.read_text().splitlines() if line.startswith("#")]
    assert header[0] == "# fitted by hand" and len(header) == 2 and "tune margins pos.fen" in header[1]


def test_space_counts_safe_centre_squares_behind_the_pawns(chess):
    """space: White (four pieces: a multiplier of 1/169) has c2-f4 but e4, its own pawn,
    and twice e3 and e2, behind it: 13; with a black pawn on d5, c4 is not safe: 12.
    Black's two pieces make its multiplier 0.  From Black's side the sign turns."""
    fens = ["4k3/8/8/8/4P3/8/8/1N2K1N1 w - - 0 1", "4k3/8/8/3p4/4P3/8/8/1N2K1N1 w - - 0 1",
            "4k3/8/8/8/4P3/8/8/1N2K1N1 b - - 0 1"]
    assert term_change(chess, fens, "space", 169) == [13, 12, -13]
