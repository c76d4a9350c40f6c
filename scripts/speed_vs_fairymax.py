#!/usr/bin/env python3
"""Side-by-side speed of fairymax's search and Fairy-Max (/usr/games/fairymax).

    python scripts/speed_vs_fairymax.py [--depth 10] [--runs 3] [--variant normal] [--fen FEN]

For each engine the same fixed-depth search from the same position runs `--runs`
times (a fresh process / a cleared hash each time); the script prints every run and
the medians of the wall time, nodes and nodes/second, then the ratios.

Fairy-Max is driven as in docs/fairymax.md section 5: `new`, (`variant V`), `force`,
`post`, `level 0 1000 0`, `sd N`, `go`; its time is from `go` to `move`.  Its `sd N`
searches N full-width plies plus quiescence, like our depth N.  Stock Fairy-Max does
not print its final node count (post lines appear only when the best move changes),
so its nodes/s uses the end-of-iteration counts measured with an instrumented build
(FAIRYMAX_NODES below, fairymax.md section 5, start position of chess; they count a
node once per internal-iterative-deepening pass, about 1.4x its search() calls).
Our nodes are search() calls.  Time to depth is the like-for-like measure.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FAIRYMAX = "/usr/games/fairymax"
# N-end of fairymax.md section 5 (chess start position), by depth
FAIRYMAX_NODES = {6: 226_498, 7: 703_076, 8: 3_057_256, 9: 9_214_811, 10: 32_330_600, 11: 77_226_378}


def run_fairymax(depth: int, variant: str, fen: str | None) -> tuple[float, str]:
    """Seconds from `go` to `move` for Fairy-Max at `sd depth`, and its last post line."""
    proc = subprocess.Popen([FAIRYMAX], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(line: str) -> None:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    send("xboard")
    send("protover 2")
    for line in proc.stdout:
        if "done=1" in line:
            break
    send("new")
    if variant != "normal":
        send(f"variant {variant}")
    send("force")
    if fen:
        raise SystemExit("Fairy-Max has no setboard; use the start position")
    send("post")
    send("level 0 1000 0")
    send(f"sd {depth}")
    start = time.perf_counter()
    send("go")
    last_post = ""
    for line in proc.stdout:
        if line.startswith("move "):
            break
        if line.strip()[:1].isdigit():
            last_post = " ".join(line.split())
    elapsed = time.perf_counter() - start
    send("quit")
    proc.wait(timeout=10)
    return elapsed, last_post


def run_ours(depth: int, variant: str, fen: str | None) -> tuple[float, int, str]:
    """Seconds and nodes of our search to `depth` with a fresh hash table."""
    from fairymax.bench import search_to_depth
    from fairymax.board import Board
    from fairymax.search import Searcher

    board = Board.from_name(variant)
    if fen:
        board.set_fen(fen)
    elapsed, nodes, last = search_to_depth(Searcher(64), board, depth)
    return elapsed, nodes, f"{last.depth} {last.score} {board.move_text(last.pv[0])}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--variant", default="normal")
    parser.add_argument("--fen")
    parser.add_argument("--skip-fairymax", action="store_true")
    args = parser.parse_args(argv)

    ours = []
    for i in range(args.runs):
        t, nodes, summary = run_ours(args.depth, args.variant, args.fen)
        ours.append((t, nodes))
        print(f"fairymax   run {i + 1}: {t * 1000:8.0f} ms  {nodes:10d} nodes  {nodes / t:10.0f} n/s  ({summary})")
    t_ours = statistics.median(t for t, _ in ours)
    nps_ours = statistics.median(n / t for t, n in ours)
    print(f"fairymax   median: {t_ours * 1000:.0f} ms, {nps_ours:.0f} nodes/s")
    if args.skip_fairymax:
        return 0

    theirs = []
    for i in range(args.runs):
        t, post = run_fairymax(args.depth, args.variant, args.fen)
        theirs.append(t)
        print(f"Fairy-Max  run {i + 1}: {t * 1000:8.0f} ms  (last post: {post})")
    t_fm = statistics.median(theirs)
    print(f"Fairy-Max  median: {t_fm * 1000:.0f} ms")
    print(f"time to depth {args.depth}: Fairy-Max / fairymax = {t_fm / t_ours:.2f}x")
    if args.variant == "normal" and not args.fen and args.depth in FAIRYMAX_NODES:
        nps_fm = FAIRYMAX_NODES[args.depth] / t_fm
        print(f"Fairy-Max nodes/s (instrumented N-end / median time): {nps_fm:.0f}; "
              f"fairymax / Fairy-Max = {nps_ours / nps_fm:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
