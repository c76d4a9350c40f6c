#!/usr/bin/env python3
"""Speed of one build across variants: perft leaves per second (every move made and
unmade) in several fmax.ini variants, and the bench's nodes per second.  One line per
run; compare builds by running each in turn, interleaved, in the same session:

    for round in 1 2 3; do for tree in /tmp/old /path/to/new; do
        PYTHONPATH=$tree python scripts/variant_speed.py; done; done
"""
from __future__ import annotations

import contextlib
import io
import time

from fairymax import bench
from fairymax.board import Board

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# (variant, FEN or None for the start position, depth)
POSITIONS = [("normal", KIWIPETE, 4), ("capablanca", None, 4), ("shatranj", None, 5),
             ("seirawan", None, 4), ("spartan", None, 4), ("makruk", None, 5)]


def perft_speed(name: str, fen: str | None, depth: int) -> float:
    """Millions of perft leaves per second."""
    board = Board.from_name(name)
    if fen:
        board.set_fen(fen)
    start = time.perf_counter()
    leaves = board.perft(depth)
    return leaves / (time.perf_counter() - start) / 1e6


def bench_figures() -> tuple[int, float]:
    """(nodes, millions of nodes per second) of `fairymax bench`."""
    report = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(report):
        bench.main([])
    lines = dict(line.split(": ", 1) for line in report.getvalue().splitlines() if ": " in line)
    return int(lines["Nodes searched"]), int(lines["Nodes/second"]) / 1e6


def main() -> None:
    figures = [f"{name}:{perft_speed(name, fen, depth):.2f}" for name, fen, depth in POSITIONS]
    nodes, nps = bench_figures()
    print(" ".join(figures), f"bench_nps:{nps:.2f} bench_nodes:{nodes}")


if __name__ == "__main__":
    main()
