"""scripts/match.py: the referee-based match runner (short games vs Fairy-Max, resume, stats)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from enginepipe import ROOT, engine_command

sys.path.insert(0, str(ROOT / "scripts"))
import match  # noqa: E402

FAIRYMAX = "/usr/games/fairymax"


def test_summary_and_elo():
    assert match.elo(0.5) == pytest.approx(0)
    assert match.elo(0.75) == pytest.approx(190.8, abs=0.1)
    text = match.summary([1.0, 0.0, 0.5, 1.0])
    assert text.startswith("games 4: +2 -1 =1  score 62.5%")
    assert match.score_of("1-0", True) == 1 and match.score_of("1-0", False) == 0
    assert match.score_of("*", True) is None


def test_openings_are_legal_reproducible_and_varied():
    settings = match.Settings(variant="capablanca", opening_plies=6, seed=3)
    a, b = match.opening(settings, 0), match.opening(settings, 0)
    assert a == b and len(a) == 6
    assert match.opening(settings, 1) != a


@pytest.mark.skipif(not Path(FAIRYMAX).exists(), reason="needs /usr/games/fairymax")
def test_short_match_and_resume(tmp_path):
    pgn = tmp_path / "m.pgn"
    ours = " ".join(engine_command())
    common = [sys.executable, str(ROOT / "scripts" / "match.py"), "--engine1", ours,
              "--tc", "3+0.05", "--max-plies", "30", "--opening-plies", "4",
              "--pgn", str(pgn), "--quiet"]
    out = subprocess.run(common + ["--games", "2"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.search(r"games 2: \+\d+ -\d+ =\d+", out.stdout)
    text = pgn.read_text()
    assert len(re.findall(r"^\[Round ", text, re.M)) == 2
    assert not re.search(r"illegal|false|crash|died|time", " ".join(
        re.findall(r'^\[Termination "([^"]*)"\]', text, re.M)), re.I)
    out = subprocess.run(common + ["--games", "3", "--resume", "--variant", "normal"],
                         capture_output=True, text=True, timeout=300)
    assert re.search(r"games 3: ", out.stdout), out.stdout + out.stderr
    rounds = re.findall(r'^\[Round "(\d+)"\]', pgn.read_text(), re.M)
    assert sorted(rounds) == ["1", "2", "3"]
