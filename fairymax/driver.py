"""CECP (XBoard protocol v2) driver: the engine's conversation with a GUI.

Threads:
- the *reader* thread reads stdin and puts each line on a queue (it also answers
  `protover` with `feature done=0` at once, so the GUI waits for slow start-up);
- the *main* thread (Driver.run) takes lines from the queue and executes them,
  one method per command (cmd_new, cmd_usermove, ...);
- a *search* thread runs one SearchJob at a time (Searcher.iterate releases the
  GIL inside its iterations), prints thinking output and, when it ends, puts
  the job itself on the queue so the main thread plays the move.

Ordering rules (CECP §7): while the engine thinks about its own move, commands
that end or change the search (`?`, `force`, `new`, `result`, `quit`, `undo`,
`setboard`, ...) stop it at once; all others (notably `ping`, `time`, moves)
wait until the move is out, so `pong` always follows the move.  While pondering
or analysing, harmless commands (`ping`, `time`, `post`, `.`) are answered
without disturbing the search; anything that changes the position stops it.

Every stdout line is protocol (flushed as written); debug lines start with `#`.
"""
from __future__ import annotations

import argparse
import os
import queue
import re
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, Optional

from fairymax import timeman

ENGINE_NAME = "fairymax"
DEFAULT_HASH_MB = 64
MATE_FALLBACK = 30000
MATE_WINDOW = 1000          # |score| > MATE - MATE_WINDOW is a mate score
DRAW_ACCEPT_CP = -150       # accept a draw offer when our score is at most this

# command groups, see the module docstring
STOPS_THINKING = {"?", "quit", "force", "new", "result", "undo", "remove", "setboard", "edit",
                  "variant", "analyze", "playother", "pause", "memory", "exit"}
HARMLESS = {"ping", "time", "otim", "post", "nopost", "hard", "computer", "name", "rating",
            "ics", "accepted", "rejected", "random", "hint", "bk", ".", "cores", "egtpath",
            "draw", "level", "st", "sd", "nps", "protover", "xboard"}
WHILE_THINKING = {"post", "nopost", "hard", "easy", "otim", "computer", "name", "rating", "ics",
                  "accepted", "rejected", "random", "cores", "egtpath"}
MOVE_LIKE = re.compile(r"^([a-z]\d+[a-z]\d+|[A-Za-z]@[a-z]\d+|@@@@|O-O(-O)?|0-0(-0)?)", re.I)
SQUARE = re.compile(r"^([a-z])(\d+)$")
EDIT_LINE = re.compile(r"^([#c.]|[A-Za-z][+~]?[a-z]\d+)$")   # other lines: normal commands

# What XBoard 4.9.1 does by variant (backend.c).  It shuffles the start position of
# these parents in every game of a match, so engine-defined variants go to it as `fairy`.
SHUFFLING_PARENTS = {"nocastle", "wildcastle", "fischerandom", "caparandom"}
# With -testClaims it checks an engine's result claims against its own rules: the bare
# king wins only in shatranj, and a stalemate loses only here (it is a draw elsewhere).
# A rule ending it does not know would be scored a false claim, so the engine plays on.
XBOARD_BARE_KING_VARIANTS = {"shatranj"}
XBOARD_STALEMATE_LOSES = {"shatranj", "xiangqi", "shogi"}


def _version() -> str:
    try:
        from fairymax import __version__
        return str(__version__)
    except Exception:
        return "0.1"


class SearchJob:
    """One search: its kind ("think", "ponder", "analyze"), board copy, limits and result."""

    def __init__(self, kind: str, board, limits: timeman.Limits, ponder_move: int = 0,
                 exclude=(), multipv: int = 1):
        self.kind = kind
        self.board = board                  # a private copy: the searcher may use it freely
        self.limits = limits
        self.ponder_move = ponder_move      # the opponent move assumed while pondering
        self.exclude = tuple(exclude)
        self.multipv = multipv
        self.start = time.monotonic()       # reset on a ponder hit
        self.stop_flag = False
        self.best = None                    # last SearchInfo with a PV
        self.last = None                    # last SearchInfo
        self.thread: Optional[threading.Thread] = None
        self.timer: Optional[threading.Timer] = None

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.start) * 1000.0

    def soft_limit_reached(self, info) -> bool:
        """Whether to start no further iteration (own-move searches only)."""
        if self.kind != "think":
            return False
        lim = self.limits
        if lim.soft_ms is not None and self.elapsed_ms() >= lim.soft_ms:
            return True
        if lim.soft_nodes is not None and info.nodes >= lim.soft_nodes:
            return True
        return False


class Driver:
    """The CECP state machine.  `run()` serves commands until `quit` or end of input."""

    def __init__(self, ini: Optional[str] = None, hash_mb: int = DEFAULT_HASH_MB,
                 out=None, debug: bool = False):
        from fairymax import loader
        self.loader = loader
        self.out = out if out is not None else sys.stdout
        self.out_lock = threading.Lock()
        self.debug_enabled = debug
        self.queue: "queue.Queue[object]" = queue.Queue()
        self.ini_path = str(Path(ini).resolve()) if ini else str(loader.default_ini_path())
        self.specs = loader.load_file(self.ini_path)
        self.variant_cache: dict = {}
        self.hash_mb = max(1, int(hash_mb))
        self.searcher = None                # created lazily (hash allocation)
        self.tm = timeman.TimeManager()
        self.cores = 1
        # options
        self.resign_enabled = False
        self.resign_threshold = 800
        self.claim_moves = 50
        self.multipv = 1
        fairy = self.fairy_names()
        self.fairy_choice = fairy[0] if fairy else None
        makruk = self.makruk_names()
        self.makruk_choice = makruk[0] if makruk else None
        # game state
        self.variant_name = ""
        self.board = None
        self.set_variant(self.default_variant())
        self.force = False
        self.engine_side = 1                # colour the engine plays (when not in force mode)
        self.post = False
        self.ponder = False
        self.analyzing = False
        self.paused = False
        self.editing = False
        self.edit_colour = 0
        self.excluded: set = set()
        self.job: Optional[SearchJob] = None
        self.deferred: list = []
        self.last_score: Optional[int] = None
        self.last_pv: list = []
        self.draw_offered = False
        self.quitting = False
        self.done0_sent = False             # main(): the reader thread sends it on `protover`
        self.commands: dict[str, Callable[[str], None]] = {
            name[4:]: getattr(self, name) for name in dir(self) if name.startswith("cmd_")}
        self.commands["?"] = self.cmd_movenow
        self.commands["."] = self.cmd_dot
        self.commands["#"] = self.cmd_comment

    # ------------------------------------------------------------------ output
    def send(self, line: str) -> None:
        """Write one protocol line and flush it."""
        with self.out_lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                os._exit(0)         # the GUI is gone

    def debug(self, text: str) -> None:
        """A `#` line (GUIs log it; python-chess ignores it)."""
        for part in str(text).splitlines() or [""]:
            self.send("# " + part)

    # ------------------------------------------------------------ variants
    def fairy_names(self) -> list:
        return [n for n in self.specs if n.startswith("fairy/")]

    def makruk_names(self) -> list:
        caps = [n for n in self.specs if n[:1].isupper()]
        return (["makruk"] + caps) if caps and "makruk" in self.specs else []

    def variant_list(self) -> list:
        """Fairy-Max's list: ini names not capitalised and not fairy/..., plus "fairy"."""
        names = [n for n in self.specs if not n[:1].isupper() and not n.startswith("fairy/")]
        if self.fairy_names() and "fairy" not in names:
            names.append("fairy")
        return names

    def default_variant(self) -> str:
        return "normal" if "normal" in self.specs else next(iter(self.specs))

    def resolve_variant(self, name: str) -> Optional[str]:
        """The ini game a `variant` argument selects, or None."""
        name = name.strip()
        m = re.match(r"^\d+x\d+\+\d+_(.+)$", name)
        if m and m.group(1) in self.specs:
            name = m.group(1)
        if name == "fairy" and "fairy" not in self.specs:
            return self.fairy_choice
        if name == "makruk" and self.makruk_choice:
            return self.makruk_choice
        if name in self.specs:
            return name
        lowered = {n.lower(): n for n in self.specs if not n[:1].isupper()}
        return lowered.get(name.lower())

    def compiled_variant(self, name: str, rule_endings: bool = True):
        """The compiled rules of ini game `name` (cached), with or without the endings
        by hill and bare king (see Variant)."""
        variant = self.variant_cache.get((name, rule_endings))
        if variant is None:
            from fairymax import evaluate
            from fairymax.variant import Variant
            variant = Variant(self.specs[name], rule_endings=rule_endings)
            evaluate.init_psq(variant)
            self.variant_cache[(name, rule_endings)] = variant
        return variant

    def make_board(self, name: str):
        """A Board at the start position of ini game `name`."""
        from fairymax.board import Board
        return Board(self.compiled_variant(name))

    def set_variant(self, name: str, requested: Optional[str] = None) -> None:
        """Start ini game `name`, which the GUI knows as `requested` (e.g. `fairy` for an army)."""
        self.board = self.make_board(name)
        self.variant_name = name
        self.gui_variant = self.gui_parent(name, requested or name) or (requested or name)
        self.position_valid = True
        self.position_changed()

    def gui_parent(self, name: str, requested: str) -> Optional[str]:
        """The XBoard variant an engine-defined game is set up on, or None if XBoard
        knows the game itself.  A fairy army is set up on `fairy`; a parent whose start
        position XBoard would shuffle is replaced by `fairy`."""
        parent = self.specs[name].parent
        if parent is None and requested == "fairy" and name != "fairy":
            parent = "fairy"
        return "fairy" if parent in SHUFFLING_PARENTS else parent

    def setup_lines(self, name: str, requested: str) -> list:
        """What `variant NAME` answers: `setup` for engine-defined variants, `piece` lines."""
        spec = self.specs[name]
        lines = []
        parent = self.gui_parent(name, requested)
        if parent:
            ptc = f"({spec.piece_to_char}) " if spec.piece_to_char else ""
            lines.append(f"setup {ptc}{spec.width}x{spec.height}+0_{parent} {self.board.fen()}")
        for gui in spec.gui_lines:
            lines.append(f"piece {gui}")
        return lines

    def gui_rule_ending(self, board) -> Optional[tuple]:
        """A hill or bare-king ending that XBoard would not recognise in this variant."""
        strict = board.with_variant(self.compiled_variant(self.variant_name))
        ending = strict.variant_rule_ending()
        if ending is None:
            return None
        if ending[2] == "bare-king" and self.gui_variant in XBOARD_BARE_KING_VARIANTS:
            return None
        return ending

    def apply_gui_rules(self) -> None:
        """Past an ending XBoard does not know, go on under the rules without it (toward
        mate); everywhere else play by the variant's full rules."""
        relaxed = self.gui_rule_ending(self.board) is not None
        variant = self.compiled_variant(self.variant_name, rule_endings=not relaxed)
        if self.board.variant is not variant:
            self.board = self.board.with_variant(variant)

    # ------------------------------------------------------------ search plumbing
    def get_searcher(self):
        if self.searcher is None:
            from fairymax.search import Searcher
            self.searcher = Searcher(hash_mb=self.hash_mb)
        return self.searcher

    def mate_value(self) -> int:
        try:
            from fairymax import search
            return int(getattr(search, "MATE", MATE_FALLBACK))
        except Exception:
            return MATE_FALLBACK

    def format_score(self, score: int) -> int:
        """Searcher score (MATE - ply) -> CECP score (100000 + moves)."""
        mate = self.mate_value()
        if score > mate - MATE_WINDOW:
            return 100000 + (mate - score + 1) // 2
        if score < -mate + MATE_WINDOW:
            return -100000 - (mate + score + 1) // 2
        return int(score)

    def pv_text(self, board, pv, prefix: int = 0) -> str:
        """PV moves in XBoard coordinates, played out on a copy of board."""
        b = board.copy()
        words = []
        moves = ([prefix] if prefix else []) + list(pv)
        if prefix:
            b.pop()                 # the ponder board already has the ponder move on it
        for m in moves:
            try:
                words.append(b.move_text(m))
                b.push(m)
            except Exception:
                break
        return " ".join(words)

    def thinking_line(self, job: SearchJob, info) -> str:
        score = self.format_score(info.score)
        prefix = 0
        if job.kind == "ponder":
            score, prefix = -score, job.ponder_move
        return (f"{info.depth} {score} {int(info.time_ms) // 10} {info.nodes} "
                f"{self.pv_text(job.board, info.pv, prefix)}")

    def run_job(self, job: SearchJob) -> None:
        """Search thread body: iterate, print thinking output, hand the job back."""
        gen = None
        try:
            lim = job.limits
            gen = self.get_searcher().iterate(
                job.board, max_depth=lim.depth, max_nodes=lim.nodes,
                hard_ms=lim.hard_ms if job.kind == "think" else None,
                exclude=job.exclude, multipv=job.multipv)
            for info in gen:
                job.last = info
                if info.pv and getattr(info, "multipv", 1) == 1:
                    job.best = info             # the first line of a multi-PV search
                if (self.post or job.kind == "analyze") and info.pv:
                    with self.out_lock:
                        stopped = job.stop_flag and job.kind != "think"
                    if not stopped:
                        self.send(self.thinking_line(job, info))
                if job.stop_flag or job.soft_limit_reached(info):
                    break
        except Exception:
            self.debug("search error: " + traceback.format_exc())
        finally:
            if gen is not None:
                try:
                    gen.close()
                except Exception:
                    pass
            self.queue.put(job)

    def start_job(self, job: SearchJob) -> None:
        self.get_searcher()
        self.job = job
        job.thread = threading.Thread(target=self.run_job, args=(job,), daemon=True)
        job.thread.start()
        if job.kind == "think":
            self.arm_timer(job)

    def arm_timer(self, job: SearchJob) -> None:
        """Backup hard limit: stop the search a little after hard_ms."""
        if job.limits.hard_ms is None:
            return
        delay = (job.limits.hard_ms + 5.0) / 1000.0

        def fire():
            if not job.stop_flag:
                job.stop_flag = True
                self.searcher.stop()
        job.timer = threading.Timer(delay, fire)
        job.timer.daemon = True
        job.timer.start()

    def stop_job(self) -> Optional[SearchJob]:
        """Stop the running job (if any), wait for its thread, detach and return it."""
        job = self.job
        if job is None:
            return None
        self.job = None
        with self.out_lock:
            job.stop_flag = True
        if job.timer is not None:
            job.timer.cancel()
        if job.thread is not None:
            deadline = time.monotonic() + 10.0
            while job.thread.is_alive() and time.monotonic() < deadline:
                self.searcher.stop()
                job.thread.join(0.005)
        return job

    def on_job_done(self, job: SearchJob) -> None:
        """A search thread ended by itself (limit reached, or depth cap)."""
        if job is not self.job:
            return                      # stopped and handled already
        if job.timer is not None:
            job.timer.cancel()
        if job.kind == "think":
            self.job = None
            self.finish_think(job)
            self.flush_deferred()
        # ponder / analyze: keep the finished job; a ponder hit uses its result

    def flush_deferred(self) -> None:
        pending, self.deferred = self.deferred, []
        for line in pending:
            self.handle_line(line)

    # ------------------------------------------------------------ playing
    def outcome(self, board=None):
        """The result to claim in this position, judged as XBoard judges the variant."""
        board = board or self.board
        claim = self.claim_moves if self.claim_moves > 0 else 10 ** 6
        result = board.outcome(claim_moves=claim)
        if result is not None and not board.in_check() and not board.legal_moves():
            loser = board.side_to_move
            if self.gui_variant in XBOARD_STALEMATE_LOSES:
                return ("0-1" if loser == 0 else "1-0"), "Stalemate"
            return "1/2-1/2", "Stalemate"
        return result

    def claim_if_over(self) -> bool:
        """Send the result if the game is over in the current position."""
        result = self.outcome()
        if result is None:
            return False
        res, comment = result
        self.send(f"{res} {{{comment}}}")
        return True

    def engine_to_move(self) -> bool:
        return (not self.force and not self.analyzing
                and self.board.side_to_move == self.engine_side)

    def start_think(self) -> None:
        """Search the current position for the engine's move (claims instead if over)."""
        if not self.position_valid:
            self.send("Error (no valid position: send setboard or new): go")
            return
        if self.paused or self.claim_if_over():
            return
        legal = self.board.legal_moves()
        if not legal:
            return
        limits = self.tm.allot()
        excluded = [m for m in legal if m in self.excluded]
        if len(excluded) == len(legal):
            excluded = []                   # everything excluded: ignore the exclusions
        if len(legal) - len(excluded) == 1:
            limits.soft_ms, limits.soft_nodes = 0.0, 1
        self.start_job(SearchJob("think", self.board.copy(), limits, exclude=excluded))

    def quick_move(self) -> Optional[int]:
        """A move when the search produced none (stopped before depth 1 ended)."""
        legal = self.board.legal_moves()
        if not legal:
            return None
        try:
            for info in self.get_searcher().iterate(self.board.copy(), max_depth=1):
                if info.pv:
                    return info.pv[0]
        except Exception:
            pass
        return legal[0]

    def finish_think(self, job: SearchJob) -> None:
        """Play (or resign) the result of an own-move search."""
        used = job.elapsed_ms()
        best = job.best
        move = best.pv[0] if best is not None and best.pv else None
        if move is None or move not in self.board.legal_moves():
            move = self.quick_move()
            best = None
        if move is None:
            self.claim_if_over()
            return
        self.tm.record_move(used)
        self.last_score = best.score if best is not None else None
        if (self.resign_enabled and best is not None and best.depth > 1
                and best.score <= -self.resign_threshold):
            self.send("resign")
            self.force = True
            return
        if self.draw_offered and self.last_score is not None and self.last_score <= DRAW_ACCEPT_CP:
            self.send("offer draw")
        self.draw_offered = False
        text = self.board.move_text(move)
        self.board.push(move)
        self.position_changed()
        self.send(f"move {text}")
        self.last_pv = list(best.pv[1:]) if best is not None else []
        if self.claim_if_over():
            return
        self.start_ponder()

    def start_ponder(self) -> None:
        """After an own move with `hard`: think on the opponent's expected reply."""
        if not self.ponder or self.force or self.analyzing or self.paused or self.tm.nps:
            return
        if not self.last_pv:
            return
        guess = self.last_pv[0]
        if guess not in self.board.legal_moves():
            return
        board = self.board.copy()
        board.push(guess)
        if self.outcome(board) is not None or not board.legal_moves():
            return
        self.start_job(SearchJob("ponder", board, timeman.Limits(depth=self.tm.depth),
                                 ponder_move=guess))

    def ponder_hit(self, job: SearchJob) -> None:
        """The opponent played the move we pondered on: that search becomes ours."""
        job.limits = self.tm.allot()
        job.start = time.monotonic()
        job.kind = "think"
        if not job.thread.is_alive():
            self.job = None
            self.finish_think(job)
            return
        self.arm_timer(job)

    def start_analysis(self) -> None:
        if self.paused or not self.analyzing or self.job is not None:
            return
        legal = self.board.legal_moves()
        moves = [m for m in legal if m not in self.excluded]
        if not moves:
            return
        self.start_job(SearchJob("analyze", self.board.copy(), timeman.Limits(depth=self.tm.depth),
                                 exclude=[m for m in self.excluded if m in legal],
                                 multipv=max(1, self.multipv)))

    def position_changed(self) -> None:
        self.excluded = set()
        self.apply_gui_rules()

    def parse_move(self, text: str) -> Optional[int]:
        """Move text -> move int, or None when malformed or illegal."""
        text = text.strip()
        try:
            return self.board.parse_move(text)
        except Exception:
            pass
        castle = text.upper().replace("0", "O")
        if castle in ("O-O", "O-O-O"):
            for m in self.board.legal_moves():
                if (m >> 22) & 3 == 2:            # MK_CASTLE
                    frm, to = m & 0x1FF, (m >> 9) & 0x1FF
                    if ((to & 15) > (frm & 15)) == (castle == "O-O"):
                        return m
        return None

    # ------------------------------------------------------------ dispatch
    def run(self) -> int:
        """Serve commands until `quit` or end of input."""
        while not self.quitting:
            item = self.queue.get()
            if item is None:
                break
            if isinstance(item, SearchJob):
                self.on_job_done(item)
                continue
            try:
                self.handle_line(item)
            except Exception:
                self.debug("internal error on %r: %s" % (item, traceback.format_exc()))
        self.stop_job()
        return 0

    def handle_line(self, line: str) -> None:
        line = line.strip()
        if not line:
            return
        cmd, _, arg = line.partition(" ")
        arg = arg.strip()
        job = self.job
        if job is not None:
            if job.kind == "think":
                if cmd == "?":
                    self.stop_job()
                    self.finish_think(job)
                    self.flush_deferred()
                    return
                if cmd in WHILE_THINKING:
                    pass
                elif cmd in STOPS_THINKING:
                    self.stop_job()
                    self.flush_deferred()       # may start a new search: look again
                    self.handle_line(line)
                    return
                else:
                    self.deferred.append(line)
                    return
            elif job.kind == "ponder":
                if cmd in HARMLESS:
                    pass
                elif cmd == "usermove" or (cmd not in self.commands and MOVE_LIKE.match(line)):
                    text = arg if cmd == "usermove" else line
                    move = self.parse_move(text)
                    if move is None:
                        self.send(f"Illegal move: {text}")
                        return
                    if move == job.ponder_move:
                        self.board.push(move)
                        self.position_changed()
                        self.ponder_hit(job)
                        return
                    self.stop_job()
                else:
                    self.stop_job()
            elif job.kind == "analyze":
                if cmd not in HARMLESS:
                    self.stop_job()
        if self.editing and EDIT_LINE.match(line):
            self.edit_command(line)
        else:
            handler = self.commands.get(cmd)
            if handler is not None:
                handler(arg)
            elif MOVE_LIKE.match(line) or self.parse_move(line) is not None:
                self.cmd_usermove(line)
            else:
                self.send(f"Error (unknown command): {cmd}")
        if not self.editing and self.analyzing and self.job is None and not self.quitting:
            self.start_analysis()

    # ------------------------------------------------------------ commands
    def cmd_xboard(self, arg: str) -> None:
        pass

    def cmd_protover(self, arg: str) -> None:
        if not self.done0_sent:
            self.send("feature done=0")
        self.send(f'feature myname="{ENGINE_NAME} {_version()}"')
        self.send("feature ping=1 setboard=1 playother=1 usermove=1 san=0 time=1 draw=1 "
                  "sigint=0 sigterm=0 reuse=1 analyze=1 colors=0 memory=1 smp=1 exclude=1 "
                  "pause=1 nps=1 debug=1")
        self.send(f'feature variants="{",".join(self.variant_list())}"')
        for option in self.option_features():
            self.send(f'feature option="{option}"')
        self.send("feature done=1")

    def option_features(self) -> list:
        opts = [
            f"Resign -check {int(self.resign_enabled)}",
            f"ResignThreshold -spin {self.resign_threshold} 200 1200",
            f"ClaimDrawAfter -spin {self.claim_moves} 0 200",
            f"IniFile -file {self.ini_path}",
            f"MultiPVLines -spin {self.multipv} 1 32",
            f"MoveOverhead -spin {int(self.tm.overhead_ms)} 0 10000",
        ]
        fairy = self.fairy_names()
        if fairy:
            opts.append("VariantFairySelects -combo " + " /// ".join(
                ("*" if n == self.fairy_choice else "") + n for n in fairy))
        makruk = self.makruk_names()
        if makruk:
            opts.append("MakrukRules -combo " + " /// ".join(
                ("*" if n == self.makruk_choice else "") + n for n in makruk))
        opts.append("ClearHash -button")
        return opts

    def cmd_accepted(self, arg: str) -> None:
        pass

    def cmd_rejected(self, arg: str) -> None:
        pass

    def cmd_new(self, arg: str) -> None:
        self.set_variant(self.default_variant())
        self.force = False
        self.engine_side = 1
        self.paused = False
        self.editing = False
        self.draw_offered = False
        self.last_pv = []
        self.last_score = None
        self.tm.new_game()
        if self.searcher is not None:
            self.searcher.clear()

    def cmd_variant(self, arg: str) -> None:
        name = self.resolve_variant(arg)
        if name is None:
            self.send(f"Error (unsupported variant): {arg}")
            return
        try:
            self.set_variant(name, arg)
        except Exception as exc:
            self.send(f"tellusererror variant {arg}: {exc}")
            return
        for line in self.setup_lines(name, arg):
            self.send(line)

    def cmd_quit(self, arg: str) -> None:
        self.quitting = True

    def cmd_force(self, arg: str) -> None:
        self.force = True

    def cmd_go(self, arg: str) -> None:
        if self.analyzing:
            return
        self.force = False
        self.engine_side = self.board.side_to_move
        self.start_think()

    def cmd_playother(self, arg: str) -> None:
        if self.analyzing:
            return
        self.force = False
        self.engine_side = 1 - self.board.side_to_move

    def cmd_white(self, arg: str) -> None:     # colors=0: never sent, accepted anyway
        self.force = False
        self.engine_side = 1

    def cmd_black(self, arg: str) -> None:
        self.force = False
        self.engine_side = 0

    def cmd_usermove(self, arg: str) -> None:
        if not self.position_valid:
            self.send(f"Error (no valid position: send setboard or new): {arg}")
            return
        move = self.parse_move(arg)
        if move is None:
            self.send(f"Illegal move: {arg}")
            return
        self.board.push(move)
        self.position_changed()
        if self.engine_to_move():
            self.start_think()

    def cmd_movenow(self, arg: str) -> None:
        pass                            # `?` when not thinking: nothing to do

    def cmd_ping(self, arg: str) -> None:
        self.send(f"pong {arg}".rstrip())

    def cmd_draw(self, arg: str) -> None:
        if self.last_score is not None and self.last_score <= DRAW_ACCEPT_CP and not self.force:
            self.send("offer draw")
        else:
            self.draw_offered = True

    def cmd_result(self, arg: str) -> None:
        self.force = True
        self.last_pv = []

    def cmd_setboard(self, arg: str) -> None:
        """Set up a FEN; one that cannot be read leaves no position to play from, so the
        engine will not move from a stale one."""
        try:
            self.board.set_fen(arg)
        except ValueError as exc:
            self.send(f"tellusererror Illegal position: {exc}")
            self.position_valid = False
            return
        self.position_valid = True
        self.position_changed()

    def cmd_edit(self, arg: str) -> None:
        self._edit_grid = None
        self.editing = True
        self.edit_colour = 0

    def edit_command(self, line: str) -> None:
        """One line of `edit` mode: `#`, `c`, `Pa4`, `xa4`, `.`."""
        if line == ".":
            self.editing = False
            self.finish_edit()
            return
        grid = self.edit_grid
        if line == "#":
            for row in grid:
                row[:] = [None] * len(row)
        elif line == "c":
            self.edit_colour ^= 1
        elif len(line) >= 3:
            letter, sq = line[0], self.square(line[1:].lstrip("+~"))
            if sq is not None:
                row, file = sq
                if letter in "xX":
                    grid[row][file] = None
                elif letter.isalpha():
                    grid[row][file] = letter.upper() if self.edit_colour == 0 else letter.lower()

    def square(self, text: str):
        """XBoard square text -> (row from the top, file), or None."""
        m = SQUARE.match(text.strip())
        if not m:
            return None
        width, height = self.board.variant.width, self.board.variant.height
        file = ord(m.group(1)) - ord("a")
        rank = int(m.group(2)) - (0 if height == 10 else 1)
        if not (0 <= file < width and 0 <= rank < height):
            return None
        return height - 1 - rank, file

    @property
    def edit_grid(self):
        if getattr(self, "_edit_grid", None) is None or self._edit_grid_for is not self.board:
            self._edit_grid = fen_to_grid(self.board.fen(), self.board.variant.width,
                                          self.board.variant.height)
            self._edit_grid_for = self.board
        return self._edit_grid

    def finish_edit(self) -> None:
        """Leave edit mode: set the edited position (side to move unchanged)."""
        grid = self.edit_grid
        self._edit_grid = None
        stm = "b" if self.board.side_to_move else "w"
        start = fen_to_grid(self.make_board(self.variant_name).fen(), len(grid[0]), len(grid))
        start_castling = self.make_board(self.variant_name).fen().split()[2:3] or ["-"]
        castling = "-"
        if start_castling[0] != "-":
            rights = ""
            for flag, row in (("KQ", len(grid) - 1), ("kq", 0)):
                for ch in flag:
                    if ch.lower() not in start_castling[0].lower():
                        continue
                    side_file = len(grid[0]) - 1 if ch.lower() == "k" else 0
                    royal = [f for f, p in enumerate(start[row]) if p and p.upper() == "K"]
                    if (royal and grid[row][royal[0]] == start[row][royal[0]]
                            and grid[row][side_file] == start[row][side_file]):
                        rights += ch
            castling = rights or "-"
        body = grid_to_fen(grid)
        for fen in (f"{body} {stm} {castling} - 0 1", f"{body} {stm} - - 0 1"):
            try:
                self.board.set_fen(fen)
            except ValueError:
                continue
            self.position_valid = True
            self.position_changed()
            return
        self.send("tellusererror Illegal position")
        self.position_valid = False

    def cmd_undo(self, arg: str) -> None:
        self.take_back(1)

    def cmd_remove(self, arg: str) -> None:
        self.take_back(2)

    def take_back(self, plies: int) -> None:
        if len(self.board.history) < plies:
            self.send(f"Error (command not legal now): {'undo' if plies == 1 else 'remove'}")
            return
        for _ in range(plies):
            self.board.pop()
        self.position_changed()
        self.last_pv = []

    def cmd_hint(self, arg: str) -> None:
        if self.last_pv and self.last_pv[0] in self.board.legal_moves():
            self.send(f"Hint: {self.board.move_text(self.last_pv[0])}")

    def cmd_bk(self, arg: str) -> None:
        self.send(" no book")
        self.send("")

    def cmd_hard(self, arg: str) -> None:
        self.ponder = True

    def cmd_easy(self, arg: str) -> None:
        self.ponder = False
        if self.job is not None and self.job.kind == "ponder":
            self.stop_job()

    def cmd_post(self, arg: str) -> None:
        self.post = True

    def cmd_nopost(self, arg: str) -> None:
        self.post = False

    def cmd_analyze(self, arg: str) -> None:
        self.analyzing = True

    def cmd_exit(self, arg: str) -> None:
        self.analyzing = False

    def cmd_dot(self, arg: str) -> None:
        job = self.job
        if self.analyzing and job is not None and job.last is not None:
            info = job.last
            nmoves = len(self.board.legal_moves())
            self.send(f"stat01: {int(job.elapsed_ms()) // 10} {info.nodes} {info.depth} 0 {nmoves}")

    def cmd_comment(self, arg: str) -> None:
        pass

    def cmd_exclude(self, arg: str) -> None:
        self.exclude_include(arg, True)

    def cmd_include(self, arg: str) -> None:
        self.exclude_include(arg, False)

    def exclude_include(self, arg: str, exclude: bool) -> None:
        if arg == "all":
            self.excluded = set(self.board.legal_moves()) if exclude else set()
            return
        move = self.parse_move(arg)
        if move is None:
            self.send(f"Illegal move: {arg}")
            return
        if exclude:
            self.excluded.add(move)
        else:
            self.excluded.discard(move)

    def cmd_name(self, arg: str) -> None:
        pass

    def cmd_rating(self, arg: str) -> None:
        pass

    def cmd_ics(self, arg: str) -> None:
        pass

    def cmd_computer(self, arg: str) -> None:
        pass

    def cmd_random(self, arg: str) -> None:
        pass

    def cmd_pause(self, arg: str) -> None:
        self.paused = True

    def cmd_resume(self, arg: str) -> None:
        if not self.paused:
            return
        self.paused = False
        if self.engine_to_move():
            self.start_think()

    def cmd_memory(self, arg: str) -> None:
        try:
            mb = max(1, int(float(arg)))
        except ValueError:
            self.send(f"Error (bad argument): memory {arg}")
            return
        self.hash_mb = mb
        if self.searcher is not None:
            self.searcher.resize(mb)

    def cmd_cores(self, arg: str) -> None:
        try:
            self.cores = max(1, int(float(arg)))
        except ValueError:
            pass

    def cmd_egtpath(self, arg: str) -> None:
        pass

    def cmd_level(self, arg: str) -> None:
        self.time_command(self.tm.level, "level", arg)

    def cmd_st(self, arg: str) -> None:
        self.time_command(self.tm.st, "st", arg)

    def cmd_sd(self, arg: str) -> None:
        self.time_command(self.tm.sd, "sd", arg)

    def cmd_nps(self, arg: str) -> None:
        self.time_command(self.tm.set_nps, "nps", arg)

    def cmd_time(self, arg: str) -> None:
        self.time_command(self.tm.time, "time", arg)

    def cmd_otim(self, arg: str) -> None:
        self.time_command(self.tm.otim, "otim", arg)

    def time_command(self, method, name: str, arg: str) -> None:
        try:
            method(arg)
        except (ValueError, OverflowError):
            self.send(f"Error (bad argument): {name} {arg}")

    def cmd_option(self, arg: str) -> None:
        name, _, value = arg.partition("=")
        name, value = name.strip(), value.strip()
        key = name.lower()
        try:
            if key == "resign":
                self.resign_enabled = bool(int(value))
            elif key == "resignthreshold":
                self.resign_threshold = min(max(int(value), 1), 100000)
            elif key == "claimdrawafter":
                self.claim_moves = max(0, int(value))
            elif key in ("multipvlines", "multipv"):
                self.multipv = min(max(int(value), 1), 256)
            elif key == "moveoverhead":
                self.tm.overhead_ms = max(0, int(value))
            elif key == "inifile":
                self.load_ini(value)
            elif key == "variantfairyselects":
                if value not in self.specs:
                    raise ValueError(value)
                self.fairy_choice = value
            elif key == "makrukrules":
                if value not in self.specs:
                    raise ValueError(value)
                self.makruk_choice = value
            elif key == "clearhash":
                if self.searcher is not None:
                    self.searcher.clear()
            else:
                self.send(f"Error (unknown option): {name}")
        except ValueError:
            self.send(f"Error (bad option value): {arg}")

    def load_ini(self, path: str) -> None:
        try:
            specs = self.loader.load_file(path)
        except Exception as exc:
            self.send(f"tellusererror {exc}")
            return
        if not specs:
            self.send(f"tellusererror {path}: no Game: blocks")
            return
        self.ini_path, self.specs, self.variant_cache = str(Path(path).resolve()), specs, {}
        fairy = self.fairy_names()
        self.fairy_choice = fairy[0] if fairy else None
        makruk = self.makruk_names()
        self.makruk_choice = makruk[0] if makruk else None
        if self.variant_name not in specs:
            self.set_variant(self.default_variant())


# ---------------------------------------------------------------- FEN grids
def fen_to_grid(fen: str, width: int, height: int) -> list:
    """FEN board field -> rows (top rank first) of piece letters or None."""
    rows = fen.split()[0].split("/")
    grid = []
    for text in rows[:height]:
        row: list = []
        i = 0
        while i < len(text):
            if text[i].isdigit():
                j = i
                while j < len(text) and text[j].isdigit():
                    j += 1
                row.extend([None] * int(text[i:j]))
                i = j
            else:
                row.append(text[i])
                i += 1
        row = (row + [None] * width)[:width]
        grid.append(row)
    while len(grid) < height:
        grid.append([None] * width)
    return grid


def grid_to_fen(grid: list) -> str:
    """Rows of piece letters or None -> FEN board field (multi-digit gaps allowed)."""
    parts = []
    for row in grid:
        text, gap = "", 0
        for cell in row:
            if cell is None:
                gap += 1
            else:
                if gap:
                    text += str(gap)
                    gap = 0
                text += cell
        if gap:
            text += str(gap)
        parts.append(text)
    return "/".join(parts)


# ---------------------------------------------------------------- start-up
def reader(stream, driver_queue: "queue.Queue[object]", send_early: Callable[[str], None]) -> None:
    """Reader thread: stdin lines -> queue; `protover` gets `feature done=0` at once."""
    try:
        for raw in stream:
            line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            line = line.strip()
            if line.startswith("protover"):
                send_early("feature done=0")
            driver_queue.put(line)
    except Exception:
        pass
    driver_queue.put(None)


def main(argv: Optional[list] = None) -> int:
    """`python xboard.py [--ini FILE] [--hash MB] [--debug]`: serve CECP on stdin/stdout."""
    parser = argparse.ArgumentParser(prog="fairymax xboard", description=__doc__.splitlines()[0])
    parser.add_argument("--ini", help="piece/variant definition file (default: the bundled pieces.ini)")
    parser.add_argument("--hash", type=int, default=DEFAULT_HASH_MB, help="hash table size in MB")
    parser.add_argument("--debug", action="store_true", help="extra # lines")
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    for sig in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
        if sig is not None:
            try:
                signal.signal(sig, signal.SIG_IGN)
            except (ValueError, OSError):
                pass
    early_queue: "queue.Queue[object]" = queue.Queue()
    out_lock = threading.Lock()

    def send_early(line: str) -> None:
        with out_lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    thread = threading.Thread(target=reader, args=(sys.stdin.buffer, early_queue, send_early),
                              daemon=True)
    thread.start()
    try:
        driver = Driver(ini=args.ini, hash_mb=args.hash, debug=args.debug)
    except Exception as exc:
        send_early(f"tellusererror fairymax: {exc}")
        return 1
    driver.out_lock = out_lock
    driver.done0_sent = True
    driver.queue = early_queue
    rc = driver.run()
    try:
        sys.stdout.flush()
    except Exception:
        pass
    os._exit(rc)        # the reader thread may sit in a blocking read: do not wait for it
