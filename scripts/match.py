#!/usr/bin/env python3
"""Referee-based match runner: our engine against CECP (XBoard) or UCI engines, with SPRT.

Our Board is the referee: it checks every move, ends games by rule (mate,
stalemate, repetition, 50 moves, bare king, ...) and judges engines' claims, so
every variant of pieces.ini can be played.  Each opening is played twice with
colours swapped: rounds 2k-1 and 2k are game pair k, engine 1 has White in the odd
round.  Games are appended to a PGN as they finish; `--resume` rebuilds the
results, pairs included, from the PGN's Round tags and plays only what is missing
(the missing half of a pair starts from the opening its partner game recorded).

Engines.  A command is a CECP engine, or a UCI engine when prefixed `uci:`
(`uci:/usr/games/stockfish`, `uci:/usr/games/gnuchess --uci`): the runner talks
UCI itself, sets UCI_Variant for variants (Fairy-Stockfish's names: normal is
chess, king-of-the-hill kingofthehill, los-alamos losalamos) and translates the
moves (UCI counts the ranks of a 10-rank board from 1, XBoard from 0).
Gauntlet: `--engine2` may be given several times and `--gauntlet FILE` lists more
opponents, one command a line; each plays `--games` against engine 1, with a
summary per opponent (Round tags are then "OPPONENT.GAME", e.g. "2.15"; keep the
opponents in the same order when resuming).  Time odds: `--odds2 N` gives every
engine 2 1/N of the base time and increment (or of --st), like XBoard's
-secondTimeOdds; `COMMAND@odds=N` sets them for one opponent.

Openings.  Random legal plies from `--seed` (the default); with `--balanced CP`
only those that a depth `--balanced-depth` search of our engine scores within
+-CP centipawns; or `--openings FILE`, used in order and cycled: one opening a
line, either moves in our XBoard coordinate notation from the variant's start
position (every engine can take these, Fairy-Max has no setboard) or a FEN/EPD
position (engines need setboard; UCI engines get `position fen`).  `--write-openings
FILE --count N` writes a generated set (with the command in its header) instead of
playing; with `--fen` it writes the positions the generated moves reach, as FENs: set-up
start positions (scripts/openings/setup_VARIANT.txt).

Pondering.  `--ponder` lets both engines think on the opponent's time.  A CECP engine
gets `hard` and ponders by itself, so its move may come as soon as it is sent the
opponent's move; a UCI engine with a Ponder option gets `setoption name Ponder value
true` and is driven by the runner: after `bestmove X ponder Y` it gets the game with X
and Y and `go ponder` (with the clocks of that moment) while the opponent thinks; the
opponent's move is then a `ponderhit` if it was Y, else a `stop` (the bestmove that
answers it is dropped) and a normal `go`.  A clock runs from the moment the runner sends an engine
the opponent's move (or ponderhit), pondering or not.  Both engines think at once:
play such games one at a time (`--concurrency 1`) on a machine with two cores.

Faults.  The Termination tag says how a game ended: a rule ("White mates",
"Stalemate", ...), "Max length adjudication", or a forfeit "White|Black REASON" whose
kind `termination_kind` tells (time, no answer, illegal move, false claim, crash,
resignation).  What an engine did wrong without losing the game goes in an
`Incidents` tag: lines it wrote on stderr, protocol error lines (CECP `Error`,
`tellusererror`; UCI `info string` replies to bad input; our engine's reports of an
exception it caught, as `#` or `info string` lines), a ponder move that is no
legal move, a restart after the game (it died, or gave no answer to ping/isready), a
clock overstepped by less than `--grace` (no loss then), a move that took longer than
`--st`, the grace and 0.1 s.
`--fault-log FILE` appends all engine traffic of every game with a forfeit or an
incident to FILE (`--log` writes all games' traffic).  `--post` has the CECP engines
show their thinking, so that the log holds what every engine searched (UCI engines
send their `info` lines anyway); `scripts/think_stats.py` reads each engine's depth,
time and nodes a move from it.

SPRT.  `--sprt ELO0,ELO1` (logistic Elo; `--alpha`, `--beta`, default 0.05)
prints after every pair the log-likelihood ratio of the pair results (counts of
pairs scoring 0, 1/2, 1, 3/2, 2: the pentanomial model, LLR as fishtest's) and
stops an opponent's games when it crosses a bound ("H1 accepted": engine 1 is
ELO1 stronger; "H0 accepted": ELO0); `--games` is then only a cap.

    python scripts/match.py --games 200 --tc 10+0.1 --pgn results/fm.pgn --resume
    python scripts/match.py --sprt 0,20 --tc 5+0.05 --concurrency 2 \\
        --engine2 "python ../base/xboard.py" --openings scripts/openings/chess_balanced.txt
    python scripts/match.py --variant capablanca --engine2 uci:/usr/games/fairy-stockfish@odds=10
    python scripts/match.py --write-openings FILE --count 100 --balanced 60 --opening-plies 8
    python scripts/match.py --variant shatranj --fen --count 30 --opening-plies 9 \\
        --balanced 120 --balanced-depth 6 --write-openings scripts/openings/setup_shatranj.txt
    python scripts/match.py --ponder --engine2 "uci:python xboard.py" --tc 2+0.05

Prints W-L-D from engine 1's side, its score and Elo with a 95% interval, per game
(trinomial) and per pair (pentanomial).  Bad input (an engine that cannot be
started or cannot play the variant, an unreadable file, an unknown variant) gets
one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import platform
import queue
import random
import re
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FAIRYMAX = "/usr/games/fairymax"
RESULT_RE = re.compile(r"^(1-0|0-1|1/2-1/2)\s*(\{(.*)\})?")
UCI_PREFIX = "uci:"
# our variant names that Fairy-Stockfish's UCI_Variant spells otherwise (the rest agree)
# (greatshatranj: our UCI front end's name for great; Fairy-Stockfish has no built-in one)
UCI_VARIANT_NAMES = {"normal": "chess", "king-of-the-hill": "kingofthehill",
                     "los-alamos": "losalamos", "Cambodian": "cambodian", "Ai-wok": "ai-wok",
                     "great": "greatshatranj"}
# Fairy-Stockfish's courier starts with the traditional pawn and ferz moves made:
# it is sent our start array as a FEN instead.  (Rules that still differ from
# Fairy-Stockfish 11.1: in cambodian our king, as Fairy-Max's, may also leap to c3/e3;
# in seirawan our Board has no castling that gates on the rook's square, h1e1h.)
UCI_OWN_START = {"courier"}
BALANCE_TRIES = 500             # random openings tried per pair before --balanced gives up
ST_MARGIN_S = 0.1               # past --st and --grace, a move's time is an incident
STOP_WAIT_S = 5.0               # a UCI engine's time to answer `stop` of a missed ponder
MAX_INCIDENT_TEXT = 600         # characters of a game's Incidents tag
# engine output that reports a fault without ending the game: an incident (with our
# engine's messages of a caught exception, "internal error ..." and "search error ...")
CECP_ERROR_LINE = re.compile(r"^(Error\b|tellusererror\b"
                             r"|# (internal error|search error|Traceback))")
UCI_ERROR_LINE = re.compile(r"^(info string (unknown|bad|illegal|no valid|move \S+ not played"
                            r"|internal error|search error|Traceback)"
                            r"|Unknown command|No such option)", re.I)
# the kinds of forfeit (the Termination tag is "White|Black " and one of these texts,
# as play_game and the engines' wait_move write them); any other ending is by rule
FORFEIT_KINDS = [
    (re.compile(r"^loses on time \(no move\)|^plays no move|^bestmove while pondering"
                r"|^no bestmove after stop"), "no answer"),
    (re.compile(r"^loses on time$"), "time"),
    (re.compile(r"^illegal move "), "illegal move"),
    (re.compile(r"^false (illegal-move )?claim"), "false claim"),
    (re.compile(r"^(crashed|died)$"), "crash"),
    (re.compile(r"^resigns"), "resignation"),
]
NOT_FAULTS = {"rule", "resignation"}        # the other kinds are an engine's fault


def termination_kind(termination: str) -> str:
    """How a game ended, from its Termination tag: "rule" (mate, stalemate, repetition,
    ... or the referee's length limit), or a forfeit kind of FORFEIT_KINDS; an unknown
    "White ..."/"Black ..." text is "other forfeit"."""
    side, _, reason = termination.partition(" ")
    if side not in ("White", "Black"):
        return "rule"
    for pattern, kind in FORFEIT_KINDS:
        if pattern.search(reason):
            return kind
    # the texts of Board.outcome that start with a colour
    return "rule" if re.fullmatch(r"mates|is stalemated|reaches the hill|has a bare king",
                                  reason) else "other forfeit"


# ---------------------------------------------------------------- engines
class EngineDied(Exception):
    """An engine's output ended or its pipe broke; the argument is its label."""


class BadInput(Exception):
    """Input the runner cannot use (an engine that does not start, a bad file): exit status 2."""


class Forfeit(Exception):
    """The engine to move lost by its reply; the text says how ("resigns", ...)."""


@dataclass
class TimeControl:
    """One engine's time: BASE+INC seconds, or `st` seconds a move."""
    base: float
    inc: float
    st: float | None = None

    def with_odds(self, odds: float) -> "TimeControl":
        st = None if self.st is None else self.st / odds
        return TimeControl(self.base / odds, self.inc / odds, st)

    def pgn(self) -> str:
        return f"{self.st:g}s/move" if self.st is not None else f"{self.base:g}+{self.inc:g}"


@dataclass
class GameSetup:
    """What both engines are told before the first move of a game."""
    variant: str
    fen: str                    # the start position: the variant's, or the opening's FEN
    custom: bool                # fen came from the opening (engines need setboard)
    ranks: int                  # board height
    book: list
    depth: int | None = None


class EngineProcess:
    """An engine process with reader threads for its output and its stderr; the
    protocols are the subclasses.  Incidents (see the module's docstring) are kept in
    `incidents` until take_incidents()."""

    ERROR_LINE: "re.Pattern | None" = None      # output lines that are incidents
    MAX_INCIDENTS = 50                          # kept between two take_incidents()

    def __init__(self, command: str, name: str, options=(), memory: int | None = None,
                 log=None, ponder: bool = False, post: bool = False):
        self.command, self.options, self.memory = command, list(options), memory
        self.label = name
        self.name = name
        self.log = log
        self.ponder = ponder            # think on the opponent's time
        self.post = post                # CECP: show thinking lines (for the log)
        self.proc = None
        self.stderr_reader: threading.Thread | None = None
        self.incident_lock = threading.Lock()
        self.incidents: list = []
        self.start()

    def spawn(self) -> None:
        try:
            argv = shlex.split(self.command)
            self.proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, bufsize=1, errors="replace")
        except (OSError, ValueError, IndexError) as err:
            raise BadInput(f"cannot start engine {self.command!r}: {err}")
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.stderr_reader = threading.Thread(target=self._read_stderr, args=(self.proc,),
                                              daemon=True)
        self.stderr_reader.start()

    def start(self) -> None:
        raise NotImplementedError

    @staticmethod
    def _read(proc, lines):
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def _read_stderr(self, proc) -> None:
        for line in proc.stderr:
            self.note(f"stderr: {line.rstrip()}")

    def note(self, text: str) -> None:
        """Record an incident of this engine."""
        if self.log:
            self.log(f"{self.label}! {text}")
        with self.incident_lock:
            if len(self.incidents) < self.MAX_INCIDENTS:
                self.incidents.append(f"{self.label} {text}")
            elif len(self.incidents) == self.MAX_INCIDENTS:
                self.incidents.append(f"{self.label} more incidents not kept")

    def take_incidents(self) -> list:
        """The incidents recorded since the last call."""
        with self.incident_lock:
            taken, self.incidents = self.incidents, []
        return taken

    def exit_status(self) -> str:
        """How the process ended ("exit status N", "signal N"), waiting up to 1 s."""
        try:
            code = self.proc.wait(1)
        except subprocess.TimeoutExpired:
            return "still running"
        if self.stderr_reader:
            self.stderr_reader.join(1)          # its last words are incidents too
        return f"signal {-code}" if code < 0 else f"exit status {code}"

    def take_guess(self) -> str | None:
        """The opponent move to ponder on, where the runner drives the pondering (UCI)."""
        return None

    def start_ponder(self, moves: list, side: int, clocks: list, controls: list) -> None:
        """Think on the opponent's time on `moves` (the game and the expected move)."""

    def send(self, *lines: str) -> None:
        try:
            for line in lines:
                if self.log:
                    self.log(f"{self.label}< {line}")
                self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineDied(self.label)

    def get(self, timeout: float) -> str | None:
        """Next output line, or None on timeout; EngineDied at end of output."""
        try:
            line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if line is None:
            self.lines.put(None)
            raise EngineDied(self.label)
        if self.log:
            self.log(f"{self.label}> {line}")
        if self.ERROR_LINE and self.ERROR_LINE.match(line):
            self.note(f"said: {line}")
        return line

    def recover(self, sync_ok: bool | None) -> None:
        """After a game: restart the engine, noting why, if it died (sync_ok None) or gave
        no answer to ping/isready (sync_ok False)."""
        if sync_ok:
            return
        if sync_ok is None:
            self.note(f"exited ({self.exit_status()}); restarted")
            self.start()                        # close() would note the exit again
        else:
            self.note("gave no answer to ping/isready after the game; restarted")
            self.restart()

    def restart(self) -> None:
        self.close()
        self.start()

    def close(self) -> None:
        """Quit the engine (killed if it has not quit in 2 s); an exit status other than 0
        is an incident."""
        if not self.proc:
            return
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(2)
            except (EngineDied, subprocess.TimeoutExpired):
                if self.proc.poll() is None:
                    self.note("did not quit within 2 s; killed")
                    self.proc.kill()
                self.proc.wait()
                return
        status = self.exit_status()
        if status != "exit status 0":
            self.note(f"exited ({status}) on quit")


class Engine(EngineProcess):
    """One CECP engine process."""

    ERROR_LINE = CECP_ERROR_LINE

    def start(self) -> None:
        self.spawn()
        self.features: dict = {}
        self.ping_n = 0
        self.told = 0               # moves of the current game the engine knows
        self.playing = False        # has had `go` this game
        self.side = 0               # the colour it was last asked to move for
        try:
            self.send("xboard", "protover 2")
            deadline = time.monotonic() + 2.0
            while True:
                line = self.get(deadline - time.monotonic())
                if line is None:
                    break                      # no done=1 within 2 s: protocol 1 style
                if line.startswith("feature "):
                    for key, value in re.findall(r'(\w+)=("[^"]*"|\S+)', line[8:]):
                        self.features[key] = value.strip('"')
                        if key != "option":
                            self.send(f"accepted {key}")
                        if key == "done":
                            deadline = time.monotonic() + (3600 if value == "0" else 0)
                    if self.features.get("done") == "1":
                        break
        except EngineDied:
            raise BadInput(f"engine {self.command!r} exited during the CECP handshake")
        self.name = self.features.get("myname", self.label)
        if self.memory and self.features.get("memory") == "1":
            self.send(f"memory {self.memory}")
        for option in self.options:
            self.send(f"option {option}")

    def check(self, variant: str, needs_setboard: bool) -> None:
        """BadInput unless this engine can play `variant` and, if needed, take FENs."""
        offered = self.features.get("variants")
        # Fairy-Max names "fairy" for our "fairy/..." variants and lowercase aliases
        if variant != "normal" and offered is not None and \
                variant.split("/")[0].lower() not in {v.lower() for v in offered.split(",")}:
            raise BadInput(f"engine {self.command!r} does not play variant {variant}")
        if needs_setboard and self.features.get("setboard") != "1":
            raise BadInput(f"engine {self.command!r} has no setboard for FEN openings; "
                           "use openings written as moves")

    def sync(self, timeout: float = 10.0) -> bool:
        """ping/pong (or a short pause for engines without ping); output before it is dropped."""
        if self.features.get("ping") != "1":
            time.sleep(0.3)
            while not self.lines.empty():
                self.get(0)
            return True
        self.ping_n += 1
        self.send(f"ping {self.ping_n}")
        deadline = time.monotonic() + timeout
        while True:
            line = self.get(deadline - time.monotonic())
            if line is None:
                return False
            if line.strip() == f"pong {self.ping_n}":
                return True

    def move_cmd(self, text: str) -> str:
        return f"usermove {text}" if self.features.get("usermove") == "1" else text

    def start_game(self, setup: GameSetup, control: TimeControl) -> None:
        self.send("new")
        if setup.variant != "normal":
            self.send(f"variant {setup.variant}")
        if control.st is not None:
            st = control.st
            self.send(f"st {int(st) if st == int(st) else st}")
        else:
            self.send(f"level 0 {fmt_base(control.base)} {control.inc:g}")
        if setup.depth:
            self.send(f"sd {setup.depth}")
        self.send("hard" if self.ponder else "easy", "force")
        if self.post:
            self.send("post")
        if setup.custom:
            self.send(f"setboard {setup.fen}")
        for text in setup.book:
            self.send(self.move_cmd(text))
        self.told, self.playing = len(setup.book), False
        if not self.sync():
            raise EngineDied(self.label)

    def go(self, moves: list, side: int, clocks: list, controls: list) -> None:
        """Ask for a move after `moves`; before its first `go` it is still in force mode."""
        def clock_lines():
            if controls[side].st is None:
                self.send(f"time {max(1, int(clocks[side] * 100))}",
                          f"otim {max(1, int(clocks[1 - side] * 100))}")
        self.side = side
        if self.playing:
            clock_lines()
            self.send(*(self.move_cmd(text) for text in moves[self.told:]))
        else:
            self.send(*(self.move_cmd(text) for text in moves[self.told:]))
            clock_lines()
            self.send("go")
            self.playing = True
        self.told = len(moves) + 1          # its own reply included

    def wait_move(self, deadline: float) -> str:
        """The move text it plays; Forfeit for a resignation, a false claim or no move in time."""
        while True:
            line = self.get(deadline - time.monotonic())
            if line is None:
                raise Forfeit("loses on time (no move)")
            if line.startswith("move "):
                return line.split()[1]
            if line.strip() == "resign" or "resign" in line.lower() and RESULT_RE.match(line):
                raise Forfeit("resigns")
            if line.startswith("Illegal move"):
                raise Forfeit(f"false illegal-move claim: {line}")
            claim = RESULT_RE.match(line)
            if claim:
                if claim.group(1) == ("0-1" if self.side == 0 else "1-0"):
                    raise Forfeit(f"resigns ({claim.group(3) or ''})")
                raise Forfeit(f"false claim: {line}")

    def end_game(self, result: str, reason: str) -> None:
        try:
            self.send(f"result {result} {{{reason}}}", "force")
            answered = self.sync(5.0)
        except EngineDied:
            answered = None
        self.recover(answered)


class UciEngine(EngineProcess):
    """One UCI engine process, told the whole game before every `go`.

    Pondering (self.ponder): after `bestmove X ponder Y`, take_guess() gives Y and
    start_ponder() sends the game with X and Y and `go ponder`; the next go() sends
    `ponderhit` if the game is the one pondered on, else `stop`, drops the bestmove that
    answers it and sends the position and `go`."""

    ERROR_LINE = UCI_ERROR_LINE

    def start(self) -> None:
        self.spawn()
        self.uci_options: dict = {}         # name -> the rest of its "option name" line
        self.thinking = False               # a `go` (ponder too) awaits its bestmove
        self.guess: str | None = None       # the ponder move of the last bestmove
        self.pondered: list | None = None   # the moves of the ponder search running
        self.position = "startpos"
        self.depth: int | None = None
        self.height = 8
        try:
            self.send("uci")
            deadline = time.monotonic() + 10.0
            while True:
                line = self.get(deadline - time.monotonic())
                if line is None:
                    raise BadInput(f"engine {self.command!r} sent no uciok within 10 s")
                if line.startswith("id name "):
                    self.name = line[8:].strip()
                option = re.match(r"option name (.+?) type (.*)", line)
                if option:
                    self.uci_options[option.group(1)] = option.group(2)
                if line.strip() == "uciok":
                    break
        except EngineDied:
            raise BadInput(f"engine {self.command!r} exited during the UCI handshake")
        if self.memory and "Hash" in self.uci_options:
            self.send(f"setoption name Hash value {self.memory}")
        if self.ponder and "Ponder" in self.uci_options:
            self.send("setoption name Ponder value true")
        for option in self.options:
            name, _, value = option.partition("=")
            self.send(f"setoption name {name} value {value}")

    def check(self, variant: str, needs_setboard: bool) -> None:
        """BadInput unless the engine's UCI_Variant offers `variant` (UCI takes FENs always)."""
        if variant == "normal":
            return
        wanted = UCI_VARIANT_NAMES.get(variant, variant)
        offered = re.findall(r"\bvar (\S+)", self.uci_options.get("UCI_Variant", ""))
        if wanted not in offered:
            raise BadInput(f"engine {self.command!r} does not play variant {variant} "
                           f"(no UCI_Variant {wanted})")

    def sync(self, timeout: float = 30.0) -> bool:
        """isready/readyok; output before it is dropped."""
        self.send("isready")
        deadline = time.monotonic() + timeout
        while True:
            line = self.get(deadline - time.monotonic())
            if line is None:
                return False
            if line.strip() == "readyok":
                return True

    def start_game(self, setup: GameSetup, control: TimeControl) -> None:
        self.send("ucinewgame")
        if setup.variant != "normal":
            name = UCI_VARIANT_NAMES.get(setup.variant, setup.variant)
            self.send(f"setoption name UCI_Variant value {name}")
        own_start = setup.custom or setup.variant in UCI_OWN_START
        self.position = f"fen {uci_fen(setup.fen, setup.ranks)}" if own_start else "startpos"
        self.depth, self.height, self.thinking = setup.depth, setup.ranks, False
        self.guess = self.pondered = None
        if not self.sync():
            raise EngineDied(self.label)

    def position_line(self, moves: list) -> str:
        position = f"position {self.position}"
        if moves:
            position += " moves " + " ".join(to_uci(text, self.height) for text in moves)
        return position

    def limits(self, side: int, clocks: list, controls: list) -> str:
        """The limits of a `go` for `side` (clocks in seconds)."""
        limits = []
        own = controls[side]
        if own.st is not None:
            limits.append(f"movetime {max(1, int(own.st * 1000))}")
        elif not (self.depth and own.base <= 0):
            white_ms, black_ms = (max(1, int(clock * 1000)) for clock in clocks)
            limits.append(f"wtime {white_ms} btime {black_ms} "
                          f"winc {int(controls[0].inc * 1000)} binc {int(controls[1].inc * 1000)}")
        if self.depth:
            limits.append(f"depth {self.depth}")
        return " ".join(limits)

    def go(self, moves: list, side: int, clocks: list, controls: list) -> None:
        if self.pondered is not None:
            pondered, self.pondered = self.pondered, None
            self.check_ponder_quiet()
            if moves == pondered:
                self.send("ponderhit")
                return
            self.send("stop")
            self.drop_bestmove()
        self.send(self.position_line(moves), f"go {self.limits(side, clocks, controls)}".rstrip())
        self.thinking = True

    def take_guess(self) -> str | None:
        guess, self.guess = self.guess, None
        return guess if self.ponder and "Ponder" in self.uci_options else None

    def start_ponder(self, moves: list, side: int, clocks: list, controls: list) -> None:
        self.send(self.position_line(moves),
                  f"go ponder {self.limits(side, clocks, controls)}".rstrip())
        self.thinking = True
        self.pondered = list(moves)

    def check_ponder_quiet(self) -> None:
        """Forfeit if a bestmove came while pondering (UCI allows none before ponderhit
        or stop); the output so far is dropped."""
        while not self.lines.empty():
            line = self.get(0)
            if line is not None and line.startswith("bestmove"):
                raise Forfeit(f"bestmove while pondering: {line}")

    def drop_bestmove(self) -> None:
        """Wait for the bestmove that answers `stop`; Forfeit after STOP_WAIT_S."""
        deadline = time.monotonic() + STOP_WAIT_S
        while True:
            line = self.get(deadline - time.monotonic())
            if line is None:
                raise Forfeit(f"no bestmove after stop within {STOP_WAIT_S:g} s")
            if line.startswith("bestmove"):
                self.thinking = False
                return

    def wait_move(self, deadline: float) -> str:
        while True:
            line = self.get(deadline - time.monotonic())
            if line is None:
                raise Forfeit("loses on time (no move)")
            if line.startswith("bestmove"):
                self.thinking = False
                words = line.split()
                if len(words) < 2 or words[1] in ("(none)", "0000"):
                    raise Forfeit(f"plays no move: {line}")
                ponder = len(words) >= 4 and words[2] == "ponder"
                self.guess = from_uci(words[3], self.height) if ponder else None
                return from_uci(words[1], self.height)

    def end_game(self, result: str, reason: str) -> None:
        self.guess = self.pondered = None
        try:
            if self.thinking:
                self.send("stop")
            answered = self.sync(5.0)
            self.thinking = False
        except EngineDied:
            answered = None
        self.recover(answered)


def shift_ranks(text: str, shift: int) -> str:
    """Move text with each square's rank number moved by `shift`."""
    return re.sub(r"([a-z])(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) + shift}", text)


def to_uci(text: str, ranks: int) -> str:
    """Our XBoard move text in UCI: XBoard numbers the ranks of a 10-rank board from 0."""
    return shift_ranks(text, 1) if ranks == 10 else text


def from_uci(text: str, ranks: int) -> str:
    return shift_ranks(text, -1) if ranks == 10 else text


def uci_fen(fen: str, ranks: int) -> str:
    """Our FEN for UCI: the squares after the board and side fields (the e.p. square)
    in UCI's ranks."""
    fields = fen.split()
    return " ".join(fields[:2] + [to_uci(f, ranks) for f in fields[2:]])


def make_engine(command: str, label: str, options=(), memory: int | None = None,
                log=None, ponder: bool = False, post: bool = False) -> EngineProcess:
    if command.startswith(UCI_PREFIX):
        return UciEngine(command[len(UCI_PREFIX):], label, options, memory, log, ponder)
    return Engine(command, label, options, memory, log, ponder, post)


@dataclass
class Opponent:
    index: int                  # 1-based place in the gauntlet
    command: str
    odds: float = 1.0


def parse_opponent(spec: str, index: int, default_odds: float) -> Opponent:
    """COMMAND or COMMAND@odds=N."""
    problem = BadInput(f"bad engine spec {spec!r}: expected COMMAND or COMMAND@odds=N, N > 0")
    found = re.fullmatch(r"(.*?)\s*@odds=(\S+)", spec.strip())
    command, odds_text = (found.group(1), found.group(2)) if found else (spec.strip(), None)
    try:
        odds = float(odds_text) if odds_text is not None else default_odds
    except ValueError:
        raise problem
    if not command or not odds > 0:
        raise problem
    return Opponent(index, command, odds)


# ---------------------------------------------------------------- games
@dataclass
class Settings:
    variant: str
    base: float = 10.0          # seconds
    inc: float = 0.0
    st: float | None = None
    depth: int | None = None
    opening_plies: int = 6
    seed: int = 1
    max_plies: int = 600
    grace: float = 0.0
    ini: str | None = None
    balanced: int | None = None     # keep random openings scored within +-this (centipawns)
    balanced_depth: int = 8

    def control(self) -> TimeControl:
        return TimeControl(self.base, self.inc, self.st)


@dataclass
class Opening:
    moves: list
    fen: str | None = None      # None: the variant's start position


@dataclass
class GameRecord:
    round: int
    white: str
    black: str
    result: str = "*"
    reason: str = ""
    moves: list = field(default_factory=list)
    book: int = 0
    fen: str | None = None              # set-up start position, if any
    round_tag: str = ""                 # "GAME", or "OPPONENT.GAME" in a gauntlet
    controls: tuple = ()                # (White's, Black's) TimeControl
    incidents: list = field(default_factory=list)   # faults that did not end the game


@functools.lru_cache(maxsize=None)
def variant_specs(ini: str | None) -> dict:
    from fairymax import loader
    return loader.load_file(ini) if ini else loader.load_default()


def make_board(settings: Settings):
    from fairymax.board import Board
    from fairymax.variant import Variant
    return Board(Variant(variant_specs(settings.ini)[settings.variant]))


def piece_count(board) -> int:
    return len(board.pieces(0)) + len(board.pieces(1))


def random_opening(settings: Settings, rng: random.Random) -> list:
    """Random legal opening plies (quiet moves preferred), drawn from `rng`."""
    for _ in range(100):
        board = make_board(settings)
        texts = []
        for _ in range(settings.opening_plies):
            legal = board.legal_moves()
            if not legal:
                break
            rng.shuffle(legal)
            before = piece_count(board)
            chosen = legal[0]
            for m in legal:
                board.push(m)
                quiet = piece_count(board) == before and not board.in_check()
                board.pop()
                if quiet:
                    chosen = m
                    break
            texts.append(board.move_text(chosen))
            board.push(chosen)
        if len(texts) == settings.opening_plies and board.outcome() is None and board.legal_moves():
            return texts
    return []


def opening(settings: Settings, pair: int) -> list:
    """Random legal opening plies for game pair `pair`."""
    return random_opening(settings, random.Random(settings.seed * 1000003 + pair))


_searcher = None
_search_lock = threading.Lock()


def opening_score(settings: Settings, texts: list) -> int:
    """Our engine's score (centipawns, side to move) after `texts`, at --balanced-depth."""
    global _searcher
    from fairymax.search import Searcher
    board = make_board(settings)
    for text in texts:
        board.push(board.parse_move(text))
    with _search_lock:
        if _searcher is None:
            _searcher = Searcher(16)
        _searcher.clear()               # the same opening whatever was searched before
        infos = [i for i in _searcher.iterate(board, max_depth=settings.balanced_depth)
                 if i.complete]
    return infos[-1].score


def balanced_opening(settings: Settings, pair: int) -> list:
    """The first random opening of pair `pair` that our search scores within +-balanced."""
    rng = random.Random(settings.seed * 1000003 + pair)
    for _ in range(BALANCE_TRIES):
        texts = random_opening(settings, rng)
        if texts and abs(opening_score(settings, texts)) <= settings.balanced:
            return texts
    raise BadInput(f"no {settings.variant} opening within +-{settings.balanced} cp in "
                   f"{BALANCE_TRIES} tries; widen --balanced or change --opening-plies")


class Openings:
    """The opening of each game pair: a file's, in order and cycled, or generated."""

    def __init__(self, settings: Settings, listed: list | None = None):
        self.settings, self.listed = settings, listed
        self.made: dict = {}
        self.lock = threading.Lock()

    def needs_setboard(self) -> bool:
        return any(o.fen for o in self.listed or ())

    def for_pair(self, pair: int) -> Opening:
        if self.listed:
            return self.listed[pair % len(self.listed)]
        with self.lock:
            if pair not in self.made:
                make = balanced_opening if self.settings.balanced is not None else opening
                self.made[pair] = Opening(make(self.settings, pair))
            return self.made[pair]


def parse_opening(settings: Settings, line: str) -> Opening:
    """One opening line: XBoard moves from the start, or a FEN/EPD position; ValueError if bad."""
    words = line.split()
    if "/" in words[0]:
        fields = words[:6] if len(words) >= 6 and words[4].isdigit() and words[5].isdigit() \
            else words[:4] + ["0", "1"]
        board = make_board(settings)
        board.set_fen(" ".join(fields))
        result = Opening([], board.fen())
    else:
        # move numbers ("1.", "1...") may stand between the moves
        result = Opening([w for w in words if not re.fullmatch(r"\d+\.*", w)])
    check_opening(settings, result)
    return result


def check_opening(settings: Settings, chosen: Opening) -> list:
    """The book's moves in the referee's text; ValueError if illegal or if the game is over."""
    board = make_board(settings)
    if chosen.fen:
        board.set_fen(chosen.fen)
    texts = []
    for text in chosen.moves:
        move = board.parse_move(text)
        texts.append(board.move_text(move))
        board.push(move)
    if board.outcome() is not None or not board.legal_moves():
        raise ValueError("the game is over after it")
    return texts


def load_openings(settings: Settings, path: str) -> list:
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise BadInput(f"cannot read openings file {path}: {err}")
    listed = []
    for number, line in enumerate(lines, 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        try:
            listed.append(parse_opening(settings, line))
        except ValueError as err:
            raise BadInput(f"{path}:{number}: bad {settings.variant} opening: {err}")
    if not listed:
        raise BadInput(f"openings file {path} holds no opening")
    return listed


def position_after(settings: Settings, moves: list) -> str:
    """The FEN of the variant's start position after `moves`."""
    board = make_board(settings)
    for text in moves:
        board.push(board.parse_move(text))
    return board.fen()


def write_openings(settings: Settings, path: str, count: int, command: str,
                   fen: bool = False) -> int:
    """Write `count` distinct generated openings, one a line (as moves, or with `fen` as the
    FEN of the position they reach); returns how many pairs it took."""
    lines, seen, pair = [], set(), 0
    source = Openings(settings)
    while len(lines) < count:
        if pair >= 20 * count:
            raise BadInput(f"only {len(lines)} distinct {settings.variant} openings in {pair} "
                           "tries; ask for fewer or more --opening-plies")
        moves = source.for_pair(pair).moves
        text = position_after(settings, moves) if fen and moves else " ".join(moves)
        pair += 1
        if text and text not in seen:
            seen.add(text)
            lines.append(text)
    how = (f"within +-{settings.balanced} cp at depth {settings.balanced_depth} "
           "of fairymax's search" if settings.balanced is not None else "unfiltered")
    # the scores, so the set, depend on the engine's evaluation: name its version
    version = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                             capture_output=True, text=True).stdout.strip() or "unknown"
    form = ("the FEN of the position they reach (a set-up start position), one a line"
            if fen else "XBoard coordinate moves from the start position, one opening a line")
    header = [f"# {count} {settings.variant} openings of {settings.opening_plies} random plies, "
              f"{how}; {form}.",
              f"# made by: {command}  (at commit {version})"]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(header + lines) + "\n")
    return pair


def fmt_base(seconds: float) -> str:
    minutes, secs = divmod(seconds, 60)
    secs_text = f"{int(secs):02d}" if secs == int(secs) else f"{secs:05.2f}"
    return f"{int(minutes)}:{secs_text}"


FIDE_VARIANTS = ("normal", "nocastle")     # variants with chess's pieces and only those


def insufficient_material(board, variant: str) -> bool:
    """A dead position by material in chess: no pawns, rooks or queens, and at most one
    minor piece, or only bishops, all on one square colour.  FIDE, XBoard and every
    chess engine end such games as draws (Phalanx claims them)."""
    if variant not in FIDE_VARIANTS:
        return False
    minors, bishop_colours = 0, set()
    for row, text in enumerate(board.fen().split()[0].split("/")):
        file = 0
        for token in re.findall(r"\d+|.", text):
            if token.isdigit():
                file += int(token)
                continue
            letter = token.lower()
            if letter in "prq":
                return False
            if letter in "nb":
                minors += 1
                if letter == "b":
                    bishop_colours.add((row + file) % 2)
            file += 1
    return minors <= 1 or (len(bishop_colours) == 1 and "n" not in board.fen().split()[0].lower())


def play_game(engines: list, rec: GameRecord, settings: Settings, start: Opening,
              controls: list) -> GameRecord:
    """Play one game from `start`; engines[0] is White, controls[i] engines[i]'s time.
    Fills rec."""
    rec.controls = tuple(controls)
    board = make_board(settings)
    if start.fen:
        board.set_fen(start.fen)
        rec.fen = board.fen()
    setup = GameSetup(settings.variant, board.fen(), start.fen is not None,
                      board.variant.height, check_opening(settings, start), settings.depth)
    for text in setup.book:
        board.push(board.parse_move(text))
    rec.moves = list(setup.book)
    rec.book = len(setup.book)
    for eng, control in zip(engines, controls):
        eng.start_game(setup, control)
    clocks = [controls[0].base, controls[1].base]
    colour_name = ("White", "Black")

    def finish(result: str, reason: str) -> GameRecord:
        rec.result, rec.reason = result, reason
        return rec

    def loss(side: int, reason: str) -> GameRecord:
        return finish("0-1" if side == 0 else "1-0", f"{colour_name[side]} {reason}")

    while True:
        over = board.outcome()
        if over is not None:
            return finish(*over)
        if insufficient_material(board, settings.variant):
            return finish("1/2-1/2", "Insufficient material")
        if len(board.history) >= settings.max_plies:
            return finish("1/2-1/2", "Max length adjudication")
        side = board.side_to_move
        eng, control = engines[side], controls[side]
        waiting = engines[1 - side]
        guess = waiting.take_guess()
        if guess is not None:
            try:
                guessed = board.move_text(board.parse_move(guess))
            except ValueError:
                rec.incidents.append(f"{waiting.label} ponders on an illegal move {guess}")
            else:
                try:
                    waiting.start_ponder(rec.moves + [guessed], 1 - side, clocks, controls)
                except EngineDied:
                    return loss(1 - side, "crashed")
        t0 = time.monotonic()
        if settings.depth and control.st is None and control.base <= 0:
            limit = 3600.0
        elif control.st is not None:
            limit = control.st * 2 + 5.0
        else:
            limit = clocks[side] + settings.grace + 5.0
        try:
            eng.go(rec.moves, side, clocks, controls)
            move_text = eng.wait_move(t0 + limit)
        except EngineDied:
            return loss(side, "crashed")
        except Forfeit as forfeit:
            return loss(side, str(forfeit))
        elapsed = time.monotonic() - t0
        if control.st is None:
            clocks[side] -= elapsed
            if clocks[side] < -settings.grace and not settings.depth:
                return loss(side, "loses on time")
            if clocks[side] < 0 and not settings.depth:
                rec.incidents.append(f"{eng.label} overstepped its clock by "
                                     f"{-clocks[side] * 1000:.0f} ms (within the grace)")
            clocks[side] += control.inc
        elif elapsed > control.st + settings.grace + ST_MARGIN_S:
            rec.incidents.append(f"{eng.label} took {elapsed * 1000:.0f} ms for a move of "
                                 f"{control.st:g} s")
        try:
            move = board.parse_move(move_text)
        except ValueError:
            return loss(side, f"illegal move {move_text}")
        rec.moves.append(board.move_text(move))
        board.push(move)


def end_game(engines: list, rec: GameRecord) -> None:
    for eng in engines:
        eng.end_game(rec.result, rec.reason)


# ---------------------------------------------------------------- PGN
@functools.lru_cache(maxsize=None)
def machine_text() -> str:
    """The processor model and the cores this machine has: a score against another
    engine at fixed time odds moved with the session's machine, so a PGN says where it
    was played."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                name, _, value = line.partition(":")
                if not value:
                    break                   # the end of the first processor's block
                fields.setdefault(name.strip(), value.strip())
    except OSError:
        pass
    model = fields.get("model name") or platform.processor() or platform.machine()
    # the model name alone can hide different chips ("AMD EPYC"): the same engines
    # scored 47.0% and 30.8% on the same 200 openings on two of them (docs/measurements.md)
    details = [f"{label} {fields[key]}" for key, label in (("cpu family", "family"), ("model", "model"))
               if key in fields]
    try:
        details.append("L3 " + Path("/sys/devices/system/cpu/cpu0/cache/index3/size").read_text().strip())
    except OSError:
        pass
    if details:
        model += f" ({', '.join(details)})"
    return f"{model}, {os.cpu_count()} cores"


def pgn_text(rec: GameRecord, settings: Settings) -> str:
    base_control = settings.control().pgn()
    white_control, black_control = ((c.pgn() for c in rec.controls) if rec.controls
                                    else (base_control, base_control))
    tags = [("Event", "fairymax match"), ("Site", os.uname().nodename),
            ("Date", time.strftime("%Y.%m.%d")), ("Round", rec.round_tag or str(rec.round)),
            ("White", rec.white), ("Black", rec.black), ("Result", rec.result),
            ("Variant", settings.variant), ("TimeControl", base_control)]
    if white_control != black_control:
        tags += [("WhiteTimeControl", white_control), ("BlackTimeControl", black_control)]
    if rec.fen:
        tags += [("SetUp", "1"), ("FEN", rec.fen)]
    tags += [("Machine", machine_text()), ("PlyCount", str(len(rec.moves))),
             ("Termination", rec.reason)]
    if rec.incidents:
        tags.append(("Incidents", incident_text(rec.incidents)))
    out = [f'[{k} "{v}"]' for k, v in tags]
    black_first = bool(rec.fen) and rec.fen.split()[1] == "b"
    words = []
    for i, move in enumerate(rec.moves):
        ply = i + black_first
        if ply % 2 == 0:
            words.append(f"{ply // 2 + 1}.")
        elif i == 0:
            words.append(f"{ply // 2 + 1}...")
        words.append(move)
        if i + 1 == rec.book:
            words.append("{book}")
    words.append(f"{{{rec.reason}}}")
    words.append(rec.result)
    lines, line = [], ""
    for word in words:
        if len(line) + len(word) + 1 > 79:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(out) + "\n\n" + "\n".join(lines) + "\n\n"


def incident_text(incidents: list) -> str:
    """A game's incidents as one PGN tag value: " | "-separated, the engines' stderr
    lines last, each engine's run of them as one item (the count, the first and the last
    line); at most MAX_INCIDENT_TEXT characters, no quote or backslash."""
    items, stderr = [], {}
    for text in incidents:
        label, _, rest = text.partition(" ")
        if rest.startswith("stderr: "):
            stderr.setdefault(label, []).append(rest[8:])
        else:
            items.append(text)
    for label, lines in stderr.items():
        shown = lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"
        items.append(f"{label} stderr ({len(lines)} line{'s' * (len(lines) > 1)}): {shown}")
    text = " | ".join(items).replace("\\", "/").replace('"', "'")
    if len(text) > MAX_INCIDENT_TEXT:
        text = text[:MAX_INCIDENT_TEXT - 3] + "..."
    return text


@dataclass
class PgnGame:
    opponent: int               # 1 unless the Round tag is "OPPONENT.GAME"
    round: int
    white: str
    black: str
    result: str
    variant: str
    opening: Opening            # the start position and the moves before {book}


def split_pgn(text: str):
    """(tags, movetext) of each game; a tag line after movetext starts the next game."""
    tags: dict = {}
    moves: list = []
    for line in text.splitlines():
        tag = re.match(r'^\[(\w+)\s+"(.*)"\]\s*$', line)
        if tag:
            if moves:
                yield tags, " ".join(moves)
                tags, moves = {}, []
            tags[tag.group(1)] = tag.group(2)
        elif line.strip():
            moves.append(line)
    if tags:
        yield tags, " ".join(moves)


def move_tokens(movetext: str):
    """The moves and {comments} of a movetext, in order (move numbers and results left out)."""
    for token in re.findall(r"\{[^}]*\}|\S+", movetext):
        if not re.fullmatch(r"\d+\.*|1-0|0-1|1/2-1/2|\*", token):
            yield token


def book_of(movetext: str) -> list:
    """The moves before the {book} comment (none if there is none)."""
    moves = []
    for token in move_tokens(movetext):
        if token == "{book}":
            return moves
        if not token.startswith("{"):
            moves.append(token)
    return []


def read_pgn(path: Path) -> list:
    """The finished games of a PGN written by this runner, one per (opponent, round):
    the first with a result; games without a valid Round tag or result are skipped."""
    if not path.exists():
        return []
    games, seen = [], set()
    for tags, movetext in split_pgn(path.read_text()):
        round_tag = re.fullmatch(r"(?:(\d+)\.)?(\d+)", tags.get("Round", ""))
        result = tags.get("Result", "*")
        if not round_tag or result not in ("1-0", "0-1", "1/2-1/2"):
            continue
        key = (int(round_tag.group(1) or 1), int(round_tag.group(2)))
        if key in seen:
            continue
        seen.add(key)
        games.append(PgnGame(*key, tags.get("White", ""), tags.get("Black", ""), result,
                             tags.get("Variant", "normal"),
                             Opening(book_of(movetext), tags.get("FEN"))))
    return games


# ---------------------------------------------------------------- statistics
def score_of(result: str, engine1_white: bool) -> float | None:
    value = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result)
    if value is None:
        return None
    return value if engine1_white else 1.0 - value


def elo(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return 0.0 - 400.0 * math.log10(1.0 / score - 1.0)     # 0.0 -: +0, never -0


def expected_score(elo_diff: float) -> float:
    """The logistic model: the score of an engine `elo_diff` stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))


def elo_interval(mean: float, var: float, n: float) -> tuple:
    """(Elo, low, high) of a mean score with a 95% normal interval."""
    sigma = math.sqrt(var / n)
    return elo(mean), elo(mean - 1.96 * sigma), elo(mean + 1.96 * sigma)


def summary(scores: list) -> str:
    """Per-game (trinomial) W-L-D, score and Elo."""
    n = len(scores)
    if not n:
        return "no games"
    wins, losses = scores.count(1.0), scores.count(0.0)
    draws = n - wins - losses
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / n
    value, lo, hi = elo_interval(mean, var, n)
    return (f"games {n}: +{wins} -{losses} ={draws}  score {100 * mean:.1f}%  "
            f"Elo {value:+.0f} [{lo:+.0f}, {hi:+.0f}] (95%)")


def pentanomial(pair_scores: list) -> list:
    """Counts of pairs scoring 0, 1/2, 1, 3/2 and 2 (LL, LD, LW+DD, WD, WW)."""
    counts = [0] * 5
    for score in pair_scores:
        counts[round(score * 2)] += 1
    return counts


def penta_stats(counts: list) -> tuple:
    """(pairs, mean, variance) of the pair score scaled to 0..1."""
    n = sum(counts)
    mean = sum(c * i / 4 for i, c in enumerate(counts)) / n
    var = sum(c * (i / 4 - mean) ** 2 for i, c in enumerate(counts)) / n
    return n, mean, var


def penta_summary(counts: list) -> str:
    """Per-pair (pentanomial) counts, score and Elo."""
    if not sum(counts):
        return "no game pairs"
    n, mean, var = penta_stats(counts)
    value, lo, hi = elo_interval(mean, var, n)
    return (f"pairs {n}: {counts}  score {100 * mean:.1f}%  "
            f"Elo {value:+.0f} [{lo:+.0f}, {hi:+.0f}] (95%)")


def constrained_mle(probs: list, values: list, mean: float) -> list:
    """The most likely distribution on `values`, given observed `probs`, whose mean is
    `mean`: q_i = p_i / (1 + x (v_i - mean)) with x the root of sum q_i (v_i - mean) = 0,
    found by bisection (the sum falls as x grows)."""
    deltas = [v - mean for v in values]
    low, high = -1.0 / max(deltas), -1.0 / min(deltas)
    while True:
        x = (low + high) / 2
        if x in (low, high):
            break
        if sum(p * d / (1 + x * d) for p, d in zip(probs, deltas)) > 0:
            low = x
        else:
            high = x
    return [p / (1 + x * d) for p, d in zip(probs, deltas)]


def sprt_llr(counts: list, elo0: float, elo1: float) -> float:
    """Generalised log-likelihood ratio of elo1 against elo0 (logistic Elo) from pentanomial
    counts, as fishtest's LLR_logistic: the pair results' distribution (empty cells set to
    1e-3) against its most likely versions with expected pair scores s0 and s1.  For many
    pairs it is about 0.5 N (s1 - s0)(2 mean - s0 - s1) / var (the GSPRT approximation),
    but unlike that it stays small after a few lopsided pairs."""
    if not sum(counts):
        return 0.0
    regular = [c if c else 1e-3 for c in counts]
    n = sum(regular)
    probs = [c / n for c in regular]
    values = [i / 4 for i in range(5)]
    q0, q1 = (constrained_mle(probs, values, expected_score(e)) for e in (elo0, elo1))
    return n * sum(p * math.log(b / a) for p, a, b in zip(probs, q0, q1))


@dataclass
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def bounds(self) -> tuple:
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def verdict(self, llr: float) -> str | None:
        lower, upper = self.bounds()
        return "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else None


class Results:
    """Engine 1's scores against one opponent by round; rounds 2k-1 and 2k are pair k."""

    def __init__(self):
        self.scores: dict = {}

    def add(self, round_number: int, score: float) -> None:
        self.scores[round_number] = score

    def games(self) -> list:
        return [self.scores[r] for r in sorted(self.scores)]

    def pair_scores(self) -> list:
        return [self.scores[r] + self.scores[r + 1] for r in sorted(self.scores)
                if r % 2 == 1 and r + 1 in self.scores]

    def pair_complete(self, round_number: int) -> bool:
        first = round_number - (round_number + 1) % 2
        return first in self.scores and first + 1 in self.scores


def sprt_line(results: Results, sprt: Sprt) -> str:
    """Pairs, W-L-D, pentanomial counts, score, Elo +- 95%, LLR (lower, upper)."""
    scores = results.games()
    wins, losses = scores.count(1.0), scores.count(0.0)
    counts = pentanomial(results.pair_scores())
    n, mean, var = penta_stats(counts)
    value, lo, hi = elo_interval(mean, var, n)
    lower, upper = sprt.bounds()
    return (f"pairs {n}  +{wins} -{losses} ={len(scores) - wins - losses}  penta {counts}  "
            f"score {100 * mean:.1f}%  Elo {value:+.1f} +- {(hi - lo) / 2:.1f}  "
            f"LLR {sprt_llr(counts, sprt.elo0, sprt.elo1):+.2f} ({lower:+.2f}, {upper:+.2f})")


# ---------------------------------------------------------------- scheduling
class Scheduler:
    """Hands out (opponent, round) in order, skipping rounds already played, up to the cap
    (None: no cap), and none of an opponent whose SPRT has ended."""

    def __init__(self, opponents: list, cap: int | None, played: dict):
        self.opponents, self.cap = opponents, cap
        self.taken = {opp.index: set(played.get(opp.index, ())) for opp in opponents}
        self.lowest = {opp.index: 1 for opp in opponents}
        self.closed: set = set()
        self.lock = threading.Lock()

    def next_task(self) -> tuple | None:
        with self.lock:
            for opp in self.opponents:
                if opp.index in self.closed:
                    continue
                taken = self.taken[opp.index]
                while self.lowest[opp.index] in taken:
                    self.lowest[opp.index] += 1
                round_number = self.lowest[opp.index]
                if self.cap is not None and round_number > self.cap:
                    continue
                taken.add(round_number)
                return opp, round_number
            return None

    def close(self, opponent_index: int) -> None:
        with self.lock:
            self.closed.add(opponent_index)

    def close_all(self) -> None:
        with self.lock:
            self.closed.update(opp.index for opp in self.opponents)


# ---------------------------------------------------------------- main
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine1", default=f"{shlex.quote(sys.executable)} xboard.py",
                    help="command of engine 1 (default: this repo's engine); uci:COMMAND for UCI")
    ap.add_argument("--engine2", action="append", default=[],
                    help=f"an opponent: COMMAND or COMMAND@odds=N, uci:COMMAND for UCI; "
                         f"repeat for a gauntlet (default {FAIRYMAX})")
    ap.add_argument("--gauntlet", help="file of opponents, one --engine2 spec a line (# comments)")
    ap.add_argument("--odds2", type=float, default=1.0,
                    help="engine 2 gets 1/N of the base time and increment (default 1)")
    ap.add_argument("--option1", action="append", default=[], help="NAME=VALUE for engine 1")
    ap.add_argument("--option2", action="append", default=[],
                    help="NAME=VALUE for every engine 2")
    ap.add_argument("--memory", type=int, default=None,
                    help="send `memory MB` (UCI: Hash) to every engine")
    ap.add_argument("--variant", default="normal")
    ap.add_argument("--ini", help="our ini for the referee (default: the package's pieces.ini)")
    ap.add_argument("--games", type=int, default=None,
                    help="games per opponent (default 2; with --sprt: a cap, default none)")
    ap.add_argument("--tc", default="10+0.1", help="BASE+INC in seconds (default 10+0.1)")
    ap.add_argument("--st", type=float, help="fixed seconds per move instead of --tc")
    ap.add_argument("--depth", type=int, help="also send `sd DEPTH` (UCI: go depth)")
    ap.add_argument("--sprt", help="ELO0,ELO1: stop at a decision of the pentanomial SPRT")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--openings", help="file of openings, one a line: XBoard moves or a FEN/EPD")
    ap.add_argument("--opening-plies", type=int, default=6)
    ap.add_argument("--balanced", type=int, metavar="CP",
                    help="keep random openings our search scores within +-CP centipawns")
    ap.add_argument("--balanced-depth", type=int, default=8,
                    help="search depth for --balanced (default 8)")
    ap.add_argument("--write-openings", metavar="FILE",
                    help="write --count generated openings to FILE and exit")
    ap.add_argument("--count", type=int, default=100, help="openings for --write-openings")
    ap.add_argument("--fen", action="store_true",
                    help="--write-openings writes the positions reached, as FENs")
    ap.add_argument("--ponder", action="store_true",
                    help="engines think on the opponent's time (CECP hard, UCI go ponder)")
    ap.add_argument("--fault-log", metavar="FILE",
                    help="append the engine traffic of games with a forfeit or incident")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=600)
    ap.add_argument("--grace", type=float, default=0.0,
                    help="seconds past zero before a flag falls")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--pgn", default="match.pgn")
    ap.add_argument("--resume", action="store_true", help="skip rounds already in the PGN")
    ap.add_argument("--log", help="write all engine traffic to this file")
    ap.add_argument("--post", action="store_true",
                    help="CECP engines show their thinking (`post`), so that --log holds "
                         "what each searched: scripts/think_stats.py reads it")
    ap.add_argument("--quiet", action="store_true", help="no line per game")
    args = ap.parse_args(argv)
    if args.sprt:
        try:
            elo0, elo1 = (float(x) for x in args.sprt.split(","))
        except ValueError:
            ap.error(f"--sprt wants ELO0,ELO1, not {args.sprt}")
        if not elo0 < elo1 or not 0 < args.alpha < 1 or not 0 < args.beta < 1:
            ap.error("--sprt wants ELO0 < ELO1 and 0 < alpha, beta < 1")
        args.sprt = Sprt(elo0, elo1, args.alpha, args.beta)
    if args.games is None and not args.sprt:
        args.games = 2
    return args


def gather_opponents(args) -> list:
    specs = list(args.engine2)
    if args.gauntlet:
        try:
            lines = Path(args.gauntlet).read_text().splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise BadInput(f"cannot read gauntlet file {args.gauntlet}: {err}")
        specs += [line.strip() for line in lines
                  if line.strip() and not line.lstrip().startswith("#")]
    return [parse_opponent(spec, i, args.odds2) for i, spec in enumerate(specs or [FAIRYMAX], 1)]


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        return run(args, argv)
    except BadInput as err:
        print(f"match.py: {err}", file=sys.stderr)
        return 2


def run(args, argv) -> int:
    base, _, inc = args.tc.partition("+")
    try:
        base_seconds, inc_seconds = float(base), float(inc or 0)
    except ValueError:
        raise BadInput(f"--tc wants BASE+INC in seconds, not {args.tc}")
    settings = Settings(variant=args.variant, base=base_seconds, inc=inc_seconds, st=args.st,
                        depth=args.depth, opening_plies=args.opening_plies, seed=args.seed,
                        max_plies=args.max_plies, grace=args.grace, ini=args.ini,
                        balanced=args.balanced, balanced_depth=args.balanced_depth)
    try:
        make_board(settings)
    except KeyError:
        raise BadInput(f"unknown variant {args.variant}")
    except (OSError, ValueError) as err:      # the loader's IniError is a ValueError
        raise BadInput(f"cannot load variants: {err}")

    if args.write_openings:
        command = "python scripts/match.py " + shlex.join(sys.argv[1:] if argv is None else argv)
        pairs = write_openings(settings, args.write_openings, args.count, command, args.fen)
        print(f"wrote {args.count} openings to {args.write_openings} ({pairs} generated)")
        return 0

    openings = Openings(settings, load_openings(settings, args.openings) if args.openings else None)
    openings.for_pair(0)                # a variant --balanced cannot serve fails now
    opponents = gather_opponents(args)
    pgn = Path(args.pgn)
    try:
        pgn.parent.mkdir(parents=True, exist_ok=True)
        done = read_pgn(pgn) if args.resume else []
        if not args.resume and pgn.exists():
            pgn.unlink()
    except (OSError, UnicodeDecodeError) as err:
        raise BadInput(f"cannot use PGN file {pgn}: {err}")
    for game in done:
        try:
            if game.variant != settings.variant:
                raise ValueError(f"it is a {game.variant} game")
            check_opening(settings, game.opening)
        except ValueError as err:
            raise BadInput(f"cannot resume from {pgn}: round {game.round}: {err}")

    log_file = open(args.log, "a") if args.log else None
    try:
        games = Match(args, settings, openings, opponents, pgn, log_file, done)
        games.check_engines()
        return games.run()
    finally:
        if log_file:
            log_file.close()


class Match:
    """Engine 1's games against every opponent, played by --concurrency worker threads."""

    def __init__(self, args, settings: Settings, openings: Openings, opponents: list,
                 pgn: Path, log_file, done: list):
        """`done`: the games the PGN holds (--resume); their rounds are not played again."""
        self.args, self.settings, self.openings = args, settings, openings
        self.opponents, self.pgn, self.log_file = opponents, pgn, log_file
        self.gauntlet = len(opponents) > 1
        self.sprt: Sprt | None = args.sprt
        self.results = {opp.index: Results() for opp in opponents}
        self.books: dict = {}           # (opponent, round) -> the Opening the PGN recorded
        self.verdicts: dict = {}        # opponent -> "H1 accepted" or "H0 accepted"
        self.failures: list = []
        self.lock = threading.Lock()    # the PGN, the results and the console
        played: dict = {}
        for game in done:
            if game.opponent in self.results:
                self.results[game.opponent].add(game.round,
                                                score_of(game.result, game.round % 2 == 1))
                played.setdefault(game.opponent, set()).add(game.round)
                self.books[game.opponent, game.round] = game.opening
        self.scheduler = Scheduler(opponents, args.games, played)

    def log(self, text: str) -> None:
        if self.log_file:
            with self.lock:
                self.log_file.write(f"{time.monotonic():.3f} {text}\n")
                self.log_file.flush()

    def label(self, opp: Opponent) -> str:
        return f"engine2.{opp.index}" if self.gauntlet else "engine2"

    def engine1(self, log=None) -> EngineProcess:
        return make_engine(self.args.engine1, "engine1", self.args.option1, self.args.memory,
                           log or self.log, self.args.ponder, self.args.post)

    def engine2(self, opp: Opponent, log=None) -> EngineProcess:
        return make_engine(opp.command, self.label(opp), self.args.option2, self.args.memory,
                           log or self.log, self.args.ponder, self.args.post)

    def report_incidents(self, engine: EngineProcess) -> None:
        """Print the incidents of an engine that no game took (at its close)."""
        for text in engine.take_incidents():
            with self.lock:
                print(f"incident: {text}", flush=True)

    def check_engines(self) -> None:
        """Start every engine once, so that bad input stops the run before any game."""
        for start in [self.engine1] + [functools.partial(self.engine2, o) for o in self.opponents]:
            engine = start()
            try:
                engine.check(self.settings.variant, self.openings.needs_setboard())
            finally:
                engine.close()
                self.report_incidents(engine)

    def heading(self, opp: Opponent) -> str:
        odds = f" at 1/{opp.odds:g} time" if opp.odds != 1 else ""
        return f"vs {opp.command}{odds}: " if self.gauntlet or odds else ""

    def judge(self, opp: Opponent) -> None:
        """The SPRT line after a finished pair; an opponent's games end at a decision."""
        results = self.results[opp.index]
        print(f"{self.heading(opp)}{sprt_line(results, self.sprt)}", flush=True)
        counts = pentanomial(results.pair_scores())
        verdict = self.sprt.verdict(sprt_llr(counts, self.sprt.elo0, self.sprt.elo1))
        if verdict and opp.index not in self.verdicts:
            self.verdicts[opp.index] = verdict
            self.scheduler.close(opp.index)
            print(f"{self.heading(opp)}{verdict}", flush=True)

    def play_round(self, opp: Opponent, g: int, engine1, engine2, traffic=None) -> None:
        """Game `g` against `opp`, written to the PGN and counted; with --fault-log,
        `traffic` collects the engines' lines of the game."""
        if traffic is not None:
            traffic.clear()
        partner = g + 1 if g % 2 == 1 else g - 1
        start = self.books.get((opp.index, partner)) or self.openings.for_pair((g - 1) // 2)
        white_first = g % 2 == 1
        own, theirs = self.settings.control(), self.settings.control().with_odds(opp.odds)
        engines = [engine1, engine2] if white_first else [engine2, engine1]
        controls = [own, theirs] if white_first else [theirs, own]
        round_tag = f"{opp.index}.{g}" if self.gauntlet else str(g)
        rec = GameRecord(g, engines[0].name, engines[1].name, round_tag=round_tag)
        try:
            play_game(engines, rec, self.settings, start, controls)
        except EngineDied as died:
            side = 0 if engines[0].label == str(died) else 1
            rec.result = "0-1" if side == 0 else "1-0"
            rec.reason = f"{('White', 'Black')[side]} died"
        end_game(engines, rec)
        for engine in engines:
            rec.incidents += engine.take_incidents()
        results = self.results[opp.index]
        with self.lock:
            with open(self.pgn, "a") as f:
                f.write(pgn_text(rec, self.settings))
            faulty = rec.incidents or termination_kind(rec.reason) not in NOT_FAULTS
            if traffic is not None and faulty:
                with open(self.args.fault_log, "a") as f:
                    f.write(f"==== {self.pgn} round {round_tag}: {rec.white} - {rec.black} "
                            f"{rec.result} {{{rec.reason}}}\n" + "".join(traffic))
            results.add(g, score_of(rec.result, white_first))
            if not self.args.quiet:
                print(f"game {round_tag}: {rec.white} - {rec.black} {rec.result} "
                      f"{{{rec.reason}}}  [{summary(results.games())}]", flush=True)
            if self.sprt and results.pair_complete(g):
                self.judge(opp)

    def worker(self) -> None:
        """Play the scheduler's rounds; an opponent's engine lives while its rounds last."""
        engine1 = engine2 = current = None
        traffic = [] if self.args.fault_log else None

        def keep(text: str) -> None:
            traffic.append(f"{time.monotonic():.3f} {text}\n")
            self.log(text)
        log = keep if traffic is not None else None
        try:
            while (task := self.scheduler.next_task()) is not None:
                opp, g = task
                engine1 = engine1 or self.engine1(log)
                if current is not opp:
                    if engine2:
                        engine2.close()
                        self.report_incidents(engine2)
                    engine2, current = self.engine2(opp, log), opp
                self.play_round(opp, g, engine1, engine2, traffic)
        except (BadInput, OSError) as err:
            with self.lock:
                self.failures.append(str(err))
            self.scheduler.close_all()
        finally:
            for engine in (engine1, engine2):
                if engine:
                    engine.close()
                    self.report_incidents(engine)

    def run(self) -> int:
        if self.sprt:                   # where resumed pairs already decide
            for opp in self.opponents:
                if self.results[opp.index].pair_scores():
                    self.judge(opp)
        threads = [threading.Thread(target=self.worker, daemon=True)
                   for _ in range(max(1, self.args.concurrency))]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        except KeyboardInterrupt:
            print("interrupted; rerun with --resume to continue", file=sys.stderr)
            return 130
        for opp in self.opponents:
            self.print_summary(opp)
        if self.failures:
            print(f"match.py: stopped: {self.failures[0]}", file=sys.stderr)
            return 1
        return 0

    def print_summary(self, opp: Opponent) -> None:
        results, heading = self.results[opp.index], self.heading(opp)
        counts = pentanomial(results.pair_scores())
        print(f"{heading}{summary(results.games())}")
        print(f"{heading}{penta_summary(counts)}")
        if self.sprt:
            lower, upper = self.sprt.bounds()
            print(f"{heading}SPRT [{self.sprt.elo0:g}, {self.sprt.elo1:g}] "
                  f"LLR {sprt_llr(counts, self.sprt.elo0, self.sprt.elo1):+.2f} "
                  f"({lower:+.2f}, {upper:+.2f}): {self.verdicts.get(opp.index, 'no decision')}")


if __name__ == "__main__":
    sys.exit(main())
