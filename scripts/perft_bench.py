#!/usr/bin/env python3
"""Perft speed benchmark: leaf nodes per second on Kiwipete (every move made and
unmade, no bulk counting), median of several runs, with python-chess's pure-Python
perft measured in the same run as a yardstick.

    python scripts/perft_bench.py [--runs 3] [--no-python-chess]
"""
from __future__ import annotations

import argparse
import statistics
import time

from fairymax.board import Board

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def ours(depth: int) -> tuple[int, float]:
    board = Board.from_name("normal")
    board.set_fen(KIWIPETE)
    start = time.perf_counter()
    nodes = board.perft(depth)
    return nodes, time.perf_counter() - start


def python_chess(depth: int) -> tuple[int, float]:
    import chess

    def perft(board: chess.Board, d: int) -> int:
        if d == 0:
            return 1
        total = 0
        for move in board.legal_moves:
            board.push(move)
            total += perft(board, d - 1)
            board.pop()
        return total

    board = chess.Board(KIWIPETE)
    start = time.perf_counter()
    nodes = perft(board, depth)
    return nodes, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-python-chess", action="store_true")
    args = parser.parse_args()
    for depth in (4, 5):
        rates = []
        for _ in range(args.runs):
            nodes, seconds = ours(depth)
            rates.append(nodes / seconds)
        print(f"fairymax     Kiwipete perft {depth}: {nodes:>11,} nodes, "
              f"median {statistics.median(rates) / 1e6:6.2f} M nodes/s over {args.runs} runs")
    if not args.no_python_chess:
        nodes, seconds = python_chess(3)
        print(f"python-chess Kiwipete perft 3: {nodes:>11,} nodes, {nodes / seconds / 1e6:6.2f} M nodes/s "
              f"(fairymax is {statistics.median(rates) / (nodes / seconds):.0f}x faster)")


if __name__ == "__main__":
    main()
