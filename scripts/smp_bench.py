#!/usr/bin/env python3
"""Lazy SMP speed: time to a fixed depth and nodes per second, 1 thread against N.

    python scripts/smp_bench.py [--threads 2] [--depth 12] [--rounds 3] [--fens FILE --count N]

Each position is searched to the depth with 1 thread and with N, alternately, each time
with a fresh searcher; per thread count the median over the rounds of the summed time,
and the summed nodes / summed time.  Ratios are N threads over 1 thread, measured in the
same run.  Needs the machine's cores free: other load skews the multi-thread figures.
--fens takes N chess positions spread evenly over a file of FENs (one a line; lines
starting with '#' and anything after a ';' ignored) instead of the built-in ones: time
to depth varies much from one position to the next with several threads, so more
positions give a steadier ratio.
"""
from __future__ import annotations

import argparse
import statistics
import time

from fairymax.board import Board
from fairymax.search import Searcher

POSITIONS = [
    ("normal", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("normal", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("normal", "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"),
    ("normal", "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2QK2R w KQ - 0 9"),
    ("normal", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("capablanca", None),
]


def read_positions(path: str, count: int) -> list:
    """`count` chess positions spread evenly over the FEN file."""
    with open(path) as f:
        fens = [line.split(";")[0].strip() for line in f if line.strip() and not line.startswith("#")]
    return [("normal", fens[i * len(fens) // count]) for i in range(min(count, len(fens)))]


def run(positions: list, threads: int, depth: int) -> tuple[float, int]:
    """(seconds, nodes) summed over the positions."""
    seconds, nodes = 0.0, 0
    for variant, fen in positions:
        board = Board.from_name(variant)
        if fen:
            board.set_fen(fen)
        searcher = Searcher(64)
        searcher.threads = threads
        start = time.perf_counter()
        for info in searcher.iterate(board, max_depth=depth):
            pass
        seconds += time.perf_counter() - start
        nodes += info.nodes
    return seconds, nodes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fens", help="a file of chess FENs to take the positions from")
    parser.add_argument("--count", type=int, default=20, help="positions taken from --fens")
    args = parser.parse_args()
    positions = read_positions(args.fens, args.count) if args.fens else POSITIONS
    results: dict = {1: [], args.threads: []}
    for _ in range(args.rounds):
        for threads in results:
            results[threads].append(run(positions, threads, args.depth))
    summary = {}
    for threads, runs in results.items():
        secs = statistics.median(s for s, _ in runs)
        nps = sum(n for _, n in runs) / sum(s for s, _ in runs)
        summary[threads] = (secs, nps)
        print(f"{threads} thread(s): {secs:.2f} s to depth {args.depth} (median), "
              f"{nps / 1e6:.2f} M nodes/s")
    one, many = summary[1], summary[args.threads]
    print(f"{args.threads} threads / 1: time to depth {many[0] / one[0]:.2f}x, "
          f"nodes/s {many[1] / one[1]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
