#!/usr/bin/env python3
"""How many nodes our search and Fairy-Stockfish's take to complete each depth.

Both search every position of a FEN file (one a line) from an empty hash table to
--depth; the nodes they report at the end of each completed iteration are summed over
the positions, and the ratio of successive depths is the effective branching factor.
Nodes are counted alike (one per position searched, quiescence included), so the
columns compare how selective the two searches are, not how fast they run.

    python scripts/tree_size.py --variant capablanca --fens FILE --depth 12
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fairymax.board import Board  # noqa: E402
from fairymax.evaluate import init_psq  # noqa: E402
from fairymax.search import Searcher  # noqa: E402
from fairymax.tune import UciTeacher, UsageError  # noqa: E402
import match  # noqa: E402

FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"
HASH_MB = 64
INFO = re.compile(r"\binfo depth (\d+) .*\bnodes (\d+)")


def our_nodes(variant: str, fens: list[str], depth: int) -> dict[int, int]:
    """Nodes at the end of each completed depth, summed over the positions."""
    totals: dict[int, int] = defaultdict(int)
    searcher = Searcher(HASH_MB)
    for fen in fens:
        board = Board.from_name(variant)
        board.set_fen(fen)
        init_psq(board.variant)
        searcher.clear()
        for info in searcher.iterate(board, max_depth=depth):
            if info.complete:
                totals[info.depth] += searcher.nodes
    return totals


def fairy_stockfish_nodes(engine: str, variant: str, fens: list[str], depth: int) -> dict[int, int]:
    """The same from Fairy-Stockfish (its last exact-score line of each depth)."""
    totals: dict[int, int] = defaultdict(int)
    teacher = UciTeacher(engine, match.UCI_VARIANT_NAMES.get(variant, variant))
    teacher.send(f"setoption name Hash value {HASH_MB}")
    for fen in fens:
        teacher.send("ucinewgame")
        teacher.send("isready")
        teacher.wait("readyok")
        teacher.send(f"position fen {fen}")
        teacher.send(f"go depth {depth}")
        per_depth = {}
        for line in teacher.wait("bestmove"):
            found = INFO.search(line)
            if found and "bound" not in line:
                per_depth[int(found.group(1))] = int(found.group(2))
        for d, nodes in per_depth.items():
            totals[d] += nodes
    teacher.close()
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="normal")
    parser.add_argument("--fens", type=Path, required=True, help="positions, one FEN a line")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--engine", default=FAIRY_STOCKFISH, help="Fairy-Stockfish's path")
    args = parser.parse_args(argv)
    try:
        fens = [line.strip() for line in args.fens.read_text().splitlines() if line.strip()]
    except OSError as error:
        print(f"tree_size: cannot read {args.fens}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        ours = our_nodes(args.variant, fens, args.depth)
        theirs = fairy_stockfish_nodes(args.engine, args.variant, fens, args.depth)
    except (ValueError, KeyError, UsageError) as error:
        print(f"tree_size: {error}", file=sys.stderr)
        return 2
    print(f"{len(fens)} positions, {args.variant}: nodes to complete each depth (sum), "
          "and each depth's nodes over the depth before")
    print("depth       ours  Fairy-SF  ratio  ours/prev  FSF/prev")
    for d in range(1, args.depth + 1):
        growth = (f"{ours[d] / ours[d - 1]:9.2f} {theirs[d] / theirs[d - 1]:9.2f}"
                  if ours.get(d - 1) and theirs.get(d - 1) else "")
        print(f"{d:5d} {ours[d]:10d} {theirs[d]:9d} {ours[d] / max(theirs[d], 1):5.1f}x {growth}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
