#!/usr/bin/env python3
"""Reliability run: fairymax over CECP against fairymax over UCI, refereed, in blocks.

    python scripts/reliability.py                       # the full plan, 1008 games, ~45 min
    python scripts/reliability.py --variants normal,roman --start-games 2 \\
        --setup-games 2 --ponder-games 2 --out /tmp/rel_try --report /tmp/rel_try.md
    python scripts/reliability.py --report-only         # rewrite the report from the PGNs

Plan.  For each variant of `--variants` (default: 12 that both front ends play, one
of them on a 10-rank board), three blocks of games, each a scripts/match.py run of
engine 1 = `python xboard.py` (CECP) against engine 2 = `uci:python xboard.py` (UCI),
colours alternating by game:

* `start`: `--start-games` games from random opening plies (match.py's `--seed`),
  two at a time (`--concurrency`), at `--st` seconds a move;
* `setup`: `--setup-games` games from the set-up FENs of scripts/openings/setup_VARIANT.txt
  (CECP `setboard`, UCI `position fen`), two at a time, at `--st` seconds a move;
* `ponder`: `--ponder-games` games with `--ponder` (CECP `hard`; UCI `go ponder`,
  `ponderhit`/`stop`), one at a time since both engines think at once, on a clock
  (`--tc`: CECP `level`/`time`/`otim`, UCI `wtime`/`btime`), so that the clock is
  charged across ponder hits and misses; from the set-up FENs in every other variant,
  from random plies in the others.  (`--st 0`: every block on the `--tc` clock.)

Time.  A game takes about as many times the time per move as it has plies (about 180
on average, at most `--max-plies`).  Measured on this 2-core machine (while another
match used both cores): 15 ms a ply at `--st 0.05`, 2.7 s a game, so 1.4 s of the run
with two at a time; 54 ms a ply with pondering at `--tc 1+0.05`, about 9 s a game; and
2 s to start each block's engines.  A clock needs an increment near 50 ms: the engines
keep 50 ms a move for latency, and with 30 ms their clocks fell to 40 ms in a trial.  The
default plan, 864 games at st 0.05 two at a time and 144 ponder games one at a time in
36 blocks, so takes about 20 + 22 + 1 = 43 minutes.  At 1+0.05 an engine's clock
settles near 200 ms (a move may take half of what is left), so a scheduling hiccup of
the machine can flag it: `--grace` (default 0.25 s) is the overstep allowed before a
flag falls; each overstep within it, and each move that took more than st + grace +
0.1 s, is an incident, counted in the report.

Every block has its PGN (`--resume`d, so an interrupted run goes on where it stopped:
run the same command again) and the console output of its match.py runs (.txt) under
`--out`; run.json there keeps the options (another run into the same directory must use
the same ones) and each block's time.  The engine traffic of every game with a forfeit
or an incident, some 200 kB a game, is appended to `--fault-log` (by default under
results/tmp/, which git ignores).

Report (`--report`, rewritten after every block): the command, the machine and the
date, a table of the blocks (variant, protocols, ponder, start, time, games, W-L-D from
the CECP side, forfeits, games with incidents, minutes) and the totals: illegal moves,
forfeits by kind (time, no answer, illegal move, false claim, crash; see
match.termination_kind), crashes (engine processes that exited: the "exited" incidents
of the PGN's Incidents tags and of the "incident:" lines match.py prints for an
engine's exit outside a game), and every faulty game (a forfeit or an incident) with
its block and round.  Exit status 0 if no game is faulty, 1 if one is, 2 on bad input
(a missing set-up file, other options for an existing directory), 130 if interrupted.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import match  # noqa: E402

MATCH = ROOT / "scripts" / "match.py"
OPENINGS = ROOT / "scripts" / "openings"
FAULT_LOG = ROOT / "results" / "tmp" / "reliability_faults.log"
# both front ends play these (UCI names: chess, kingofthehill, greatshatranj); roman
# and xiangqi have 10 ranks, where XBoard's and UCI's rank numbers differ; crazyhouse
# has drops and holdings
VARIANTS = ("normal,capablanca,shatranj,makruk,courier,knightmate,gothic,spartan,seirawan,"
            "king-of-the-hill,great,roman,crazyhouse,xiangqi")
PROTOCOLS = "CECP vs UCI"
ENGINE = f"{shlex.quote(sys.executable)} xboard.py"
RESULTS = ("1-0", "0-1", "1/2-1/2")
FORFEIT_ORDER = ("time", "no answer", "illegal move", "false claim", "crash", "other forfeit")
EXITED = re.compile(r"\bexited \(")
NO_ANSWER = re.compile(r"\bgave no answer\b|\bdid not quit\b")
SLOW = re.compile(r"\boverstepped its clock\b|\btook \d+ ms for a move\b")
INCIDENT_LINE = re.compile(r"^incident: (.*)$", re.M)
# options that must be the same for every run into one --out directory
PLAN_OPTIONS = ("variants", "start_games", "setup_games", "ponder_games", "st", "tc",
                "grace", "max_plies", "concurrency", "seed")


@dataclass
class Block:
    """One match.py run of the plan."""
    name: str                   # VARIANT_KIND: the file names under --out
    variant: str
    kind: str                   # "start", "setup" or "ponder"
    games: int
    ponder: bool
    setup: bool                 # start from the set-up FENs
    seed: int
    control: list               # match.py's time options: ["--st", S] or ["--tc", B+I]

    @property
    def start_text(self) -> str:
        return "set-up FEN" if self.setup else "random plies"

    @property
    def control_text(self) -> str:
        return f"{self.control[0][2:]} {self.control[1]}"


def plan(args) -> list:
    """The blocks of the run, variant by variant (start, setup, ponder)."""
    blocks = []
    for index, variant in enumerate(v for v in args.variants.split(",") if v):
        ponder_setup = index % 2 == 1
        kinds = (("start", args.start_games, False, False),
                 ("setup", args.setup_games, False, True),
                 ("ponder", args.ponder_games, True, ponder_setup))
        for number, (kind, games, ponder, setup) in enumerate(kinds):
            control = ["--st", f"{args.st:g}"] if args.st and not ponder else ["--tc", args.tc]
            if games > 0:
                blocks.append(Block(f"{variant}_{kind}", variant, kind, games, ponder, setup,
                                    args.seed + 10 * index + number, control))
    return blocks


def setup_file(variant: str) -> Path:
    return OPENINGS / f"setup_{variant}.txt"


def match_command(block: Block, args, out: Path) -> list:
    """The scripts/match.py command line of a block."""
    command = [sys.executable, str(MATCH), "--engine1", ENGINE, "--engine2", f"uci:{ENGINE}",
               "--variant", block.variant, "--games", str(block.games), *block.control,
               "--max-plies", str(args.max_plies), "--seed", str(block.seed),
               "--grace", f"{args.grace:g}",
               "--concurrency", "1" if block.ponder else str(args.concurrency),
               "--pgn", str(out / f"{block.name}.pgn"), "--resume",
               "--fault-log", str(args.fault_log)]
    if block.setup:
        command += ["--openings", str(setup_file(block.variant))]
    if block.ponder:
        command.append("--ponder")
    return command


# ---------------------------------------------------------------- counting
@dataclass
class GameFault:
    """A game with a forfeit or an incident."""
    block: str
    round: str
    result: str
    termination: str
    kind: str                   # its termination_kind
    incidents: str


@dataclass
class BlockSummary:
    """What a block's PGN and console output hold."""
    games: int = 0
    wins: int = 0               # of engine 1 (CECP)
    losses: int = 0
    draws: int = 0
    kinds: dict = field(default_factory=dict)       # termination kind -> games
    faulty: list = field(default_factory=list)      # GameFault: a forfeit or an incident
    late: list = field(default_factory=list)        # GameFault: only moves over time
    incident_games: int = 0     # games with an incident other than a move over time
    crashes: int = 0            # engine processes that exited
    no_answer_restarts: int = 0
    slow_moves: int = 0         # clock oversteps within the grace, slow st moves
    outside_games: list = field(default_factory=list)   # "incident:" lines of the console

    @property
    def forfeits(self) -> int:
        return sum(self.kinds.get(kind, 0) for kind in FORFEIT_ORDER)


def summarize(name: str, pgn: Path, console: Path | None = None) -> BlockSummary:
    """Count a block's games (the first of each round, as match.py's --resume does) and
    its faults; `console` is the block's match.py output, for incidents outside games."""
    summary = BlockSummary()
    seen = set()
    text = pgn.read_text() if pgn.exists() else ""
    for tags, _ in match.split_pgn(text):
        round_tag, result = tags.get("Round", ""), tags.get("Result", "*")
        if not re.fullmatch(r"(\d+\.)?\d+", round_tag) or result not in RESULTS \
                or round_tag in seen:
            continue
        seen.add(round_tag)
        summary.games += 1
        score = match.score_of(result, int(round_tag.split(".")[-1]) % 2 == 1)
        summary.wins += score == 1.0
        summary.losses += score == 0.0
        summary.draws += score == 0.5
        termination = tags.get("Termination", "")
        kind = match.termination_kind(termination)
        summary.kinds[kind] = summary.kinds.get(kind, 0) + 1
        incidents = tags.get("Incidents", "")
        items = incidents.split(" | ") if incidents else []
        slow = [item for item in items if SLOW.search(item)]
        summary.crashes += len(EXITED.findall(incidents))
        summary.no_answer_restarts += len(NO_ANSWER.findall(incidents))
        summary.slow_moves += len(slow)
        summary.incident_games += len(slow) < len(items)
        fault = GameFault(name, round_tag, result, termination, kind, incidents)
        if len(slow) < len(items) or kind not in match.NOT_FAULTS:
            summary.faulty.append(fault)
        elif slow:
            summary.late.append(fault)
    if console is not None and console.exists():
        for line in INCIDENT_LINE.findall(console.read_text()):
            summary.outside_games.append(line)
            summary.crashes += len(EXITED.findall(line))
            summary.no_answer_restarts += len(NO_ANSWER.findall(line))
    return summary


# ---------------------------------------------------------------- report
def machine_text() -> str:
    cpu = ""
    try:
        found = re.search(r"^model name\s*:\s*(.*)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = found.group(1) if found else ""
    except OSError:
        pass
    return (f"{platform.node()}, {os.cpu_count()} cores{', ' + cpu if cpu else ''}, "
            f"Python {platform.python_version()}")


def git_version() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                          capture_output=True, text=True).stdout.strip() or "unknown"


def report_text(blocks: list, summaries: dict, run: dict) -> str:
    """The Markdown report of the blocks' summaries so far."""
    total = BlockSummary()
    planned = sum(b.games for b in blocks)
    rows = []
    for b in blocks:
        s = summaries[b.name]
        total.games += s.games
        total.wins, total.losses, total.draws = (total.wins + s.wins, total.losses + s.losses,
                                                 total.draws + s.draws)
        for kind, count in s.kinds.items():
            total.kinds[kind] = total.kinds.get(kind, 0) + count
        total.faulty += s.faulty
        total.late += s.late
        total.incident_games += s.incident_games
        total.crashes += s.crashes
        total.no_answer_restarts += s.no_answer_restarts
        total.slow_moves += s.slow_moves
        total.outside_games += [f"{b.name}: {line}" for line in s.outside_games]
        minutes = run.get("seconds", {}).get(b.name, 0) / 60
        rows.append(f"| {b.name} | {b.variant} | {PROTOCOLS} | {'yes' if b.ponder else 'no'} | "
                    f"{b.start_text} | {b.control_text} | {s.games}/{b.games} | "
                    f"{s.wins}-{s.losses}-{s.draws} | {s.forfeits} | {s.incident_games} | "
                    f"{minutes:.1f} |")
    seconds = sum(run.get("seconds", {}).values())
    kinds, options = total.kinds, run["options"]
    lines = [
        "# Reliability run",
        "",
        f"Command: `{run.get('command', '')}`  ",
        f"Started: {run.get('started', '')}; report written: "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  ",
        f"Machine: {run.get('machine', machine_text())}  ",
        f"Code: {run.get('version', git_version())}; time: st {options['st']:g} s a move "
        f"without pondering, tc {options['tc']} with (st 0: tc everywhere), flag after "
        f"{options['grace']:g} s past zero, at most {options['max_plies']} plies a game "
        f"(then a draw), {options['concurrency']} at a time without pondering, 1 with  ",
        f"Per block: PGN, match.py output (.txt) under `{run.get('out', '')}`; engine "
        f"traffic of games with a forfeit or an incident: `{run.get('fault_log', '')}`",
        "",
        "Engine 1 is `python xboard.py` over CECP (XBoard), engine 2 the same program over "
        "UCI; scripts/match.py referees every move with our Board. W-L-D is from the CECP "
        "side. A forfeit is a game lost by an engine's fault (Termination tag, kinds as "
        "`match.termination_kind`); an incident is a fault that did not end the game "
        "(Incidents tag: stderr output, protocol error lines, illegal ponder moves, "
        "restarts, and moves over time within the grace, which are counted apart). A game "
        "is faulty if it has a forfeit or an incident other than a move over time.",
        "",
        "| block | variant | protocols | ponder | start | time | games | W-L-D | forfeits | "
        "games with incidents | min |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"**Total: {total.games}/{planned} games in {seconds / 60:.1f} min, W-L-D "
        f"{total.wins}-{total.losses}-{total.draws}; illegal moves "
        f"{kinds.get('illegal move', 0)}; forfeits {total.forfeits} ("
        + ", ".join(f"{kind} {kinds.get(kind, 0)}" for kind in FORFEIT_ORDER)
        + f"); crashes (engine processes that exited) {total.crashes}; restarts after no "
        f"answer {total.no_answer_restarts}; games with incidents {total.incident_games}**",
        "",
        f"Moves over time without a loss (a clock overstepped within the grace, or an st move "
        f"more than grace + 0.1 s late; incidents, not faults): {total.slow_moves}.",
        "",
        f"Endings by rule (mate, stalemate, repetition, 50 moves, bare king, hill, "
        f"insufficient material, the {options['max_plies']}-ply limit): "
        f"{kinds.get('rule', 0)}; resignations: {kinds.get('resignation', 0)}.",
        "",
        "## Faulty games",
        "",
    ]
    if not total.faulty and not total.outside_games:
        lines.append("None.")
    for fault in total.faulty:
        incidents = f"; incidents: {fault.incidents}" if fault.incidents else ""
        lines.append(f"- {fault.block}.pgn round {fault.round}: {fault.result} "
                     f"{{{fault.termination}}} ({fault.kind}){incidents}")
    for line in total.outside_games:
        lines.append(f"- outside a game, {line}")
    if total.late:
        lines += ["", "## Games with moves over time, not lost on time", ""]
        lines += [f"- {late.block}.pgn round {late.round}: {late.incidents}"
                  for late in total.late]
    if run.get("failures"):
        lines += ["", "## Blocks that stopped", ""]
        lines += [f"- {name}: {text}" for name, text in run["failures"].items()]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- running
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", default=VARIANTS)
    ap.add_argument("--start-games", type=int, default=36, help="per variant (default 36)")
    ap.add_argument("--setup-games", type=int, default=36, help="per variant (default 36)")
    ap.add_argument("--ponder-games", type=int, default=12, help="per variant (default 12)")
    ap.add_argument("--st", type=float, default=0.05,
                    help="seconds a move without pondering (default 0.05; 0: --tc)")
    ap.add_argument("--tc", default="1+0.05",
                    help="BASE+INC seconds of the ponder blocks (default 1+0.05)")
    ap.add_argument("--grace", type=float, default=0.25,
                    help="seconds past zero before a flag falls (default 0.25)")
    ap.add_argument("--max-plies", type=int, default=250)
    ap.add_argument("--concurrency", type=int, default=2,
                    help="games at a time in blocks without pondering (default 2)")
    ap.add_argument("--seed", type=int, default=1700)
    ap.add_argument("--out", default=str(ROOT / "results" / "reliability"))
    ap.add_argument("--report", default=str(ROOT / "results" / "reliability.md"))
    ap.add_argument("--fault-log", default=str(FAULT_LOG),
                    help="engine traffic of faulty games (default: results/tmp/)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report from --out without playing")
    return ap.parse_args(argv)


def load_run(out: Path, args, command: str) -> dict:
    """run.json of --out, made now if there is none; BadInput if its options differ from
    args (with --report-only, args take its options instead)."""
    path = out / "run.json"
    options = {name: getattr(args, name) for name in PLAN_OPTIONS}
    if path.exists():
        try:
            run = json.loads(path.read_text())
        except (OSError, ValueError) as err:
            raise match.BadInput(f"cannot read {path}: {err}")
        if args.report_only:
            for name, value in run["options"].items():
                setattr(args, name, value)
        elif run["options"] != options:
            raise match.BadInput(f"{out} holds a run with other options {run['options']}; "
                                 "use the same options or another --out")
        return run
    if args.report_only:
        raise match.BadInput(f"no run in {out}")
    return {"command": command, "options": options, "out": str(out),
            "fault_log": str(args.fault_log),
            "started": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            "machine": machine_text(), "version": git_version(), "seconds": {},
            "failures": {}}


def save_run(out: Path, run: dict) -> None:
    (out / "run.json").write_text(json.dumps(run, indent=1) + "\n")


def write_report(blocks: list, out: Path, run: dict, report: Path) -> tuple:
    """Rewrite the report; (games played, faulty games and outside incidents)."""
    summaries = {b.name: summarize(b.name, out / f"{b.name}.pgn", out / f"{b.name}.txt")
                 for b in blocks}
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(report_text(blocks, summaries, run))
    played = sum(s.games for s in summaries.values())
    faults = sum(len(s.faulty) + len(s.outside_games) for s in summaries.values())
    return played, faults


def run_block(block: Block, args, out: Path, run: dict) -> None:
    """Play what is missing of a block (match.py --resume), its output appended to .txt."""
    if summarize(block.name, out / f"{block.name}.pgn").games >= block.games:
        return
    command = match_command(block, args, out)
    start = time.monotonic()
    try:
        with open(out / f"{block.name}.txt", "a") as console:
            console.write(f"# {shlex.join(command)}\n")
            console.flush()
            status = subprocess.run(command, cwd=ROOT, stdout=console, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL).returncode
    finally:
        seconds = run["seconds"].get(block.name, 0) + time.monotonic() - start
        run["seconds"][block.name] = seconds
        save_run(out, run)
    if status == 2:
        raise match.BadInput(f"block {block.name}: match.py found bad input "
                             f"(see {out / (block.name + '.txt')})")
    if status != 0:
        run["failures"][block.name] = f"match.py exit status {status}"
    else:
        run["failures"].pop(block.name, None)


def main(argv=None) -> int:
    args = parse_args(argv)
    command = "python scripts/reliability.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    out, report = Path(args.out), Path(args.report)
    try:
        if args.report_only and not out.is_dir():
            raise match.BadInput(f"no run in {out}")
        out.mkdir(parents=True, exist_ok=True)
        Path(args.fault_log).parent.mkdir(parents=True, exist_ok=True)
        run = load_run(out, args, command)
        blocks = plan(args)
        missing = [str(setup_file(b.variant)) for b in blocks
                   if b.setup and not setup_file(b.variant).exists()]
        if missing:
            raise match.BadInput(f"no set-up positions: {', '.join(sorted(set(missing)))} "
                                 "(make them with match.py --write-openings --fen)")
        save_run(out, run)
        if not args.report_only:
            for block in blocks:
                run_block(block, args, out, run)
                save_run(out, run)
                played, faults = write_report(blocks, out, run, report)
                print(f"{block.name}: done; {played} games so far, {faults} faulty",
                      flush=True)
        played, faults = write_report(blocks, out, run, report)
    except match.BadInput as err:
        print(f"reliability.py: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; run the same command again to go on", file=sys.stderr)
        return 130
    print(f"{played}/{sum(b.games for b in blocks)} games, {faults} faulty; report: {report}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
