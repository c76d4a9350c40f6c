"""scripts/paired.py: a candidate's match against a control's, opening pair by opening pair."""
import subprocess
import sys

from enginepipe import ROOT

SCRIPT = ROOT / "scripts" / "paired.py"
US, THEM = "fairymax 0.1.0", "Fairy-Stockfish 11.1"


def game(round_number, we_are_white, result, book="e2e4 e7e5"):
    white, black = (US, THEM) if we_are_white else (THEM, US)
    return (f'[Event "t"]\n[Round "{round_number}"]\n[White "{white}"]\n[Black "{black}"]\n'
            f'[Result "{result}"]\n\n1. {book} {{book}} 2. g1f3 {result}\n\n')


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def test_pairs_are_compared_where_both_runs_finished_them(tmp_path):
    candidate, control = tmp_path / "cand.pgn", tmp_path / "ctl.pgn"
    # opening pair 1: candidate 2 points (wins as White and as Black), control 1;
    # pair 2: 1 point each; pair 3 only half played by the candidate: left out
    candidate.write_text(game(1, True, "1-0") + game(2, False, "0-1")
                         + game(3, True, "1-0", "d2d4 d7d5") + game(4, False, "1-0", "d2d4 d7d5")
                         + game(5, True, "1-0", "c2c4 c7c5"))
    control.write_text(game(1, True, "1/2-1/2") + game(2, False, "1/2-1/2")
                       + game(3, True, "0-1", "d2d4 d7d5") + game(4, False, "0-1", "d2d4 d7d5")
                       + game(5, True, "0-1", "c2c4 c7c5") + game(6, False, "0-1", "c2c4 c7c5"))
    done = run("--candidate", candidate, "--control", control)
    assert done.returncode == 0, done.stderr
    # differences +1 and 0 pair points: mean +0.5 (+25 percentage points), standard
    # deviation 0.707, so a standard error of 0.5 pair points (25 percentage points);
    # the control's points (1, 1) do not vary, so they have no correlation
    expected = ("2 pairs: candidate 75.0%, control 50.0%, paired +25.0 points, SE 25.0, "
                "correlation undefined")
    assert done.stdout.splitlines() == [f"cand.pgn against ctl.pgn: {expected}",
                                        f"pooled: {expected}"]


def test_runs_that_cannot_be_paired_get_one_line_and_status_2(tmp_path):
    candidate, control = tmp_path / "cand.pgn", tmp_path / "ctl.pgn"
    candidate.write_text(game(1, True, "1-0") + game(2, False, "0-1"))
    control.write_text(game(1, True, "1-0", "d2d4 d7d5") + game(2, False, "0-1", "d2d4 d7d5"))
    for args, message in (
            (("--candidate", candidate, "--control", control), "opening pair 1 differs"),
            (("--candidate", candidate, "--control", tmp_path / "missing.pgn"), "no such file"),
            (("--candidate", candidate, candidate, "--control", control), "2 candidate PGNs but 1"),
            (("--candidate", candidate, "--control", candidate, "--player", "nobody"),
             "not exactly one player")):
        done = run(*args)
        assert done.returncode == 2, args
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and message in done.stderr, done.stderr


def test_the_runs_points_on_an_opening_pair_are_correlated(tmp_path):
    candidate, control = tmp_path / "cand.pgn", tmp_path / "ctl.pgn"
    # pair points: candidate 2, 1, 0; control 1, 1, 0. Deviations from the means (1 and
    # 2/3): (1, 0, -1) and (1/3, 1/3, -2/3), so r = 1 / sqrt(2 * 2/3) = 0.866; the
    # differences 1, 0, 0 give +1/3 pair points, SE 1/3 (16.7 percentage points each)
    candidate.write_text(game(1, True, "1-0") + game(2, False, "0-1")
                         + game(3, True, "1-0", "d2d4 d7d5") + game(4, False, "1-0", "d2d4 d7d5")
                         + game(5, True, "0-1", "c2c4 c7c5") + game(6, False, "1-0", "c2c4 c7c5"))
    control.write_text(game(1, True, "1-0") + game(2, False, "1-0")
                       + game(3, True, "1/2-1/2", "d2d4 d7d5")
                       + game(4, False, "1/2-1/2", "d2d4 d7d5")
                       + game(5, True, "0-1", "c2c4 c7c5") + game(6, False, "1-0", "c2c4 c7c5"))
    done = run("--candidate", candidate, "--control", control)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == ("pooled: 3 pairs: candidate 50.0%, control 33.3%, "
                                            "paired +16.7 points, SE 16.7, correlation +0.866")
