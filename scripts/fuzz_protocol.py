#!/usr/bin/env python3
"""Fuzz both protocols over many seeds: at least --lines fuzzed lines each for CECP and UCI.

    python scripts/fuzz_protocol.py [--lines 10000] [--first-seed 1] [--no-known-bugs]
                                    [--out results/fuzz_protocol.md]

The lines and the checks are those of tests/protocol_fuzz.py (the fuzz tests of
tests/test_fuzz.py run a few seeds of the same): each seed is one engine process fed
random, garbled and hostile lines in blocks; after each block the engine must answer a sync
(CECP `ping`, UCI `isready`), every output line must be a protocol line with no internal
error or traceback (stderr included), and every line that needs an answer must get it
(CECP fuzzed `ping N`; UCI `isready`, `go` -> one bestmove or a rejection, an unknown
command -> `info string`).  Seeds go on from --first-seed until both protocols reached
--lines.  By default the lines include the triggers of the engine bugs already known
(KNOWN_BUGS in tests/protocol_fuzz.py), so that the report shows whether they are still
there; --no-known-bugs leaves them out, as the tests do.

A crash or hang is replayed: its seed's whole input, sent at once to a fresh engine; if
that fails alike, the input is cut down to a short reproduction (the shortest failing
prefix, then chunks taken out while it still fails), and the failure is put down to the
known bugs whose triggers the reproduction holds.

Output: the counts per protocol (seeds, fuzzed lines, answers checked, syncs, output lines
checked, crashes and hangs, unexpected output lines, failures), the failures grouped by
protocol, kind and known bug with the transcript before the first of each group (every
crash and hang with its reproduction), and the known bugs; on stdout and in --out
(Markdown, with the command, the date and the commit).  Exit status 1 if a failure is not
one of a known bug, else 0.
"""
from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import time
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from enginepipe import engine_command  # noqa: E402
from protocol_fuzz import (FIXED_BUGS, KNOWN_BUGS, FuzzStats, known_bugs_of, run_cecp, run_uci,  # noqa: E402
                           shown)

# Lines per seed: CECP blocks carry about 29 lines (25 random, a few pings and resets),
# UCI blocks about 21 (20 random and the stops that follow searches without a limit).
CECP_BLOCKS, CECP_SIZE = 40, 25
UCI_BLOCKS, UCI_SIZE = 40, 20


def commit() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + (" (with uncommitted changes)" if dirty else "")


def outcome(lines: list, timeout: float = 20.0) -> str:
    """How a fresh engine ends on these input lines and `quit`, all sent at once: "ok",
    "exit N", "signal N" or "hang"."""
    try:
        done = subprocess.run(engine_command(), cwd=ROOT, input="\n".join(lines) + "\nquit\n",
                              capture_output=True, text=True, encoding="utf-8",
                              errors="surrogateescape", timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang"
    code = done.returncode
    return "ok" if code == 0 else f"signal {-code}" if code < 0 else f"exit {code}"


def minimize(lines: list, bad: str, budget: int) -> list:
    """A shorter input with the same bad outcome: the shortest such prefix, then chunks
    taken out while that still fails (at most `budget` engine runs).  A first `uci`
    stays, so that the protocol does."""
    keep, lines = (lines[:1], lines[1:]) if lines[:1] == ["uci"] else ([], lines)
    runs = 0

    def fails(candidate):
        nonlocal runs
        runs += 1
        return outcome(keep + candidate) == bad
    low, high = 0, len(lines)
    while low < high and runs < budget:
        middle = (low + high) // 2
        if fails(lines[:middle]):
            high = middle
        else:
            low = middle + 1
    current, parts = lines[:high], 2
    while len(current) > 1 and runs < budget:
        size = max(1, len(current) // parts)
        for start in range(0, len(current), size):
            candidate = current[:start] + current[start + size:]
            if runs < budget and fails(candidate):
                current, parts = candidate, max(parts - 1, 2)
                break
        else:
            if size == 1:
                break
            parts = min(len(current), parts * 2)
    return keep + current


def replay_crashes(stats_list: list, budget: int = 150) -> None:
    """Replay each crash's or hang's input in a fresh engine; where that fails alike, cut
    it down to a short reproduction and name the known bugs of its lines."""
    for stats in stats_list:
        for failure in stats.failures:
            if not failure.replay:
                continue
            bad = outcome(failure.replay)
            failure.message += f"; replayed at once: {bad}"
            if bad == "ok":
                continue
            short = minimize(failure.replay, bad, budget if bad != "hang" else budget // 5)
            names = sorted({name for line in short
                            for name in known_bugs_of(line, failure.protocol, failure.kind)})
            clean = [line for line in failure.replay if not known_bugs_of(line, failure.protocol)]
            failure.bug = " + ".join(names)
            failure.message += (f"; without the lines of known bugs: {outcome(clean)}; "
                                f"a reproduction of {len(short)} lines ({bad}):")
            failure.context = [f"> {line}" for line in short]
            print(f"{failure.protocol} seed {failure.seed}: {failure.kind}, {bad}; reproduced by "
                  f"{short}", flush=True)


def fuzz(lines: int, first_seed: int, known_bugs: bool) -> tuple:
    """Run seeds until each protocol has `lines` lines; (CECP stats, UCI stats)."""
    total = {"CECP": FuzzStats("CECP"), "UCI": FuzzStats("UCI")}
    runners = {"CECP": lambda seed: run_cecp(seed, CECP_BLOCKS, CECP_SIZE, known_bugs),
               "UCI": lambda seed: run_uci(seed, UCI_BLOCKS, UCI_SIZE, known_bugs)}
    seed = first_seed
    while any(stats.lines < lines for stats in total.values()):
        for protocol, stats in total.items():
            if stats.lines >= lines:
                continue
            one = runners[protocol](seed)
            stats.add(one)
            print(f"{protocol:4} seed {seed:3}: {one.lines:5} lines, {one.answers:4} answers, "
                  f"{one.crashes} crashes, {one.unexpected:3} unexpected lines, "
                  f"{len(one.failures):3} failures, {one.seconds:5.1f} s", flush=True)
        seed += 1
    return total["CECP"], total["UCI"]


def report(stats_list: list, command: str, started: str, seconds: float) -> tuple:
    """The Markdown report and whether every failure is one of a known bug."""
    out = ["# Protocol fuzzing (CECP and UCI)", "",
           f"Command: `{command}`  ", f"Date: {started}  ", f"Commit: {commit()}  ",
           f"Wall time: {seconds:.0f} s (2 shared cores; searches limited to a few ms or "
           "nodes, or stopped)", "",
           "Lines and checks: tests/protocol_fuzz.py; the counts are explained in "
           "scripts/fuzz_protocol.py.  *Answers checked*: lines that needed an answer and got "
           "it (CECP fuzzed `ping N`; UCI `isready`, `go` -> one `bestmove` or a rejection, "
           "unknown command -> `info string`).  *Syncs*: CECP `ping` per block, UCI `isready` "
           "after each line and block.", "",
           "| protocol | seeds | lines sent | answers checked | syncs | output lines checked "
           "| crashes/hangs | unexpected output lines | failures |",
           "|---|---|---|---|---|---|---|---|---|"]
    for s in stats_list:
        out.append(f"| {s.protocol} | {s.seeds} | {s.lines} | {s.answers} | {s.syncs} | {s.output} "
                   f"| {s.crashes} | {s.unexpected} | {len(s.failures)} |")
    groups: "OrderedDict[tuple, list]" = OrderedDict()
    for s in stats_list:
        for failure in s.failures:
            groups.setdefault((failure.protocol, failure.kind, failure.bug), []).append(failure)
    new = [key for key in groups if not key[2]]
    out += ["", "## Failures", ""]
    if not groups:
        out.append("None.")
    for (protocol, kind, bug), failures in groups.items():
        seeds = sorted({f.seed for f in failures})
        out += [f"### {protocol}: {kind}, {len(failures)} times (seeds {', '.join(map(str, seeds[:12]))}"
                f"{', ...' if len(seeds) > 12 else ''}): "
                + (f"known bug \"{bug}\"" if bug else "**not a known bug**"), ""]
        examples = failures if not bug or kind in ("crash", "hang") else failures[:1]
        for failure in examples[:5]:
            out += [f"Seed {failure.seed}: {failure.message}", "", "```"] + failure.context + ["```", ""]
    out += ["## Known bugs", "",
            "Lines that trigger them are made by the script (unless `--no-known-bugs`), not by "
            "the tests." if KNOWN_BUGS else "None open.", ""]
    for name, bug in KNOWN_BUGS.items():
        out.append(f"* **{name}** ({'/'.join(bug.protocols)}): {bug.what}.  "
                   f"Examples: {', '.join('`' + shown(e, 100) + '`' for e in bug.examples)}")
    out += ["", "## Fixed bugs (their inputs are fuzzed; test_fixed_bug replays each)", ""]
    for name, bug in FIXED_BUGS.items():
        out.append(f"* **{name}** ({'/'.join(bug.protocols)}): "
                   f"{', '.join('`' + shown(e, 100) + '`' for e in bug.examples)}")
    return "\n".join(out) + "\n", not new


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=10000, help="fuzzed lines per protocol")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--no-known-bugs", action="store_true",
                        help="make no line that triggers a known bug (as the tests)")
    parser.add_argument("--out", default=str(ROOT / "results" / "fuzz_protocol.md"))
    args = parser.parse_args(argv)
    command = "python scripts/fuzz_protocol.py " + " ".join(sys.argv[1:] if argv is None else argv)
    started = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    t0 = time.monotonic()
    cecp, uci = fuzz(args.lines, args.first_seed, known_bugs=not args.no_known_bugs)
    replay_crashes([cecp, uci])
    text, ok = report([cecp, uci], command.strip(), started, time.monotonic() - t0)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
