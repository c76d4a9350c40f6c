#!/usr/bin/env python3
"""Referee-based CECP match runner: our engine against Fairy-Max (or any XBoard engine).

Our Board is the referee: it checks every move, ends games by rule (mate,
stalemate, repetition, 50 moves, bare king, ...) and judges engines' claims.
Openings are random legal plies from a seed (sent as moves after `new`/`variant`,
so engines without `setboard`, like Fairy-Max, work); each opening is played twice
with colours swapped.  Games are appended to a PGN as they finish; `--resume`
skips the rounds already in it, so long runs can be stopped and continued.

    python scripts/match.py --games 200 --tc 10+0.1 --pgn results/fm.pgn --resume
    python scripts/match.py --engine2 "python xboard.py --hash 16" --st 1 --variant capablanca

Prints W-L-D from engine 1's side, its score and an Elo estimate with a 95% bar.
"""
from __future__ import annotations

import argparse
import math
import os
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


# ---------------------------------------------------------------- engines
class EngineDied(Exception):
    pass


class Engine:
    """One CECP engine process with a reader thread."""

    def __init__(self, command: str, name: str, options=(), memory: int | None = None,
                 log=None):
        self.command, self.options, self.memory = command, list(options), memory
        self.label = name
        self.log = log
        self.proc = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(shlex.split(self.command), cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1, errors="replace")
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.features: dict = {}
        self.ping_n = 0
        self.send("xboard", "protover 2")
        deadline = time.monotonic() + 2.0
        while True:
            line = self.get(deadline - time.monotonic())
            if line is None:
                break                          # no done=1 within 2 s: protocol 1 style
            if line.startswith("feature "):
                for key, value in re.findall(r'(\w+)=("[^"]*"|\S+)', line[8:]):
                    self.features[key] = value.strip('"')
                    if key != "option":
                        self.send(f"accepted {key}")
                    if key == "done":
                        deadline = time.monotonic() + (3600 if value == "0" else 0)
                if self.features.get("done") == "1":
                    break
        self.name = self.features.get("myname", self.label)
        if self.memory and self.features.get("memory") == "1":
            self.send(f"memory {self.memory}")
        for option in self.options:
            self.send(f"option {option}")

    @staticmethod
    def _read(proc, lines):
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

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
        return line

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

    def alive(self) -> bool:
        return self.proc.poll() is None

    def restart(self) -> None:
        self.close()
        self.start()

    def close(self) -> None:
        if self.proc and self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(2)
            except (EngineDied, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


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


@dataclass
class GameRecord:
    round: int
    white: str
    black: str
    result: str = "*"
    reason: str = ""
    moves: list = field(default_factory=list)
    book: int = 0


def make_board(settings: Settings):
    from fairymax import loader
    from fairymax.board import Board
    from fairymax.variant import Variant
    specs = loader.load_file(settings.ini) if settings.ini else loader.load_default()
    return Board(Variant(specs[settings.variant]))


def piece_count(board) -> int:
    return len(board.pieces(0)) + len(board.pieces(1))


def opening(settings: Settings, pair: int) -> list:
    """Random legal opening plies (quiet moves preferred) for game pair `pair`."""
    rng = random.Random(settings.seed * 1000003 + pair)
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


def fmt_base(seconds: float) -> str:
    minutes, secs = divmod(seconds, 60)
    secs_text = f"{int(secs):02d}" if secs == int(secs) else f"{secs:05.2f}"
    return f"{int(minutes)}:{secs_text}"


def play_game(engines: list, rec: GameRecord, settings: Settings, book: list) -> GameRecord:
    """Play one game; engines[0] is White.  Fills rec.result/reason/moves."""
    board = make_board(settings)
    for eng in engines:
        eng.send("new")
        if settings.variant != "normal":
            eng.send(f"variant {settings.variant}")
        if settings.st is not None:
            st = settings.st
            eng.send(f"st {int(st) if st == int(st) else st}")
        else:
            eng.send(f"level 0 {fmt_base(settings.base)} {settings.inc:g}")
        if settings.depth:
            eng.send(f"sd {settings.depth}")
        eng.send("easy", "force")
    for text in book:
        move = board.parse_move(text)
        text = board.move_text(move)
        board.push(move)
        rec.moves.append(text)
        for eng in engines:
            eng.send(eng.move_cmd(text))
    rec.book = len(book)
    for eng in engines:
        if not eng.sync():
            raise EngineDied(eng.label)
    clocks = [settings.base, settings.base]
    started = [False, False]
    colour_name = ("White", "Black")

    def finish(result: str, reason: str) -> GameRecord:
        rec.result, rec.reason = result, reason
        return rec

    def loss(side: int, reason: str) -> GameRecord:
        return finish("0-1" if side == 0 else "1-0", reason)

    while True:
        over = board.outcome()
        if over is not None:
            return finish(*over)
        if len(board.history) >= settings.max_plies:
            return finish("1/2-1/2", "Max length adjudication")
        side = board.side_to_move
        eng, other = engines[side], engines[1 - side]
        if settings.st is None:
            eng.send(f"time {max(1, int(clocks[side] * 100))}",
                     f"otim {max(1, int(clocks[1 - side] * 100))}")
        t0 = time.monotonic()
        if not started[side]:
            eng.send("go")
            started[side] = True
        else:
            eng.send(eng.move_cmd(rec.moves[-1]))
        if settings.depth and settings.st is None and settings.base <= 0:
            limit = 3600.0
        elif settings.st is not None:
            limit = settings.st * 2 + 5.0
        else:
            limit = clocks[side] + settings.grace + 5.0
        move_text = None
        while move_text is None:
            try:
                line = eng.get(limit - (time.monotonic() - t0))
            except EngineDied:
                return loss(side, f"{colour_name[side]} crashed")
            if line is None:
                return loss(side, f"{colour_name[side]} loses on time (no move)")
            if line.startswith("move "):
                move_text = line.split()[1]
            elif line.strip() == "resign" or "resign" in line.lower() and RESULT_RE.match(line):
                return loss(side, f"{colour_name[side]} resigns")
            elif line.startswith("Illegal move"):
                return loss(side, f"{colour_name[side]} false illegal-move claim: {line}")
            elif RESULT_RE.match(line):
                claim = RESULT_RE.match(line)
                own_loss = "0-1" if side == 0 else "1-0"
                if claim.group(1) == own_loss:
                    return loss(side, f"{colour_name[side]} resigns ({claim.group(3) or ''})")
                return loss(side, f"{colour_name[side]} false claim: {line}")
        elapsed = time.monotonic() - t0
        if settings.st is None:
            clocks[side] -= elapsed
            if clocks[side] < -settings.grace and not settings.depth:
                return loss(side, f"{colour_name[side]} loses on time")
            clocks[side] += settings.inc
        try:
            move = board.parse_move(move_text)
        except ValueError:
            return loss(side, f"{colour_name[side]} illegal move {move_text}")
        text = board.move_text(move)
        board.push(move)
        rec.moves.append(text)
        if not started[1 - side]:
            other.send(other.move_cmd(text))     # still in force mode: keep it in step


def end_game(engines: list, rec: GameRecord) -> None:
    for eng in engines:
        try:
            eng.send(f"result {rec.result} {{{rec.reason}}}", "force")
            if not eng.sync(5.0):
                eng.restart()
        except EngineDied:
            eng.restart()


# ---------------------------------------------------------------- PGN and stats
def pgn_text(rec: GameRecord, settings: Settings) -> str:
    tc = f"{settings.st}s/move" if settings.st is not None else f"{settings.base:g}+{settings.inc:g}"
    tags = [("Event", "fairymax match"), ("Site", os.uname().nodename),
            ("Date", time.strftime("%Y.%m.%d")), ("Round", str(rec.round)),
            ("White", rec.white), ("Black", rec.black), ("Result", rec.result),
            ("Variant", settings.variant), ("TimeControl", tc), ("PlyCount", str(len(rec.moves))),
            ("Termination", rec.reason)]
    out = [f'[{k} "{v}"]' for k, v in tags]
    words = []
    for i, move in enumerate(rec.moves):
        if i % 2 == 0:
            words.append(f"{i // 2 + 1}.")
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


def read_pgn(path: Path) -> list:
    """(round, white, black, result) of the games already in a PGN file."""
    if not path.exists():
        return []
    games, tags = [], {}
    for line in path.read_text().splitlines():
        m = re.match(r'^\[(\w+) "(.*)"\]$', line)
        if m:
            tags[m.group(1)] = m.group(2)
            if m.group(1) == "Result" and "Round" in tags:
                games.append((int(tags["Round"]), tags.get("White", ""), tags.get("Black", ""),
                              m.group(2)))
                tags = {}
    return games


def score_of(result: str, engine1_white: bool) -> float | None:
    value = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result)
    if value is None:
        return None
    return value if engine1_white else 1.0 - value


def elo(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def summary(scores: list) -> str:
    n = len(scores)
    if not n:
        return "no games"
    wins, losses = scores.count(1.0), scores.count(0.0)
    draws = n - wins - losses
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / n
    sigma = math.sqrt(var / n)
    lo, hi = elo(mean - 1.96 * sigma), elo(mean + 1.96 * sigma)
    return (f"games {n}: +{wins} -{losses} ={draws}  score {100 * mean:.1f}%  "
            f"Elo {elo(mean):+.0f} [{lo:+.0f}, {hi:+.0f}] (95%)")


# ---------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine1", default=f"{shlex.quote(sys.executable)} xboard.py",
                    help="command of engine 1 (default: this repo's engine)")
    ap.add_argument("--engine2", default=FAIRYMAX, help=f"command of engine 2 (default {FAIRYMAX})")
    ap.add_argument("--option1", action="append", default=[], help="NAME=VALUE for engine 1")
    ap.add_argument("--option2", action="append", default=[], help="NAME=VALUE for engine 2")
    ap.add_argument("--memory", type=int, default=None, help="send `memory MB` to both engines")
    ap.add_argument("--variant", default="normal")
    ap.add_argument("--ini", help="our ini for the referee (default: the package's pieces.ini)")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--tc", default="10+0.1", help="BASE+INC in seconds (default 10+0.1)")
    ap.add_argument("--st", type=float, help="fixed seconds per move instead of --tc")
    ap.add_argument("--depth", type=int, help="also send `sd DEPTH`")
    ap.add_argument("--opening-plies", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=600)
    ap.add_argument("--grace", type=float, default=0.0, help="seconds past zero before a flag falls")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--pgn", default="match.pgn")
    ap.add_argument("--resume", action="store_true", help="skip rounds already in the PGN")
    ap.add_argument("--log", help="write all engine traffic to this file")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    base, _, inc = args.tc.partition("+")
    settings = Settings(variant=args.variant, base=float(base), inc=float(inc or 0), st=args.st,
                        depth=args.depth, opening_plies=args.opening_plies, seed=args.seed,
                        max_plies=args.max_plies, grace=args.grace, ini=args.ini)
    try:
        make_board(settings)
    except KeyError:
        print(f"unknown variant {args.variant}", file=sys.stderr)
        return 2
    pgn = Path(args.pgn)
    pgn.parent.mkdir(parents=True, exist_ok=True)
    done = read_pgn(pgn) if args.resume else []
    if not args.resume and pgn.exists():
        pgn.unlink()
    done_rounds = {r for r, *_ in done}
    todo: "queue.Queue[int]" = queue.Queue()
    for g in range(1, args.games + 1):
        if g not in done_rounds:
            todo.put(g)
    lock = threading.Lock()
    scores = [s for r, _, _, res in done
              if (s := score_of(res, r % 2 == 1)) is not None]
    log_file = open(args.log, "a") if args.log else None

    def log(text):
        if log_file:
            with lock:
                log_file.write(f"{time.monotonic():.3f} {text}\n")
                log_file.flush()

    def worker(wid: int):
        e1 = Engine(args.engine1, "engine1", args.option1, args.memory, log)
        e2 = Engine(args.engine2, "engine2", args.option2, args.memory, log)
        try:
            while True:
                try:
                    g = todo.get_nowait()
                except queue.Empty:
                    return
                pair = (g - 1) // 2
                book = opening(settings, pair)
                white_first = g % 2 == 1
                engines = [e1, e2] if white_first else [e2, e1]
                rec = GameRecord(g, engines[0].name, engines[1].name)
                try:
                    play_game(engines, rec, settings, book)
                except EngineDied as died:
                    side = 0 if engines[0].label == str(died) else 1
                    rec.result = "0-1" if side == 0 else "1-0"
                    rec.reason = f"{('White', 'Black')[side]} died"
                end_game(engines, rec)
                s = score_of(rec.result, white_first)
                with lock:
                    with open(pgn, "a") as f:
                        f.write(pgn_text(rec, settings))
                    if s is not None:
                        scores.append(s)
                    if not args.quiet:
                        print(f"game {g}: {rec.white} - {rec.black} {rec.result} {{{rec.reason}}}"
                              f"  [{summary(scores)}]", flush=True)
        finally:
            e1.close()
            e2.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True)
               for i in range(max(1, args.concurrency))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except KeyboardInterrupt:
        print("interrupted; rerun with --resume to continue", file=sys.stderr)
        return 130
    print(summary(scores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
