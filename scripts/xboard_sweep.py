#!/usr/bin/env python3
"""Sweep every variant fairymax announces through the real XBoard (4.9.1, headless under Xvfb).

    python scripts/xboard_sweep.py [--games 4] [--variants normal,capablanca] [--tc 0:06]
                                   [--inc 0.1] [--ponder alternate] [--jobs 1]
                                   [--fairy-armies FIDE-Nutters,Rookies-Clobberers]
                                   [--out results/xboard_sweep.md] [--workdir results/tmp/xboard_sweep]
    python scripts/xboard_sweep.py --recheck [--workdir DIR]   # check an earlier run's games again

Matches.  The variants are the ones in our `feature variants=` (read by sending `xboard` and
`protover 2` to `xboard.py`); `--variants` picks a subset.  Each variant is one XBoard match of
`--games` games (colours alternate; the first game has fairymax White) run by scripts/xbmatch.sh
with fairymax as the first engine (PGN name "fairymax") and Fairy-Max (/usr/games/fairymax, PGN
name "Fairy-Max") as the second where Fairy-Max announces the variant too, else fairymax itself
(PGN name "fairymax-2").  XBoard gets `-testClaims true` (so it judges win and draw claims; its
default leaves them unchecked) and `-ponderNextMove` true or false: `--ponder alternate` (the
default) ponders in every other match of the plan, `on` in all, `off` in none.  `fairy` is also
played with the armies of `--fairy-armies` (label `fairy:ARMY`): XBoard sends each engine its
"Variant fairy selects" option (`-firstOptions "VariantFairySelects=fairy/ARMY"`, and Fairy-Max's
own spelling of the option to the second engine).  Each match has its own directory under
`--workdir` (match.pgn, xboard.debug, xboard.out); `--jobs 2` runs two matches at once.

Checks.  Every PGN game and the debug log are read for:

* the game's end as XBoard wrote it in the last PGN comment: "Xboard: Forfeit due to
  invalid/illegal move", "False illegal-move claim", "False win claim", "False draw claim",
  "... wins on time", "... exited unexpectedly"/"exits in draw position".  XBoard gives the
  game to the other side in all of these, so the fault is the loser's (for an exit, the
  engine XBoard names).  One exception: XBoard does not know king-of-the-hill (it is
  engine-defined for XBoard), so with -testClaims it scores a right claim of a King that
  reached the centre as a "False win claim"; that one is XBoard's.  A time loss gives the
  flagged engine's clock as XBoard last sent it and how long XBoard then waited for a move;
* games with result "*", and games missing from the PGN (a match that timed out or stopped:
  an engine that still owes a `pong` for the last `ping` it was sent is blamed, else XBoard);
* lines an engine sent (`<first :` is the first engine, `<second:` the second; `>first :` is
  what XBoard sent it) that start with `Error`, `Illegal move` or `tellusererror`, and lines of
  fairymax that are no CECP output at all.  An `Illegal move` reply is the claim behind a
  "False illegal-move claim" ending: then it is shown with that fault and not counted again;
* draws XBoard adjudicated (stalemate, insufficient material, ...) right after a move its
  engine scored as a mate: the engine and XBoard disagree on the variant's rules.  Not a
  protocol fault: listed as a note;
* the `[Variant]` tag: XBoard writes none for normal chess, else `VariantName()` of the game,
  which for an engine-defined variant (one XBoard does not know, set up from our
  `setup (...) WxH+0_parent` line) is the `-variant` name it was started with, and for a
  variant XBoard knows its own name for it.  A real run showed the tag equal to the name we
  announce for every variant (e.g. "los-alamos", parent fairy; "fairy" with its VariantMen for
  the fairy armies), so that is what is required: no tag for normal, the variant name
  otherwise, "fairy" for `fairy:ARMY`.  A wrong tag is counted as XBoard's fault.

Attribution: fairymax (the first engine, and the second in a self-play match), the opponent
(Fairy-Max), or XBoard (wrong tags, unfinished or missing games nobody can be blamed for).
Known harmless opponent lines (Fairy-Max answers XBoard's `computer` with "Error (unknown
command): computer", and `result` with "Error (unknown command): result" after claiming the
result itself) are counted as notes, not faults.

Output: one line per match (games played/planned, W-L-D from fairymax's side, faults of
fairymax, of the opponent, of XBoard), then each fault with the debug lines around it and the
last moves of its game, then the totals; on stdout and in `--out` (Markdown, with the command
and the date), rewritten after every match.  Exit status 1 if fairymax has a fault, else 0.
A run saves its options in WORKDIR/sweep.json; `--recheck` reads them back (only `--workdir`
is needed), checks the games again without playing and rewrites that run's report.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
XBMATCH = ROOT / "scripts" / "xbmatch.sh"
FAIRYMAX = "/usr/games/fairymax"
OUR_NAME = "fairymax"                  # PGN name of our engine as first engine (-fn)
OUR_SECOND_NAME = "fairymax-2"         # PGN name of our engine as second engine (-sn)
FAIRYMAX_NAME = "Fairy-Max"            # PGN name of Fairy-Max as second engine (-sn)
DEFAULT_ARMIES = "FIDE-Nutters,Rookies-Clobberers"
CONTEXT_BEFORE = 8                     # debug lines shown before a fault's line
CONTEXT_AFTER = 3                      # and after it
XVFB_START_GAP_S = 5.0                 # between two XBoard starts (xvfb-run -a picks displays racily)

SIDES = ("fairymax", "opponent", "xboard")
RESULTS = ("1-0", "0-1", "1/2-1/2")
DEBUG_LINE = re.compile(r"^\d+ ([<>])(first|second)\s*: ?(.*)$")
NEW_GAME = re.compile(r"^New game \((\d+)\):")
# the final PGN comment (XBoard's result details) of a game that ends with a result token
TERMINATION = re.compile(r"\{([^{}]*)\}\s*(?:1-0|0-1|1/2-1/2|\*)\s*$")
TERMINATION_FAULTS = [
    (re.compile(r"Forfeit due to (?:invalid|illegal) move", re.I), "illegal move"),
    (re.compile(r"False illegal-move claim", re.I), "false illegal-move claim"),
    (re.compile(r"False win claim", re.I), "false win claim"),
    (re.compile(r"False draw claim", re.I), "false draw claim"),
    (re.compile(r"wins on time|loses on time|forfeits on time", re.I), "time loss"),
    (re.compile(r"exited unexpectedly|exits in draw position", re.I), "engine exited"),
]
LINE_FAULTS = [
    (re.compile(r"^Error\b"), "Error line"),
    (re.compile(r"^Illegal move"), "Illegal-move reply"),
    (re.compile(r"^tellusererror\b"), "tellusererror"),
]
# every line our engine may send: thinking lines, move, feature, pong, setup/piece, results,
# resign/offer draw, tell*/Error/Illegal move, Hint:, stat01:, # comments (as tests/test_xboard_gui.py)
OUR_OUTPUT = re.compile(r"-?\d+ |move |feature |pong |setup |piece |(1-0|0-1|1/2-1/2) |resign|"
                        r"offer draw|tell|Error |Illegal move|Hint: |stat01: |#| |$")
# lines of Fairy-Max that are known and harmless (its reply to CECP commands it does not
# implement: `computer`, and `result` after it claimed the result itself): noted, not counted
OPPONENT_QUIRKS = re.compile(r"^Error \(unknown command\): (result|computer)$")
# xboard's own output (stdout/stderr of xbmatch.sh) that means trouble
XBOARD_TROUBLE = re.compile(r"forfeit|illegal|false|exited|error|fatal|timed? ?out", re.I)
NOISE = re.compile(r"^(book hit = |Interrupting |nps: |write FEN |e\d+\. p=)")
# win rules XBoard 4.9.1 cannot judge in a variant it does not know: with -testClaims it
# scores such a (right) win claim as false.  variant -> (PGN last move of a rightful claim, rule)
XBOARD_UNKNOWN_WINS = {
    "king-of-the-hill": (re.compile(r"^K[a-h]?[1-8]?x?[de][45]\b"), "a King reaching d4, d5, e4 or e5 wins"),
}
TIMESTAMP = re.compile(r"^(\d+) [<>]")


# ---------------------------------------------------------------- engines
@dataclass
class Features:
    """What an engine announced in reply to `xboard` / `protover 2`."""
    name: str
    variants: list
    options: dict            # option name -> (type, rest of the definition)


FEATURE_PAIR = re.compile(r'(\w+)=(?:"([^"]*)"|(\S+))')
OPTION_DEF = re.compile(r"^(.*?) -(check|spin|combo|button|save|reset|string|file|path|slider)\b ?(.*)$")


def parse_features(text: str) -> Features:
    """The myname, variants and options of `feature` lines in an engine's output."""
    name, variants, options = "", [], {}
    for line in text.splitlines():
        if not line.startswith("feature "):
            continue
        for key, quoted, bare in FEATURE_PAIR.findall(line):
            value = quoted if quoted or not bare else bare
            if key == "myname":
                name = value
            elif key == "variants":
                variants = [v for v in value.split(",") if v]
            elif key == "option":
                m = OPTION_DEF.match(value)
                if m:
                    options[m.group(1)] = (m.group(2), m.group(3))
    return Features(name, variants, options)


def read_features(command: str, timeout: float = 30) -> Features:
    """Start `command` (a shell-quoted command line), handshake, quit; parse its features."""
    proc = subprocess.run(shlex.split(command), input="xboard\nprotover 2\nquit\n", cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    return parse_features(proc.stdout)


def army_option(features: Features, army: str) -> str | None:
    """`NAME=VALUE` for XBoard's -firstOptions/-secondOptions that selects `army` for fairy.

    The option is the combo whose name without spaces is "VariantFairySelects" (ours) or
    "Variantfairyselects" (Fairy-Max); its value is the entry equal to `army` or ending in
    `/army` (ours are spelled "fairy/FIDE-Nutters", Fairy-Max's "FIDE-Nutters").  None if the
    engine has no such option or entry.
    """
    for name, (kind, rest) in features.options.items():
        if kind != "combo" or re.sub(r"\s", "", name).lower() != "variantfairyselects":
            continue
        for value in (v.strip().lstrip("*") for v in rest.split("///")):
            if value == army or value.endswith("/" + army):
                return f"{name}={value}"
    return None


# ---------------------------------------------------------------- plan
@dataclass
class MatchSpec:
    """One XBoard match of the sweep."""
    label: str                 # variant, or "fairy:ARMY"
    variant: str               # XBoard's -variant
    games: int
    tc: str                    # XBoard -tc (minutes or min:sec)
    inc: float                 # XBoard -inc (seconds)
    ponder: bool
    opponent: str              # command line of the second engine
    opponent_name: str         # its PGN name (-sn)
    self_play: bool            # the second engine is fairymax too
    workdir: Path
    first_options: str = ""    # XBoard -firstOptions
    second_options: str = ""   # XBoard -secondOptions

    @property
    def expected_tag(self) -> str | None:
        """The [Variant] tag XBoard must write: none for normal chess, else the variant."""
        return None if self.variant == "normal" else self.variant

    @property
    def opponent_label(self) -> str:
        """The opponent as the report names it."""
        return "fairymax (self)" if self.self_play else self.opponent_name


def safe_name(label: str) -> str:
    """`label` as a directory name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label)


def plan(args, ours: Features, theirs: Features | None, our_cmd: str) -> list:
    """The matches of the sweep, in order: each announced variant, then the fairy armies."""
    variants = ours.variants
    if args.variants:
        wanted = [v for v in args.variants.split(",") if v]
        unknown = [v for v in wanted if v not in variants]
        if unknown:
            raise SystemExit(f"xboard_sweep: not announced by fairymax: {', '.join(unknown)}")
        variants = wanted
    entries = [(v, v, "", "") for v in variants]
    if "fairy" in variants:
        for army in (a for a in args.fairy_armies.split(",") if a):
            first = army_option(ours, army)
            if first is None:
                raise SystemExit(f"xboard_sweep: fairymax has no fairy army {army}")
            second = army_option(theirs, army) if theirs else None
            entries.append((f"fairy:{army}", "fairy", first, second))
    specs = []
    for index, (label, variant, first_opt, second_opt) in enumerate(entries):
        self_play = theirs is None or variant not in theirs.variants or (first_opt and not second_opt)
        if self_play and first_opt:
            second_opt = first_opt
        ponder = args.ponder == "on" or (args.ponder == "alternate" and index % 2 == 1)
        specs.append(MatchSpec(
            label=label, variant=variant, games=args.games, tc=args.tc, inc=args.inc, ponder=ponder,
            opponent=our_cmd if self_play else FAIRYMAX,
            opponent_name=OUR_SECOND_NAME if self_play else FAIRYMAX_NAME,
            self_play=bool(self_play), workdir=Path(args.workdir) / safe_name(label),
            first_options=first_opt, second_options=second_opt or ""))
    return specs


# ---------------------------------------------------------------- running
@dataclass
class MatchRun:
    """What one XBoard match left behind."""
    returncode: int
    output: str               # xboard's stdout+stderr
    pgn: str
    debug: str
    seconds: float = 0.0


def xboard_command(spec: MatchSpec, our_cmd: str) -> list:
    """The scripts/xbmatch.sh command line of a match."""
    command = ["sh", str(XBMATCH), our_cmd, spec.opponent, str(spec.games), spec.tc, str(spec.inc),
               spec.variant, str(spec.workdir),
               "-fn", OUR_NAME, "-sn", spec.opponent_name, "-testClaims", "true",
               "-ponderNextMove", "true" if spec.ponder else "false"]
    if spec.first_options:
        command += ["-firstOptions", spec.first_options]
    if spec.second_options:
        command += ["-secondOptions", spec.second_options]
    return command


def load_run(workdir: Path, returncode: int = 0, seconds: float = 0.0) -> MatchRun:
    """Read a match directory (match.pgn, xboard.debug, xboard.out)."""
    def read(name: str) -> str:
        path = workdir / name
        return path.read_text(errors="replace") if path.exists() else ""
    output = read("xboard.out")
    m = re.search(r"^# exit status (-?\d+)", output, re.M)
    if m:
        returncode = int(m.group(1))
    m = re.search(r"^# (\d+) s$", output, re.M)
    if m and not seconds:
        seconds = float(m.group(1))
    return MatchRun(returncode, output, read("match.pgn"), read("xboard.debug"), seconds)


def run_match(spec: MatchSpec, our_cmd: str) -> MatchRun:
    """Play a match with xbmatch.sh in a fresh spec.workdir; keep xboard's output there."""
    if spec.workdir.exists():
        shutil.rmtree(spec.workdir)
    spec.workdir.mkdir(parents=True)
    command = xboard_command(spec, our_cmd)
    start = time.monotonic()
    limit = 120 + spec.games * 300 + 60      # xbmatch.sh's own limit plus a margin
    try:
        proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=limit)
        returncode, output = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        returncode, output = 124, exc.stdout or ""
        if isinstance(output, bytes):
            output = output.decode(errors="replace")
    seconds = time.monotonic() - start
    (spec.workdir / "xboard.out").write_text(
        f"# {shlex.join(command)}\n{output}# exit status {returncode}\n# {seconds:.0f} s\n")
    return load_run(spec.workdir, returncode, seconds)


# ---------------------------------------------------------------- checking
@dataclass
class Game:
    number: int
    headers: dict
    movetext: str
    termination: str          # XBoard's result details: the last comment before the result

    @property
    def result(self) -> str:
        """The Result tag ("*" if there is none)."""
        return self.headers.get("Result", "*")


def parse_pgn(text: str) -> list:
    """The games of an XBoard PGN file, numbered from 1 in file order."""
    games = []
    for chunk in re.split(r"(?m)^(?=\[Event )", text):
        if not chunk.strip():
            continue
        headers = dict(re.findall(r'^\[(\w+) "(.*)"\]\s*$', chunk, re.M))
        movetext = "\n".join(line for line in chunk.splitlines() if not line.startswith("["))
        m = TERMINATION.search(movetext)
        games.append(Game(len(games) + 1, headers, movetext.strip(), m.group(1) if m else ""))
    return games


@dataclass
class DebugLine:
    index: int                # line number in xboard.debug, from 0
    game: int                 # match game it belongs to (0: before the first game)
    direction: str | None     # "<" sent by the engine, ">" sent to it, None: XBoard's own line
    engine: str | None        # "first", "second" or None
    text: str                 # the protocol line without XBoard's prefix
    raw: str


def parse_debug(text: str) -> list:
    """xboard.debug as lines tagged with game number, direction and engine.

    XBoard writes `MS <first : LINE` for a line the first engine sent, `MS >first : LINE` for
    one it sent the first engine (`<second:`/`>second:` for the second), and a
    `New game (N): ...` line when match game N starts.
    """
    lines, game = [], 0
    for index, raw in enumerate(text.splitlines()):
        m = NEW_GAME.match(raw)
        if m:
            game = int(m.group(1))
        d = DEBUG_LINE.match(raw)
        if d:
            lines.append(DebugLine(index, game, d.group(1), d.group(2), d.group(3), raw))
        else:
            lines.append(DebugLine(index, game, None, None, raw, raw))
    return lines


@dataclass
class Fault:
    label: str
    game: int | None
    side: str                 # "fairymax", "opponent" or "xboard"
    who: str                  # engine name or "xboard"
    kind: str
    detail: str
    context: list = field(default_factory=list)


@dataclass
class MatchReport:
    spec: MatchSpec
    games: list
    wins: int = 0
    losses: int = 0
    draws: int = 0
    faults: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    quirks: dict = field(default_factory=dict)    # known harmless opponent line -> times sent
    seconds: float = 0.0

    def count(self, side: str) -> int:
        """Faults blamed on `side`."""
        return sum(f.side == side for f in self.faults)


def context(lines: list, at: int, before: int = CONTEXT_BEFORE, after: int = CONTEXT_AFTER) -> list:
    """Debug lines of the same match game around index `at` (noise lines skipped), the line at
    `at` marked `->`."""
    game = lines[at].game
    out, i = [], at - 1
    while i >= 0 and len(out) < before and lines[i].game == game:
        if not NOISE.match(lines[i].raw):
            out.insert(0, "   " + lines[i].raw[:220])
        i -= 1
    out.append("-> " + lines[at].raw[:220])
    i, tail = at + 1, 0
    while i < len(lines) and tail < after and lines[i].game == game:
        if not NOISE.match(lines[i].raw):
            out.append("   " + lines[i].raw[:220])
            tail += 1
        i += 1
    return out


def last_moves(game: Game, count: int = 4) -> str:
    """The last `count` moves (with numbers, without comments) of a game's movetext."""
    text = re.sub(r"\{[^{}]*\}", "", game.movetext)
    tokens = [t for t in text.split() if t not in RESULTS and t != "*"]
    keep, moves = [], 0
    for token in reversed(tokens):
        keep.insert(0, token)
        if not re.match(r"^\d+\.", token):
            moves += 1
            if moves >= count:
                break
    return " ".join(keep)


def side_of(spec: MatchSpec, role: str | None) -> tuple:
    """(side, who) of the engine playing `role` ("first"/"second"); XBoard for None."""
    if role == "first":
        return "fairymax", OUR_NAME
    if role == "second":
        return ("fairymax", f"{OUR_NAME} (second)") if spec.self_play else ("opponent", spec.opponent_name)
    return "xboard", "xboard"


def role_of_player(spec: MatchSpec, name: str) -> str | None:
    """"first" or "second" for a PGN player name of the match, else None."""
    if name == OUR_NAME:
        return "first"
    if name == spec.opponent_name:
        return "second"
    return None


def game_roles(spec: MatchSpec, game: Game) -> tuple:
    """(role of White, role of Black): from the PGN names, else XBoard's alternation."""
    white = role_of_player(spec, game.headers.get("White", ""))
    black = role_of_player(spec, game.headers.get("Black", ""))
    if white and black and white != black:
        return white, black
    return ("first", "second") if game.number % 2 == 1 else ("second", "first")


def find_line(lines: list, game: int, predicate) -> int | None:
    """Index of the first debug line of match game `game` that satisfies `predicate`."""
    for line in lines:
        if line.game == game and predicate(line):
            return line.index
    return None


def unanswered_ping(lines: list) -> tuple | None:
    """(engine, index) of the last `ping N` that got no `pong N` from an engine not told to quit."""
    pending = {}
    for line in lines:
        words = line.text.split()
        if line.direction == ">" and len(words) == 2 and words[0] == "ping":
            pending[(line.engine, words[1])] = line.index
        elif line.direction == "<" and len(words) == 2 and words[0] == "pong":
            pending.pop((line.engine, words[1]), None)
    quits = {line.engine for line in lines if line.direction == ">" and line.text == "quit"}
    open_pings = [(index, engine) for (engine, _), index in pending.items() if engine not in quits]
    if not open_pings:
        return None
    index, engine = max(open_pings)
    return engine, index


def time_loss_context(lines: list, game: int, loser: str) -> tuple:
    """(index of XBoard's last `time` to the flagged engine, clock text) in match game `game`.

    The clock text gives its time left (centiseconds, as XBoard sent it), when it was
    sent, and when XBoard sent `result` without having had a move (debug timestamps, ms).
    """
    sent = [line for line in lines if line.game == game and line.engine == loser
            and line.direction == ">" and line.text.startswith("time ")]
    if not sent:
        return None, ""
    last = sent[-1]
    start = int(TIMESTAMP.match(last.raw).group(1))
    after = [line for line in lines[last.index:] if line.direction == ">" and line.text.startswith("result ")]
    moved = [line for line in lines[last.index:after[0].index if after else None]
             if line.engine == loser and line.direction == "<" and line.text.startswith("move ")]
    text = f" (XBoard sent it `{last.text}` at {start} ms"
    if after and not moved:
        end = int(TIMESTAMP.match(after[0].raw).group(1))
        text += f"; no move from it when XBoard sent `result` at {end} ms, {end - start} ms later"
    return last.index, text + ")"


def mate_before_draw(lines: list, game: int) -> tuple | None:
    """(engine, move line, thinking line) of the last move of match game `game`, if the
    engine's last thinking line before it scored a mate; else None.

    Thinking lines are `DEPTH SCORE TIME NODES ...`; XBoard's mate scores are 100000 + N
    (mate in N) and their negatives.
    """
    mover, thinking, move = None, {}, None
    for line in lines:
        if line.game != game or line.direction != "<":
            continue
        words = line.text.split()
        if len(words) >= 4 and all(re.fullmatch(r"-?\d+", w) for w in words[:4]):
            thinking[line.engine] = line.text
        elif words[:1] == ["move"]:
            mover, move = line.engine, line.text
    text = thinking.get(mover) if mover else None
    if not text or abs(int(text.split()[1])) < 100000:
        return None
    return mover, move, text.replace("\t", " ")[:120]


def check_match(spec: MatchSpec, run: MatchRun) -> MatchReport:
    """Read a match's PGN, debug log and XBoard output; score it and find every fault."""
    games = parse_pgn(run.pgn)
    lines = parse_debug(run.debug)
    report = MatchReport(spec, games, seconds=run.seconds)
    claims_shown = set()          # (game, role) of Illegal-move replies shown with a termination

    def add(game, role, kind, detail, at=None, extra=(), before=CONTEXT_BEFORE, after=CONTEXT_AFTER):
        side, who = side_of(spec, role)
        ctx = context(lines, at, before, after) if at is not None else []
        report.faults.append(Fault(spec.label, game, side, who, kind, detail, ctx + list(extra)))

    for game in games:
        white, black = game_roles(spec, game)
        ours_white = white == "first"
        if game.result in RESULTS:
            if game.result == "1/2-1/2":
                report.draws += 1
            elif (game.result == "1-0") == ours_white:
                report.wins += 1
            else:
                report.losses += 1
        moves = f"PGN game {game.number}, last moves: {last_moves(game)} {{{game.termination}}} {game.result}"
        # the game's end as XBoard wrote it
        for pattern, kind in TERMINATION_FAULTS:
            if not pattern.search(game.termination):
                continue
            loser = black if game.result == "1-0" else white if game.result == "0-1" else None
            if kind == "engine exited":
                named = re.search(r"\b(first|second)\b", game.termination)
                loser = named.group(1) if named else loser
            at, detail, blamed = None, game.termination, loser
            if kind == "false illegal-move claim" and loser:
                at = find_line(lines, game.number, lambda x: x.engine == loser and x.direction == "<"
                               and x.text.startswith("Illegal move"))
                claims_shown.add((game.number, loser))
            elif kind in ("false win claim", "false draw claim") and loser:
                claim = re.search(r"'(.*)'", game.termination)
                at = find_line(lines, game.number, lambda x: x.engine == loser and x.direction == "<"
                               and x.text.startswith(RESULTS) and bool(claim) and claim.group(1) in x.text)
                unknown = XBOARD_UNKNOWN_WINS.get(spec.variant)
                if kind == "false win claim" and unknown and unknown[0].match(last_moves(game, 1)):
                    blamed = None
                    detail += (f" -- but the claim of {side_of(spec, loser)[1]} is right: in {spec.variant} "
                               f"{unknown[1]}, a rule XBoard does not know, so it cannot judge the claim "
                               f"(W-L-D follows the PGN's {game.result})")
            elif kind == "time loss" and loser:
                at, clock = time_loss_context(lines, game.number, loser)
                detail += clock
            window = (3, 16) if kind == "time loss" and at is not None else (CONTEXT_BEFORE, CONTEXT_AFTER)
            if at is None:
                at = find_line(lines, game.number, lambda x: x.raw.startswith("GameEnds(")
                               and game.termination[:40] in x.raw)
            add(game.number, blamed, kind, detail, at, [moves], *window)
            break
        if game.result not in RESULTS:
            at = find_line(lines, game.number,
                           lambda x: x.raw.startswith("GameEnds(") and "(null)" not in x.raw)
            add(game.number, None, "unfinished game",
                f'result "{game.result}" {{{game.termination}}}', at, [moves])
        # the [Variant] tag
        tag = game.headers.get("Variant")
        if tag != spec.expected_tag:
            add(game.number, None, "Variant tag",
                f"expected {spec.expected_tag or 'no Variant tag'}, PGN has {tag or 'none'}")
    # games missing from the PGN: a hang, a crash or a timeout
    if len(games) < spec.games or run.returncode != 0:
        hang = unanswered_ping(lines)
        role, at = hang if hang else (None, len(lines) - 1 if lines else None)
        why = f"{len(games)} of {spec.games} games in the PGN, xbmatch exit status {run.returncode}"
        if hang:
            why += f"; the {role} engine never answered its last ping"
        tail = [line for line in run.output.splitlines() if line.strip()][-5:]
        add(None, role, "missing games" if len(games) < spec.games else "match error", why,
            at, ["xboard output: " + t for t in tail])
    # lines the engines sent
    for line in lines:
        if line.direction != "<":
            continue
        ours = line.engine == "first" or spec.self_play
        if not ours and OPPONENT_QUIRKS.match(line.text):
            report.quirks[line.text] = report.quirks.get(line.text, 0) + 1
            continue
        for pattern, kind in LINE_FAULTS:
            if pattern.match(line.text):
                if kind == "Illegal-move reply" and (line.game, line.engine) in claims_shown:
                    break
                add(line.game or None, line.engine, kind, line.text, line.index)
                break
        else:
            if ours and not OUR_OUTPUT.match(line.text):
                add(line.game or None, line.engine, "unexpected output", line.text, line.index)
    # XBoard's own output
    for text in run.output.splitlines():
        if re.match(r"^(xboard: Match .* final score|# )", text) or not text.strip():
            continue
        if XBOARD_TROUBLE.search(text):
            role = "first" if "first" in text else "second" if "second" in text else None
            add(None, role, "xboard message", text.strip())
        else:
            report.notes.append(f"xboard output: {text.strip()}")
    # draws XBoard adjudicated although the engine that moved last scored its move a mate:
    # the engine and XBoard differ on the rule (not a protocol fault, so a note)
    for game in games:
        if game.result == "1/2-1/2" and game.termination.startswith("Xboard adjudication"):
            found = mate_before_draw(lines, game.number)
            if found:
                who = side_of(spec, found[0])[1]
                report.notes.append(f"game {game.number} {{{game.termination}}} after {who}'s "
                                    f"`{found[1]}` scored as a mate: `{found[2]}`")
    # the two engines' start positions (first setup line each) should agree
    setups = {}
    for line in lines:
        if line.direction == "<" and line.text.startswith("setup ") and line.engine not in setups:
            boards = [word for word in line.text.split()[1:] if "/" in word and "(" not in word]
            setups[line.engine] = boards[0] if boards else ""
    if len(setups) == 2 and setups["first"] != setups["second"]:
        report.notes.append(f"start positions differ: first {setups['first']}, second {setups['second']}")
    return report


# ---------------------------------------------------------------- reporting
def summary_line(report: MatchReport) -> str:
    """One line per match: opponent, ponder, games, W-L-D from fairymax's side, faults per side."""
    spec = report.spec
    return (f"{spec.label:<24} vs {spec.opponent_label:<15} {'ponder' if spec.ponder else 'no ponder':<9} "
            f"games {len(report.games)}/{spec.games}  W-L-D {report.wins}-{report.losses}-{report.draws}  "
            f"faults: fairymax {report.count('fairymax')}, opponent {report.count('opponent')}, "
            f"xboard {report.count('xboard')}  ({report.seconds:.0f} s)")


def totals(reports: list) -> dict:
    """Sums over the matches: games played and planned, W-L-D, faults per side."""
    total = {"matches": len(reports), "games": 0, "planned": 0, "wins": 0, "losses": 0, "draws": 0}
    for r in reports:
        total["games"] += len(r.games)
        total["planned"] += r.spec.games
        total["wins"] += r.wins
        total["losses"] += r.losses
        total["draws"] += r.draws
    for side in SIDES:
        total[side] = sum(r.count(side) for r in reports)
    return total


def total_line(reports: list) -> str:
    """The final total as one line."""
    t = totals(reports)
    return (f"total: {t['matches']} matches, games {t['games']}/{t['planned']}, "
            f"W-L-D {t['wins']}-{t['losses']}-{t['draws']}, faults: fairymax {t['fairymax']}, "
            f"opponent {t['opponent']}, xboard {t['xboard']}")


def fault_text(fault: Fault) -> list:
    """A fault's heading line, then its context lines indented."""
    game = f"game {fault.game}" if fault.game else "match"
    lines = [f"{fault.label}, {game}: {fault.who} ({fault.side}): {fault.kind}: {fault.detail}"]
    lines += ["    " + c for c in fault.context]
    return lines


def markdown(reports: list, header: dict, pending: list) -> str:
    """The report file: command, date, settings, the table, faults, notes, totals."""
    out = ["# XBoard sweep", "",
           f"Command: `{header['command']}`  ",
           f"Date: {header['date']}  ",
           *([f"Checked again: `{header['rechecked']}`  "] if "rechecked" in header else []),
           f"Commit: {header['commit']}; XBoard: {header['xboard']}; opponent: {header['opponent']}  ",
           f"Time control: `-tc {header['tc']} -inc {header['inc']}`, {header['games']} games per match, "
           f"ponder: {header['ponder']}, jobs: {header['jobs']}  ",
           f"Work dirs (PGN, xboard.debug, xboard.out per match): `{header['workdir']}`", "",
           "fairymax is XBoard's first engine; W-L-D is from its side. The checks and how faults are "
           "attributed are described in the docstring of `scripts/xboard_sweep.py`. The `[Variant]` "
           "tag must be absent for normal and equal to the variant name otherwise (\"fairy\" for the "
           "`fairy:ARMY` matches), which is what XBoard 4.9.1 writes for both its own variants and "
           "engine-defined ones (`setup ... WxH+0_parent`): it names the game by its `-variant`.", "",
           "| variant | opponent | ponder | games | W-L-D | fairymax faults | opponent faults "
           "| xboard faults | s |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in reports:
        s = r.spec
        out.append(f"| {s.label} | {s.opponent_label} | {'yes' if s.ponder else 'no'} | "
                   f"{len(r.games)}/{s.games} | "
                   f"{r.wins}-{r.losses}-{r.draws} | {r.count('fairymax')} | {r.count('opponent')} | "
                   f"{r.count('xboard')} | {r.seconds:.0f} |")
    for spec in pending:
        out.append(f"| {spec.label} | {spec.opponent_label} | {'yes' if spec.ponder else 'no'} "
                   "| not yet played | | | | | |")
    out += ["", f"**{total_line(reports)}**", "", "## Faults", ""]
    faults = [f for r in reports for f in r.faults]
    if not faults:
        out.append("None.")
    for f in faults:
        text = fault_text(f)
        out += [f"- {text[0]}", "", "  ```"] + ["  " + line.strip() for line in text[1:]] + ["  ```", ""]
    notes = [f"{r.spec.label}: {n}" for r in reports for n in r.notes]
    quirks = {}
    for r in reports:
        for text, count in r.quirks.items():
            times, matches = quirks.get(text, (0, 0))
            quirks[text] = (times + count, matches + 1)
    notes += [f"{FAIRYMAX_NAME} sent `{text}` {times} times in {matches} matches (a command it does not "
              "implement; harmless, not counted)" for text, (times, matches) in quirks.items()]
    out += ["", "## Notes", ""] + ([f"- {n}" for n in notes] or ["None."])
    return "\n".join(out) + "\n"


def xboard_version() -> str:
    """First line of `xboard --version`, e.g. "xboard version 4.9.1"."""
    try:
        proc = subprocess.run(["/usr/games/xboard", "--version"], capture_output=True, text=True, timeout=10,
                              env={"PATH": "/usr/games:/usr/bin:/bin", "HOME": "/tmp"})
        text = (proc.stdout + proc.stderr).strip().splitlines()
        return text[0] if text else "xboard"
    except (OSError, subprocess.SubprocessError):
        return "xboard"


def commit() -> str:
    """Short HEAD hash, marked when tracked files have uncommitted changes."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev + (" + uncommitted changes" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def parse_args(argv):
    """The command-line options (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="\n".join(__doc__.splitlines()[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=4, help="games per match (default 4)")
    ap.add_argument("--variants", default="", help="comma-separated subset of the announced variants")
    ap.add_argument("--tc", default="0:06", help="XBoard -tc: minutes or min:sec (default 0:06)")
    ap.add_argument("--inc", type=float, default=0.1, help="XBoard -inc in seconds (default 0.1)")
    ap.add_argument("--ponder", choices=("off", "alternate", "on"), default="alternate",
                    help="-ponderNextMove true in no, every other (default) or every match")
    ap.add_argument("--jobs", type=int, choices=(1, 2), default=1, help="XBoard matches at once (default 1)")
    ap.add_argument("--fairy-armies", default=DEFAULT_ARMIES,
                    help=f"extra fairy matches, one per army (default {DEFAULT_ARMIES}; '' for none)")
    ap.add_argument("--out", default="results/xboard_sweep.md",
                    help="report file (default results/xboard_sweep.md)")
    ap.add_argument("--workdir", default="results/tmp/xboard_sweep", help="per-match directories")
    ap.add_argument("--recheck", action="store_true",
                    help="do not play: check the work dirs of an earlier run")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    """Plan, play (or recheck) and report the sweep; 1 if fairymax has a fault, else 0."""
    args = parse_args(argv)
    words = sys.argv[1:] if argv is None else argv
    command = "python scripts/xboard_sweep.py " + shlex.join(words)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    saved = Path(args.workdir) / "sweep.json"
    header = None
    if args.recheck and saved.exists():
        # the plan and the report header of the run that played the games
        header = json.loads(saved.read_text())
        args = parse_args(header["argv"])
        args.recheck = True
        header["rechecked"] = f"{command} ({now})"
    our_cmd = shlex.join([sys.executable, str(ROOT / "xboard.py")])
    ours = read_features(our_cmd)
    if not ours.variants:
        print("xboard_sweep: fairymax announced no variants", file=sys.stderr)
        return 2
    theirs = read_features(FAIRYMAX) if Path(FAIRYMAX).exists() else None
    specs = plan(args, ours, theirs, our_cmd)
    if header is None:
        header = {"command": command, "argv": list(words), "date": now, "commit": commit(),
                  "xboard": xboard_version(),
                  "opponent": f"{theirs.name} ({FAIRYMAX})" if theirs else "none (self-play)",
                  "tc": args.tc, "inc": args.inc, "games": args.games, "ponder": args.ponder,
                  "jobs": args.jobs, "workdir": args.workdir}
        if not args.recheck:
            saved.parent.mkdir(parents=True, exist_ok=True)
            saved.write_text(json.dumps(header, indent=1) + "\n")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {}
    lock = threading.Lock()
    last_start = [0.0]

    def one(spec: MatchSpec) -> MatchReport:
        if args.recheck:
            return check_match(spec, load_run(spec.workdir))
        with lock:
            wait = last_start[0] + XVFB_START_GAP_S - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            last_start[0] = time.monotonic()
        return check_match(spec, run_match(spec, our_cmd))

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(one, spec): spec for spec in specs}
        for future in concurrent.futures.as_completed(futures):
            report = future.result()
            with lock:
                done[report.spec.label] = report
                print(summary_line(report), flush=True)
                reports = [done[s.label] for s in specs if s.label in done]
                pending = [s for s in specs if s.label not in done]
                out.write_text(markdown(reports, header, pending))
    reports = [done[s.label] for s in specs]
    faults = [f for r in reports for f in r.faults]
    print()
    for r in reports:
        print(summary_line(r))
    if faults:
        print("\nfaults:")
        for f in faults:
            print("\n".join(fault_text(f)))
    print(total_line(reports))
    print(f"report: {out}")
    return 1 if any(f.side == "fairymax" for f in faults) else 0


if __name__ == "__main__":
    sys.exit(main())
