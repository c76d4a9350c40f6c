"""scripts/think_stats.py: each engine's depth, time and nodes a move from a match log,
and match.py's --post that puts a CECP engine's thinking into that log."""
import subprocess
import sys

from enginepipe import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import think_stats  # noqa: E402

SCRIPT = ROOT / "scripts" / "think_stats.py"

# a CECP engine (engine1) and a UCI one (engine2), two moves each, as match.py logs them
LOG = """\
10.000 engine1< usermove e2e4
10.001 engine1> 1 20 0 30 e7e5
10.050 engine1> 9 15 12 20000 e7e5 g1f3
10.120 engine1> 10 18 20 40000 e7e5 g1f3 b8c6
10.121 engine1> move e7e5
10.122 engine2< go wtime 1000 btime 1000
10.150 engine2> info depth 14 seldepth 20 score cp 30 nodes 30000 nps 600000 time 50 pv g1f3
10.190 engine2> info depth 15 seldepth 22 score cp 60 upperbound nodes 70000 nps 700000 time 100 pv g1f3
10.191 engine2> bestmove g1f3
10.200 engine1< usermove g1f3
10.201 engine1> move b8c6
10.300 engine1> 8 -5 10 10000 d7d6
10.301 engine1> move d7d6
10.400 engine2> info depth 16 score cp 5 nodes 60000 nps 600000 time 100 pv f1b5
10.401 engine2> bestmove f1b5
10.402 engine1! stderr: something
"""


def test_the_last_thinking_line_before_each_move_counts_and_moves_without_one_do_not():
    engines = think_stats.read_log(LOG.splitlines())
    ours, theirs = engines["engine1"], engines["engine2"]
    # the instant reply b8c6 had no thinking line of its own: left out
    assert (ours.depths, ours.times_ms, ours.nodes) == ([10, 8], [200, 100], [40000, 10000])
    # the upperbound line of an unfinished iteration does not count
    assert (theirs.depths, theirs.times_ms, theirs.nodes) == ([14, 16], [50, 100], [30000, 60000])
    assert ours.summary() == "2 moves, depth 9.0, 150 ms a move, 167 k nodes/s"


def test_a_cecp_thinking_line_is_read_with_fairy_max_s_padding_and_nothing_else_is():
    assert think_stats.cecp_thinking(" 3     15        2        756 d2d4 d7d5 b1c3") == (3, 20, 756)
    assert think_stats.cecp_thinking("10 -41 0 3447 12 1723500 0\tg3g7") == (10, 0, 3447)
    for other in ("move e2e4", "pong 1", "1 2 3", "# 16+16 pieces"):
        assert think_stats.cecp_thinking(other) is None


def test_the_script_reports_each_engine_and_bad_input_is_one_line_and_status_2(tmp_path):
    log = tmp_path / "traffic.log"
    log.write_text(LOG)
    done = subprocess.run([sys.executable, str(SCRIPT), str(log)], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "engine1: 2 moves, depth 9.0, 150 ms a move, 167 k nodes/s",
        "engine2: 2 moves, depth 15.0, 75 ms a move, 600 k nodes/s"]
    silent = tmp_path / "nopost.log"
    silent.write_text("10.121 engine1> move e7e5\n")
    for path in (silent, tmp_path / "missing.log"):
        done = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True)
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("think_stats: ")


def test_post_puts_our_thinking_lines_into_the_match_log(tmp_path):
    log = tmp_path / "traffic.log"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "match.py"),
                           "--engine1", f"{sys.executable} {ROOT / 'xboard.py'}",
                           "--engine2", f"{sys.executable} {ROOT / 'xboard.py'}",
                           "--games", "1", "--st", "0.05", "--opening-plies", "2", "--max-plies", "10", "--quiet",
                           "--log", str(log), "--post", "--pgn", str(tmp_path / "games.pgn")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert " engine1< post" in log.read_text()
    engines = think_stats.read_log(log.read_text().splitlines())
    assert len(engines["engine1"].depths) >= 2 and len(engines["engine2"].depths) >= 2
    assert min(engines["engine1"].depths) >= 1
