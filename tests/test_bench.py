"""The bench node count is the search's signature: it changes only with the search/evaluation."""
import io

from fairymax import bench

# Update together with a "Bench: N" line in the commit message when search or eval changes.
BENCH_SIGNATURE = 119127


def test_bench_signature_and_reproducible():
    out = io.StringIO()
    nodes, _ = bench.run(out=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(bench.POSITIONS)
    assert nodes == BENCH_SIGNATURE
    # a second identical run in the same process gives the same count (reprosearch)
    again, _ = bench.run(out=io.StringIO())
    assert again == nodes


def test_bench_main_prints_summary(capsys):
    assert bench.main(["--depth", "3", "--variant", "shatranj"]) == 0
    captured = capsys.readouterr()
    assert "shatranj" in captured.out
    summary = captured.err.strip().splitlines()
    assert summary[-2].startswith("Nodes searched: ")
    assert summary[-1].startswith("Nodes/second: ")
    assert int(summary[-2].split(":")[1]) > 0
