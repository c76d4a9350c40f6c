"""scripts/tree_size.py: nodes to complete each depth, ours against Fairy-Stockfish's."""
import subprocess
import sys

from enginepipe import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import tree_size  # noqa: E402

SCRIPT = ROOT / "scripts" / "tree_size.py"
# a stand-in for Fairy-Stockfish: depth d takes 100 * 2^d nodes, and a bound line
# before each exact one (which must not count) reports far more
FAKE_ENGINE = '''
import sys
for line in sys.stdin:
    words = line.split()
    if words == ["uci"]:
        print("uciok", flush=True)
    elif words == ["isready"]:
        print("readyok", flush=True)
    elif words[:2] == ["go", "depth"]:
        for d in range(1, int(words[2]) + 1):
            print(f"info depth {d} seldepth {d} score cp 0 lowerbound nodes 999999 pv a2a3")
            print(f"info depth {d} seldepth {d} score cp 0 nodes {100 * 2 ** d} nps 1 pv a2a3")
        print("bestmove a2a3", flush=True)
    elif words == ["quit"]:
        break
'''
FENS = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"]


def fake_engine(tmp_path):
    engine = tmp_path / "engine"
    engine.write_text(f"#!{sys.executable}\n{FAKE_ENGINE}")
    engine.chmod(0o755)
    return str(engine)


def test_the_engines_nodes_are_summed_by_depth_without_bound_lines(tmp_path):
    totals = tree_size.fairy_stockfish_nodes(fake_engine(tmp_path), "normal", FENS, 3)
    assert dict(totals) == {1: 400, 2: 800, 3: 1600}


def test_our_nodes_grow_with_the_depth():
    totals = tree_size.our_nodes("normal", FENS, 3)
    assert sorted(totals) == [1, 2, 3]
    assert totals[1] < totals[2] < totals[3]


def test_the_table_and_bad_input(tmp_path):
    fens = tmp_path / "fens.txt"
    fens.write_text("\n".join(FENS) + "\n")
    run = subprocess.run([sys.executable, str(SCRIPT), "--fens", str(fens), "--depth", "2",
                          "--engine", fake_engine(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "2 positions, normal" in run.stdout
    assert run.stdout.splitlines()[-1].split()[-1] == "2.00"     # the engine's growth, 800/400
    for args in (["--fens", str(tmp_path / "missing.txt")],
                 ["--fens", str(fens), "--variant", "no-such-variant"],
                 ["--fens", str(fens), "--engine", str(tmp_path / "no-engine")]):
        run = subprocess.run([sys.executable, str(SCRIPT), *args, "--depth", "2"],
                             capture_output=True, text=True)
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
