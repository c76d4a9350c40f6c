#!/usr/bin/env python3
"""Side-by-side speed of fairymax's search and Fairy-Max (/usr/games/fairymax).

    python scripts/speed_vs_fairymax.py [--depth 10] [--runs 3] [--variants normal,capablanca]
                                        [--fens kiwipete,middlegame,queenless,pawn-ending]

For each variant's start position (to `--depth`) and each chess position of `--fens`
(a name from FENS, to its own depth, or a FEN with White to move, to `--depth`), in the
same run, `--runs` rounds of both engines (a fresh process / a fresh Searcher every
time), medians reported:

* time to depth: both engines search to the position's depth.  Fairy-Max is driven as in
  docs/fairymax.md section 5 (`new`, `variant V`, `force`, `post`, `level 0 1000 0`,
  `sd N`, `go`; time from `go` to `move`); its `sd N` is N full-width plies plus
  quiescence, like our depth N.
* nodes per second, each engine's own count: Fairy-Max's from its last thinking
  line (its nodes over its time; it prints a line only when the best root move
  changes), so it covers the search from its start to that line; ours from a search
  of the same span (the time of Fairy-Max's line) in the same round; the
  ratio is the median of the rounds' ratios.
  The two counts differ in kind: ours counts search() calls, Fairy-Max's counts a
  node once per internal-iterative-deepening pass (fairymax.md section 5: about
  1.5 x its search() calls).  For the chess start position that section also gives
  Fairy-Max's search() calls to each depth, so the script prints calls per second
  for both engines too, the like-for-like figure.

Fairy-Max has no setboard: a FEN reaches it in edit mode (`edit`, `#`, the White
pieces, `c`, the Black ones, `.`), which gives White the move and derives castling
rights from where kings and rooks stand; the FENS below agree with that.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from think_stats import cecp_thinking  # noqa: E402

MS_PER_SECOND = 1000

FAIRYMAX = "/usr/games/fairymax"
# chess test positions, White to move, each with the depth that Fairy-Max reaches in
# 4-15 s here: Kiwipete (Maverick's perft suite), a closed Queen's Gambit, a queenless
# middle game, a pawn ending
FENS = {
    "kiwipete": ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 10),
    "middlegame": ("r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8", 10),
    "queenless": ("2r2rk1/pp3ppp/2n1bn2/8/3N4/2N1B3/PP3PPP/2RR2K1 w - - 0 18", 12),
    "pawn-ending": ("8/pp3pk1/2p3p1/4P2p/2P2P2/1P4P1/P5KP/8 w - - 0 35", 13),
}
# search() calls of Fairy-Max to each depth from the chess start position, counted by an
# instrumented build (fairymax.md section 5, column "calls")
FAIRYMAX_CALLS = {6: 143_953, 7: 451_097, 8: 2_033_356, 9: 6_142_248, 10: 21_826_587, 11: 51_951_930}


def edit_commands(fen: str) -> list[str]:
    """Fairy-Max's edit-mode commands that set up the pieces of `fen` (White to move)."""
    placement, side = fen.split()[:2]
    if side != "w":
        raise SystemExit(f"Fairy-Max's edit mode gives White the move: {fen}")
    white, black = [], []
    for i, row in enumerate(placement.split("/")):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            (white if ch.isupper() else black).append(f"{ch.upper()}{'abcdefgh'[file]}{8 - i}")
            file += 1
    return ["edit", "#", *white, "c", *black, "."]


def run_fairymax(depth: int, variant: str, fen: str | None = None) -> tuple[float, int, int]:
    """(seconds from `go` to `move`, nodes and milliseconds of its last thinking line)."""
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
    for command in edit_commands(fen) if fen else []:
        send(command)
    send("post")
    send("level 0 1000 0")
    send(f"sd {depth}")
    start = time.perf_counter()
    send("go")
    nodes = line_ms = 0
    for line in proc.stdout:
        if line.startswith("move "):
            break
        thinking = cecp_thinking(line)
        if thinking:
            _, line_ms, nodes = thinking
    elapsed = time.perf_counter() - start
    send("quit")
    proc.wait(timeout=10)
    return elapsed, nodes, line_ms


def run_ours(variant: str, fen: str | None = None, depth: int | None = None,
             ms: float | None = None) -> tuple[float, int]:
    """(seconds, nodes) of our search from the start position or `fen`: to `depth`, or for `ms`."""
    from fairymax.board import Board
    from fairymax.search import Searcher

    searcher = Searcher(64)
    board = Board.from_name(variant)
    if fen:
        board.set_fen(fen)
    start = time.perf_counter()
    for _ in searcher.iterate(board, max_depth=depth, hard_ms=ms):
        pass
    return time.perf_counter() - start, searcher.nodes


def compare(variant: str, fen: str | None, depth: int, runs: int) -> dict:
    """Runs in rounds (ours to depth, Fairy-Max, ours for the span of Fairy-Max's
    last thinking line), so that a change in the machine's load hits both engines of a
    round alike; the nodes/s ratio is the median of the rounds' ratios."""
    ours, theirs, timed, ratios = [], [], [], []
    for _ in range(runs):
        ours.append(run_ours(variant, fen, depth=depth))
        theirs.append(run_fairymax(depth, variant, fen))
        _, fm_nodes, fm_ms = theirs[-1]
        if fm_ms > 0:          # Fairy-Max printed a line after its first centisecond
            timed.append(run_ours(variant, fen, ms=fm_ms))
            elapsed, nodes = timed[-1]
            ratios.append((nodes / elapsed) / (fm_nodes * MS_PER_SECOND / fm_ms))
    t_ours = statistics.median(t for t, _ in ours)
    t_fm = statistics.median(t for t, _, _ in theirs)
    if not ratios:
        raise SystemExit(f"Fairy-Max's thinking lines all came at 0 cs: search deeper than {depth}")
    nps_ours = statistics.median(n / t for t, n in timed)
    nps_fm = statistics.median(n * MS_PER_SECOND / ms for _, n, ms in theirs if ms > 0)
    row = {"t_ours": t_ours, "t_fm": t_fm, "nps_ours": nps_ours, "nps_fm": nps_fm,
           "ratio": statistics.median(ratios)}
    if variant == "normal" and fen is None and depth in FAIRYMAX_CALLS:
        row["cps_ours"] = statistics.median(n / t for t, n in ours)
        row["cps_fm"] = FAIRYMAX_CALLS[depth] / t_fm
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--variants", default="normal",
                        help="comma-separated variant names (start positions)")
    parser.add_argument("--fens", default="",
                        help="comma-separated chess positions: names from FENS or FENs, White to move")
    args = parser.parse_args(argv)

    print(f"medians of {args.runs} runs; nodes/s: each engine's own count, "
          f"ours over the span of Fairy-Max's last thinking line")
    print(f"{'position':12s} {'depth':>5s} {'ours s':>8s} {'F-M s':>8s} {'sooner':>7s} "
          f"{'ours n/s':>10s} {'F-M n/s':>10s} {'ratio':>6s}")
    positions = [(variant, variant, None, args.depth) for variant in args.variants.split(",") if variant]
    for name in filter(None, args.fens.split(",")):
        fen, depth = FENS.get(name, (name, args.depth))
        positions.append((name if name in FENS else "fen", "normal", fen, depth))
    for label, variant, fen, depth in positions:
        row = compare(variant, fen, depth, args.runs)
        print(f"{label:12s} {depth:5d} {row['t_ours']:8.2f} {row['t_fm']:8.2f} "
              f"{row['t_fm'] / row['t_ours']:6.1f}x {row['nps_ours'] / 1e6:9.2f}M "
              f"{row['nps_fm'] / 1e6:9.2f}M {row['ratio']:5.2f}x", flush=True)
        if "cps_fm" in row:
            print(f"{'':12s} search() calls/s to depth {depth}: ours {row['cps_ours'] / 1e6:.2f}M, "
                  f"Fairy-Max {row['cps_fm'] / 1e6:.2f}M (instrumented count / median time): "
                  f"{row['cps_ours'] / row['cps_fm']:.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
