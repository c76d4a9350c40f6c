"""Time management: turn clock commands into search limits.

Pure Python, no engine imports.  The CECP front end feeds the protocol's clock
commands (`level`, `st`, `sd`, `nps`, `time`, `otim`) into a TimeManager and the
session asks it for the limits of the next search with `allot()`; UCI's `go`
carries its clock with it and gets its limits from `for_go()`.  All quantities
inside are milliseconds (CECP's centiseconds and seconds are converted once, here).

Policy, in short:
- `st S`: a hard limit of S seconds per move minus the move overhead and no soft
  limit: time left unused is lost, so the search runs until that limit (a best move
  found inside the unfinished last iteration still counts).
- `level MPS BASE INC`: the clock (from `time`, or kept here if the GUI does not
  send it) is divided over the moves to the next time control (MPS repeating
  sessions) or over an assumed 30 moves in sudden death, plus most of the
  increment.  A soft limit (no new iteration after it) and a hard limit (abort
  inside the search) keep the engine from ever running its clock out.
- `nps N`: time is counted in nodes, N per second; limits become node counts.
- `sd D`: a depth cap on top of whatever the clock says.
- No time control received since start-up: with `sd` (python-chess's
  Limit(depth=...) sends only that) no time limit at all; with nothing, a few
  seconds per move.
- The soft limit stretches with how unsettled the search is (SoftLimitScale): more
  time while the best move keeps changing or the score falls, less once the best
  move has held for several iterations.  Time saved on easy moves stays on the clock
  for the hard ones.
- UCI `go`: `movetime` as `st`, `wtime`/`btime` + `winc`/`binc` (+ `movestogo`) as a
  clock reading of `level`, `depth` and `nodes` as caps; nothing at all: no limit.
Absurd input (zero or negative clocks, `st 0`) yields tiny limits, never an
exception from allot().
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

MOVE_OVERHEAD_MS = 50       # GUI/pipe/OS latency reserved per move
SUDDEN_DEATH_MOVES = 30     # moves assumed left when no session length is given
SUDDEN_DEATH_MOVES_NO_INC = 40
MAX_MOVES_TO_GO = 50
MIN_HARD_MS = 1.0
LATENCY_SHARE = 0.2         # without increment: reserve this much overhead per later move
UNTIMED_SOFT_MS = 2000.0    # no `level`/`st`/`sd`/`nps` received at all
UNTIMED_HARD_MS = 10000.0

# the soft limit's factor by the completed iterations the best move has held (0: it
# changed in the last one), and the rise per centipawn the score fell since the
# iteration before, up to SCORE_DROP_MAX_FACTOR
STABILITY_FACTORS = (1.8, 1.3, 1.1, 0.95, 0.85, 0.75)
SCORE_DROP_FACTOR_PER_CP = 0.005
SCORE_DROP_MAX_FACTOR = 1.5
SCORE_DROP_IGNORED_BEYOND = 5000    # mate scores: a drop there says nothing of the time

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)")


def _number(text: str) -> float:
    """The leading decimal number of text (trailing junk ignored); ValueError if none."""
    match = _NUMBER.match(text.strip())
    if not match:
        raise ValueError(f"not a number: {text!r}")
    return float(match.group(0))


def parse_base_ms(text: str) -> float:
    """`level` BASE: minutes `M` or `M:SS` (fractions allowed, trailing junk ignored) -> ms."""
    text = text.strip()
    if ":" in text:
        minutes, _, seconds = text.partition(":")
        total = _number(minutes or "0") * 60.0 + _number(seconds or "0")
    else:
        total = _number(text) * 60.0
    return max(0.0, total * 1000.0)


def parse_level(text: str) -> tuple[int, float, float]:
    """`level MPS BASE INC` arguments -> (moves per session, base ms, increment ms).

    Raises ValueError when the three fields are not there or not numbers.
    Negative values are clamped to 0.
    """
    parts = text.split()
    if len(parts) < 3:
        raise ValueError(f"level needs MPS BASE INC: {text!r}")
    mps = max(0, int(_number(parts[0])))
    base_ms = parse_base_ms(parts[1])
    inc_ms = max(0.0, _number(parts[2]) * 1000.0)
    return mps, base_ms, inc_ms


@dataclass
class Limits:
    """What one search may use.  None means "no limit of this kind".

    soft_ms: do not start another iteration after this much time.
    hard_ms: abort the search (inside an iteration) at this time.
    depth: maximum iteration depth.  nodes: hard node budget.
    soft_nodes: like soft_ms, for `nps` mode.
    """
    soft_ms: Optional[float] = None
    hard_ms: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    soft_nodes: Optional[int] = None


class SoftLimitScale:
    """The factor on a search's soft limit, from what its iterations report."""

    def __init__(self) -> None:
        self.best_move = None
        self.held = 0                       # completed iterations the best move has held
        self.score: Optional[int] = None    # of the last completed iteration
        self.previous_score: Optional[int] = None   # of the one before

    def update(self, move: int, score: int, complete: bool) -> None:
        """A report: the best move and score so far, from a completed iteration or from
        inside one (a new best move that has not yet been searched to the end)."""
        if move != self.best_move:
            self.best_move = move
            self.held = 0
        elif complete:
            self.held += 1
        if complete:
            self.previous_score, self.score = self.score, score

    def factor(self) -> float:
        factor = STABILITY_FACTORS[min(self.held, len(STABILITY_FACTORS) - 1)]
        before, now = self.previous_score, self.score
        if before is not None and max(abs(before), abs(now)) < SCORE_DROP_IGNORED_BEYOND and now < before:
            factor *= min(1.0 + SCORE_DROP_FACTOR_PER_CP * (before - now), SCORE_DROP_MAX_FACTOR)
        return factor


class TimeManager:
    """The state of the CECP time control of one engine."""

    def __init__(self, overhead_ms: float = MOVE_OVERHEAD_MS):
        self.overhead_ms = overhead_ms
        self.mode: Optional[str] = None   # None (untimed), "level" or "st"
        self.mps = 0
        self.base_ms = 0.0
        self.inc_ms = 0.0
        self.st_ms = 0.0
        self.depth: Optional[int] = None
        self.nps: Optional[float] = None
        self.clock_ms = 0.0           # own remaining time
        self.opp_clock_ms = 0.0
        self.moves_done = 0           # own moves since the session started

    # --- commands -------------------------------------------------------
    def new_game(self) -> None:
        """`new`: clocks back to the start of the time control; `sd` and `nps` cleared."""
        self.depth = None
        self.nps = None
        self.moves_done = 0
        self.clock_ms = self.base_ms
        self.opp_clock_ms = self.base_ms

    def level(self, text: str) -> None:
        """`level MPS BASE INC` (ValueError if unparsable; state unchanged then)."""
        mps, base_ms, inc_ms = parse_level(text)
        self.mode = "level"
        self.mps, self.base_ms, self.inc_ms = mps, base_ms, inc_ms
        self.clock_ms = base_ms
        self.moves_done = 0

    def st(self, text: str) -> None:
        """`st SECONDS` (fractions allowed)."""
        self.st_ms = max(0.0, _number(text) * 1000.0)
        self.mode = "st"

    def sd(self, text: str) -> None:
        """`sd DEPTH`: a depth cap (values below 1 mean 1)."""
        self.depth = max(1, int(_number(text)))

    def set_nps(self, text: str) -> None:
        """`nps N`: nodes per second of the virtual clock; 0 switches back to real time."""
        value = _number(text)
        self.nps = value if value > 0 else None

    def time(self, text: str) -> None:
        """`time CENTIS`: own clock."""
        self.clock_ms = _number(text) * 10.0
        if self.mode is None:
            self.mode = "level"       # a clock without a `level`: sudden death

    def otim(self, text: str) -> None:
        """`otim CENTIS`: opponent's clock (kept for information)."""
        self.opp_clock_ms = _number(text) * 10.0

    def record_move(self, used_ms: float) -> None:
        """Book an own move that took used_ms, for GUIs that do not send `time`."""
        if self.mode == "level":
            if self.nps:
                used_ms = 0.0         # the GUI's clock runs on nodes; `time` corrects it
            self.clock_ms += self.inc_ms - used_ms
            self.moves_done += 1
            if self.mps and self.moves_done % self.mps == 0:
                self.clock_ms += self.base_ms

    # --- the budget -----------------------------------------------------
    def moves_to_go(self) -> int:
        """Own moves until the next time control (an estimate in sudden death)."""
        if self.mps:
            return min(MAX_MOVES_TO_GO, self.mps - self.moves_done % self.mps)
        return SUDDEN_DEATH_MOVES if self.inc_ms else SUDDEN_DEATH_MOVES_NO_INC

    def allot(self) -> Limits:
        """The limits for the next own move."""
        limits = Limits(depth=self.depth)
        if self.mode == "st":
            if self.nps:                          # python-chess's node limit: nps 1 + st N
                limits.nodes = max(1, int(self.st_ms / 1000.0 * self.nps))
                return limits
            limits.hard_ms = fixed_time_budget(self.st_ms, self.overhead_ms)
        elif self.mode == "level":
            soft, hard = clock_budget(self.clock_ms, self.inc_ms, self.moves_to_go(),
                                      0.0 if self.nps else self.overhead_ms)
            if self.nps:
                limits.nodes = max(1, int(hard / 1000.0 * self.nps))
                limits.soft_nodes = max(1, int(soft / 1000.0 * self.nps))
            else:
                limits.soft_ms, limits.hard_ms = soft, hard
        elif self.depth is None and self.nps is None:
            # no time control at all (someone typing `go`): a few seconds per move
            limits.soft_ms, limits.hard_ms = UNTIMED_SOFT_MS, UNTIMED_HARD_MS
        return limits

    def for_go(self, clock_ms: Optional[float] = None, inc_ms: float = 0.0,
               moves_to_go: Optional[int] = None, move_time_ms: Optional[float] = None,
               depth: Optional[int] = None, nodes: Optional[int] = None) -> Limits:
        """The limits of a UCI `go`: the side to move's clock and increment (with the
        moves to the next control, if given), or a fixed time per move, and caps on
        depth and nodes.  Without any of them the search has no limit (it runs until
        `stop`, as Stockfish's does)."""
        limits = Limits(depth=depth, nodes=nodes)
        if move_time_ms is not None:
            limits.hard_ms = fixed_time_budget(move_time_ms, self.overhead_ms)
        elif clock_ms is not None:
            if moves_to_go:
                mtg = max(1, min(MAX_MOVES_TO_GO, moves_to_go))
            else:
                mtg = SUDDEN_DEATH_MOVES if inc_ms else SUDDEN_DEATH_MOVES_NO_INC
            limits.soft_ms, limits.hard_ms = clock_budget(clock_ms, max(0.0, inc_ms), mtg,
                                                          self.overhead_ms)
        return limits


def fixed_time_budget(move_ms: float, overhead_ms: float) -> float:
    """The hard limit (ms) for a fixed time per move: all of it but the overhead."""
    hard = move_ms - overhead_ms
    return max(hard, min(move_ms * 0.5, 20.0), MIN_HARD_MS)


def clock_budget(clock_ms: float, inc_ms: float, mtg: int, overhead_ms: float) -> tuple[float, float]:
    """(soft, hard) ms for a move from the own clock and increment, with mtg own moves
    to the next time control (an estimate in sudden death)."""
    # keep the overhead for this move and a latency share for each later one
    reserve = overhead_ms * (1.0 + LATENCY_SHARE * (mtg - 1)) if not inc_ms else overhead_ms
    avail = clock_ms - reserve
    if avail <= 0:
        # out of time already (or nearly): move at once
        return 0.0, max(MIN_HARD_MS, min(clock_ms * 0.1, 10.0))
    target = avail / mtg + 0.75 * inc_ms
    if mtg == 1:
        target = min(target, avail * 0.7)
        hard = min(target * 1.3, avail * 0.85)
    else:
        target = min(target, avail * 0.4)
        hard = min(target * 3.0, avail * 0.5)
    hard = max(hard, MIN_HARD_MS)
    return target * 0.6, hard
