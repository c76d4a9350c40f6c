"""`python -m fairymax bench`: a fixed search over fixed positions; the node count is a signature.

Every position is searched to a fixed depth with the hash table, killers and history
cleared first and nothing random, so the total node count ("Nodes searched: N")
changes only when the search or evaluation changes.  Functional commits quote it as
"Bench: N"; tests/test_bench.py checks it.  Nodes/second is for information only.
"""
from __future__ import annotations

import argparse
import sys
import time

DEFAULT_DEPTH = 7

# (variant, FEN or None for the start position)
POSITIONS: list[tuple[str, str | None]] = [
    ("normal", None),
    ("normal", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("normal", "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"),
    ("normal", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("normal", "6k1/5ppp/8/8/8/8/1r3PPP/3R2K1 w - - 0 1"),
    ("capablanca", None),
    ("shatranj", None),
    ("makruk", None),
    ("courier", None),
    ("knightmate", None),
    ("los-alamos", None),
]


def search_to_depth(searcher, board, depth: int):
    """Search `board` to `depth`; return (seconds, nodes, last completed SearchInfo or None)."""
    start = time.perf_counter()
    last = None
    for info in searcher.iterate(board, max_depth=depth):
        if info.complete:
            last = info
    return time.perf_counter() - start, searcher.nodes, last


def run(depth: int = DEFAULT_DEPTH, variant: str | None = None, hash_mb: int = 16,
        out=None) -> tuple[int, float]:
    """Search every bench position (of `variant` only, if given); return (nodes, seconds).

    One line per position goes to `out` (default sys.stdout).
    """
    out = out or sys.stdout
    from fairymax.board import Board
    from fairymax.evaluate import init_psq
    from fairymax.search import Searcher

    searcher = Searcher(hash_mb)
    positions = [(v, f) for v, f in POSITIONS if variant is None or v == variant]
    if not positions:
        positions = [(variant, None)]
    total_nodes = 0
    total_time = 0.0
    for name, fen in positions:
        board = Board.from_name(name)
        if fen:
            board.set_fen(fen)
        # the variant's weights are read before the clock starts, as the session
        # reads them when it sets a variant up: the first search of a variant
        # would otherwise count the reading of its weights file as search time
        init_psq(board.variant)
        searcher.clear()
        elapsed, nodes, last = search_to_depth(searcher, board, depth)
        total_nodes += nodes
        total_time += elapsed
        best = board.move_text(last.pv[0]) if last and last.pv else "-"
        print(f"{name:12s} {board.fen():70s} depth {depth} nodes {nodes:9d} "
              f"score {last.score if last else 0:6d} best {best}", file=out)
    return total_nodes, total_time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fairymax bench", description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="plies per position")
    parser.add_argument("--variant", help="only this variant's positions (start position if none)")
    parser.add_argument("--hash", type=int, default=16, help="hash table size in MB")
    args = parser.parse_args(argv)
    nodes, seconds = run(args.depth, args.variant, args.hash)
    print("===========================", file=sys.stderr)
    print(f"Total time (ms): {int(seconds * 1000)}", file=sys.stderr)
    print(f"Nodes searched: {nodes}", file=sys.stderr)
    print(f"Nodes/second: {int(nodes / max(seconds, 1e-9))}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
