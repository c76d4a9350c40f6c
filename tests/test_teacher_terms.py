"""scripts/teacher_terms.py: a teacher's evaluation terms against our evaluation's errors."""
import subprocess
import sys

import pytest

from enginepipe import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import teacher_terms  # noqa: E402

SCRIPT = ROOT / "scripts" / "teacher_terms.py"
# a stand-in for Fairy-Stockfish's `eval`: the Threats total (White's view) is the
# position's fullmove number in pawns, every other term 0
FAKE_TEACHER = '''
import sys
for line in sys.stdin:
    if line.strip() == "uci":
        print("uciok", flush=True)
    elif line.strip() == "isready":
        print("readyok", flush=True)
    elif line.startswith("position fen "):
        move_number = int(line.split()[-1])
    elif line.strip() == "eval":
        print("     Term    |    White    |    Black    |    Total   ")
        print("             |   MG    EG  |   MG    EG  |   MG    EG ")
        print("    Material |  ----  ---- |  ----  ---- |  0.00  0.00")
        print(f"     Threats |  0.00  0.00 |  0.00  0.00 |  {move_number:.2f}  0.00")
        print("       Total |  ----  ---- |  ----  ---- |  0.00  0.00")
        print("Total evaluation: 0.00 (white side)", flush=True)
    elif line.strip() == "quit":
        break
'''
FENS = [f"4k3/8/8/8/8/8/8/R3K3 w - - 0 {n}" for n in range(1, 121)]


def test_teacher_terms_reads_the_eval_table(tmp_path):
    teacher = tmp_path / "teacher"
    teacher.write_text(f"#!{sys.executable}\n{FAKE_TEACHER}")
    teacher.chmod(0o755)
    rows = teacher_terms.teacher_terms(str(teacher), "normal", FENS[:3])
    assert rows == [{"Material": (0.0, 0.0), "Threats": (float(n), 0.0)} for n in (1, 2, 3)]


def test_a_term_that_makes_the_labels_correlates_with_the_residual(tmp_path):
    """Labels of our evaluation plus a Threats-like term: that term's middle-game part
    correlates fully with the residual, and no other part is printed (no spread)."""
    from fairymax import evaluate, loader
    from fairymax.variant import Variant
    teacher = tmp_path / "teacher"
    teacher.write_text(f"#!{sys.executable}\n{FAKE_TEACHER}")
    teacher.chmod(0o755)
    ours = evaluate.PositionSet(Variant(loader.load_default()["normal"]), FENS).evaluate()
    labels = tmp_path / "pos.lab"
    labels.write_text("".join(f"{fen};{own + 100 * int(fen.split()[-1])}\n" for fen, own in zip(FENS, ours)))
    done = subprocess.run([sys.executable, str(SCRIPT), "--variant", "normal", str(labels),
                           "--engine", str(teacher)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert rows == [["Threats", "MG", "+1.000", "34.64"]]


@pytest.mark.parametrize("args, says", [
    (["--variant", "normal", "/nonexistent.lab"], "cannot read"),
    (["--variant", "no-such-variant", "LABELS"], "unknown variant"),
    (["--variant", "normal", "LABELS", "--engine", "/no/engine"], "cannot start /no/engine"),
])
def test_bad_input_exits_2_with_one_line(args, says, tmp_path):
    labels = tmp_path / "pos.lab"
    labels.write_text("".join(f"{fen};0\n" for fen in FENS))
    done = subprocess.run([sys.executable, str(SCRIPT)] + [str(labels) if a == "LABELS" else a for a in args],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and says in done.stderr
