#!/usr/bin/env python3
"""How much of a fixed time per move (CECP `st`) engines use.

Each engine plays one move from each of the first N chess openings of a file (XBoard
coordinate moves from the start position, one opening a line), told `st T` by
python-chess; the wall time from the request to the move is measured, round trip
included.  An engine told it has T seconds should move near T, never after it.

    python scripts/st_usage.py --time 0.3 "python /old/xboard.py" "python xboard.py"
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import chess
import chess.engine

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OPENINGS = ROOT / "scripts" / "openings" / "chess_balanced.txt"


def openings(path: Path, count: int) -> list[chess.Board]:
    boards = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        board = chess.Board()
        for move in line.split():
            board.push_uci(move)
        boards.append(board)
        if len(boards) == count:
            break
    return boards


def times_used(command: str, boards: list[chess.Board], move_time: float) -> list[float]:
    engine = chess.engine.SimpleEngine.popen_xboard(command.split())
    try:
        used = []
        for board in boards:
            start = time.monotonic()
            engine.play(board, chess.engine.Limit(time=move_time))
            used.append(time.monotonic() - start)
        return used
    finally:
        engine.quit()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engines", nargs="+", help="engine commands (CECP)")
    parser.add_argument("--time", type=float, default=0.3, help="seconds per move (st)")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS)
    args = parser.parse_args(argv)
    try:
        boards = openings(args.openings, args.positions)
    except (OSError, ValueError) as exc:
        print(f"st_usage: {args.openings}: {exc}", file=sys.stderr)
        return 2
    for command in args.engines:
        used = times_used(command, boards, args.time)
        mean = statistics.mean(used)
        print(f"{command}: st {args.time}: mean {mean:.3f} s ({mean / args.time:.0%} of it), "
              f"min {min(used):.3f}, max {max(used):.3f}, over {len(used)} moves", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
