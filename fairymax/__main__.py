"""Command line: `python -m fairymax [xboard] | perft ... | bench ... | tune ...`."""
from __future__ import annotations

import argparse
import sys
import time


def perft_main(argv: list[str]) -> int:
    """`perft DEPTH [--variant NAME] [--fen FEN] [--ini FILE] [--divide]`."""
    parser = argparse.ArgumentParser(prog="fairymax perft", description="count leaf nodes of the legal-move tree")
    parser.add_argument("depth", help="search depth in plies (>= 1)")
    parser.add_argument("--variant", default="normal", help="variant name in the ini file (default: normal)")
    parser.add_argument("--fen", help="start from this FEN instead of the variant's start position")
    parser.add_argument("--ini", help="variant file (default: the package's pieces.ini)")
    parser.add_argument("--divide", action="store_true", help="print the count below each root move")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) and 2
    from fairymax import loader
    from fairymax.board import Board
    from fairymax.variant import Variant
    try:
        depth = int(args.depth)
        if not 1 <= depth <= 20:
            raise ValueError
    except ValueError:
        print(f"error: bad depth '{args.depth}' (want an integer 1..20)", file=sys.stderr)
        return 2
    try:
        specs = loader.load_file(args.ini) if args.ini else loader.load_default()
    except (OSError, loader.IniError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.variant not in specs:
        print(f"error: unknown variant '{args.variant}'", file=sys.stderr)
        return 2
    try:
        board = Board(Variant(specs[args.variant]))
        if args.fen:
            board.set_fen(args.fen)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    if args.divide:
        total = 0
        for text, count in board.divide(depth):
            print(f"{text} {count}")
            total += count
    else:
        total = board.perft(depth)
    elapsed = time.perf_counter() - start
    print(f"Nodes searched: {total}")
    print(f"Nodes/second: {int(total / elapsed) if elapsed > 0 else total}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`fairymax [xboard] [--ini FILE] [--hash MB]` serves a GUI (CECP, or UCI if the
    first line is `uci`); `fairymax perft|bench|tune ...` are the tools."""
    argv = sys.argv[1:] if argv is None else argv
    commands = ("perft", "bench", "tune", "xboard")
    if not argv or argv[0].startswith("-"):
        argv = ["xboard", *argv]
    if argv[0] not in commands:
        print(f"usage: python -m fairymax [{{{','.join(commands)}}}] ...", file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "perft":
        return perft_main(rest)
    if command == "bench":
        from fairymax import bench
        return bench.main(rest)
    if command == "tune":
        from fairymax import tune
        return tune.main(rest)
    from fairymax import frontend
    return frontend.main(rest)


if __name__ == "__main__":
    sys.exit(main())
