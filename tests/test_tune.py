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
OPENINGS = Path(__file__).resolve().parent.parent / "scripts" / "openings" / "chess_balanced.txt"


@pytest.fixture
def chess():
    variant = Variant(loader.load_default()["normal"])
    saved = evaluate.get_weights(variant)
    yield variant
    evaluate.set_weights(variant, saved)


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
    positions = evaluate.PositionSet(chess, ["4k3/pp6/8/8/8/8/PPP5/4K3 w - - 0 1"])
    before = positions.evaluate()[0]
    evaluate.set_weights(chess, {"material_p": evaluate.get_weights(chess)["material_p"] + 50})
    assert positions.evaluate()[0] == before + 50
    with pytest.raises(ValueError):
        evaluate.set_weights(chess, {"no_such_weight": 1})


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


@pytest.mark.parametrize("args", [
    ["fit", "/nonexistent.lab"],
    ["fit", "/dev/null", "--variant", "nosuchvariant"],
    ["label", "/nonexistent.fen", "/tmp/x.lab", "--engine", "/nonexistent/engine"],
])
def test_bad_input_one_line_and_status_2(args):
    done = subprocess.run([sys.executable, "-m", "fairymax", "tune", *args],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "fairymax tune: " in done.stderr
