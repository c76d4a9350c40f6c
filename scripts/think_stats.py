#!/usr/bin/env python3
"""What each engine of a match searched: its depth, time and nodes a move, from the
log that `scripts/match.py --log FILE --post` writes.

    python scripts/match.py ... --concurrency 1 --log traffic.log --post
    python scripts/think_stats.py traffic.log

For every move an engine played, the last thinking line it sent before the move
counts: a CECP engine's `post` line (depth, score, time in centiseconds, nodes) before
its `move`, a UCI engine's `info` line with depth, time and nodes (not a bound of an
unfinished iteration) before its `bestmove`.  A move with no thinking line before it
(a book move, an engine that does not post) is left out.  To compare two machines,
run the same engines on the same openings on both, one game at a time.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field

CECP_THINKING = re.compile(r"^(\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\b")
LOG_LINE = re.compile(r"^\S+ (engine[\w.]*)> (.*)$")     # "TIME LABEL> TEXT": engine output
CENTISECONDS_MS = 10


@dataclass
class Searched:
    """What one engine's searches reached, one entry a move."""
    depths: list = field(default_factory=list)
    times_ms: list = field(default_factory=list)
    nodes: list = field(default_factory=list)

    def add(self, depth: int, time_ms: int, nodes: int) -> None:
        self.depths.append(depth)
        self.times_ms.append(time_ms)
        self.nodes.append(nodes)

    def extend(self, other: "Searched") -> None:
        self.depths += other.depths
        self.times_ms += other.times_ms
        self.nodes += other.nodes

    def summary(self) -> str:
        moves = len(self.depths)
        total_ms = sum(self.times_ms)
        speed = f"{sum(self.nodes) / total_ms:.0f} k nodes/s" if total_ms else "no time counted"
        return (f"{moves} moves, depth {sum(self.depths) / moves:.1f}, "
                f"{total_ms / moves:.0f} ms a move, {speed}")


def cecp_thinking(text: str) -> tuple | None:
    """(depth, ms, nodes) of a CECP thinking line (`post`): depth, score, centiseconds,
    nodes, then the principal variation."""
    fields = CECP_THINKING.match(text.strip())
    if not fields:
        return None
    depth, _, centiseconds, nodes = map(int, fields.groups())
    return depth, centiseconds * CENTISECONDS_MS, nodes


def uci_thinking(words: list) -> tuple | None:
    """(depth, ms, nodes) of a UCI `info` line that has all three and no bound."""
    if words[:1] != ["info"] or "lowerbound" in words or "upperbound" in words:
        return None
    try:
        return tuple(int(words[words.index(key) + 1]) for key in ("depth", "time", "nodes"))
    except (ValueError, IndexError):
        return None


def read_log(lines) -> dict:
    """engine label -> Searched, from the lines of a match log."""
    engines: dict = {}
    last: dict = {}         # label -> the thinking of the move it is searching
    for line in lines:
        match = LOG_LINE.match(line.rstrip("\n"))
        if not match:
            continue
        label, text = match.group(1), match.group(2)
        words = text.split()
        thinking = cecp_thinking(text) or uci_thinking(words)
        if thinking:
            last[label] = thinking
        elif words[:1] in (["move"], ["bestmove"]) and label in last:
            engines.setdefault(label, Searched()).add(*last.pop(label))
    return engines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+", help="logs of scripts/match.py --log --post")
    args = ap.parse_args(argv)
    engines: dict = {}
    for path in args.logs:
        try:
            with open(path, encoding="utf-8", errors="replace") as log:
                for label, searched in read_log(log).items():
                    engines.setdefault(label, Searched()).extend(searched)
        except OSError as err:
            print(f"think_stats: cannot read {path}: {err.strerror}", file=sys.stderr)
            return 2
    if not engines:
        print("think_stats: no thinking lines before any move (was the match run with --post?)",
              file=sys.stderr)
        return 2
    for label in sorted(engines):
        print(f"{label}: {engines[label].summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
