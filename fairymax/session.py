"""The engine session: one game and the engine's work on it, with no protocol text.

A Session owns the variant (with the VariantFairySelects and MakrukRules choices),
the position and its history, whether that position is valid, the clocks (through
timeman), the options, and the searches: own moves, pondering, analysis, multi-PV
and excluded root moves.  It also knows the result rules a game ends by, including
what XBoard can referee (see XBOARD_* below), so that it claims only what the GUI
will confirm.

It prints nothing.  A front end (cecp.py, uci.py) turns protocol lines into calls of
its methods and hears back through a Listener: thinking reports, the engine's move,
result claims, resignation, draw offers.

Threads: every method is called on the front end's command thread.  A search runs on
a search thread (Searcher.iterate releases the GIL inside its iterations); that
thread calls Listener.on_info for each report and Listener.on_search_end(job) when the
search ends by itself.  The front end passes that job back to search_ended(job) on
its command thread, where the move is played and reported.
"""
from __future__ import annotations

import re
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from fairymax import evaluate, loader, timeman
from fairymax.board import Board
from fairymax.search import MATE, Searcher
from fairymax.variant import Variant

DEFAULT_HASH_MB = 64
MATE_WINDOW = 1000          # |score| > MATE - MATE_WINDOW is a mate score
DRAW_ACCEPT_CP = -150       # accept a draw offer when our score is at most this
MAX_MULTIPV = 256
MAX_PERFT_DEPTH = 20
VARIANT_WITH_SIZE = re.compile(r"^\d+x\d+\+\d+_(.+)$")     # XBoard's `10x8+0_capablanca`

# What XBoard 4.9.1 does by variant (backend.c).  It shuffles the start position of
# these parents in every game of a match, so engine-defined variants go to it as `fairy`.
SHUFFLING_PARENTS = {"nocastle", "wildcastle", "fischerandom", "caparandom"}
# With -testClaims it checks an engine's result claims against its own rules: the bare
# king wins only in shatranj, and a stalemate loses only here (it is a draw elsewhere).
# A rule ending it does not know would be scored a false claim, so the engine plays on.
XBOARD_BARE_KING_VARIANTS = {"shatranj"}
XBOARD_STALEMATE_LOSES = {"shatranj", "xiangqi", "shogi"}
# XBoard confirms a repetition claim when the position occurred this often before
# within this many plies (in drop games too, where a capture does not end the count)
XBOARD_REPETITIONS = 2
XBOARD_REPETITION_PLIES = 100
XBOARD_RULE_PLIES = 100      # ... and any draw claim once the fifty-move count is full


MAX_THREADS = 512            # each search thread takes about 1 MB besides the shared table


class NoPosition(Exception):
    """The last position set up could not be read: there is nothing to play from."""


@dataclass
class Thinking:
    """One thinking report, from the root position `board` (which `pv` starts from).

    score: centipawns for the side to move at `board`; mate: moves to mate (negative:
    being mated), or None; time_ms: since the search started; multipv: 1-based line;
    kind: the kind of the search that reports (see SearchJob).
    """
    depth: int
    seldepth: int
    multipv: int
    score: int
    mate: Optional[int]
    time_ms: int
    nodes: int
    board: Board
    pv: list
    kind: str
    hashfull: int               # permille of the hash table in use

    @property
    def nps(self) -> int:
        return self.nodes * 1000 // self.time_ms if self.time_ms > 0 else 0


class Listener:
    """What a front end hears from its session (every method does nothing here)."""

    def on_info(self, report: Thinking) -> None:
        """A thinking report (search thread)."""

    def on_search_end(self, job: "SearchJob") -> None:
        """A search ended by itself (search thread): pass `job` to
        Session.search_ended on the command thread."""

    def on_bestmove(self, board, move: Optional[int], ponder: Optional[int]) -> None:
        """The engine's move in `board` (None: it has none), and the reply it expects."""

    def on_result(self, result: str, comment: str) -> None:
        """The game is over by rule in the current position (a claim)."""

    def on_resign(self) -> None:
        """The engine gives up instead of moving."""

    def on_offer_draw(self) -> None:
        """The engine offers, or accepts, a draw."""

    def on_message(self, text: str) -> None:
        """Something for a human reading the log (an internal error)."""


class SearchJob:
    """One search: its kind, board copy, limits and result.

    Kinds: "think" searches for the engine's move and ends by its limits; "ponder"
    thinks on the opponent's time (on the move it expects, `ponder_move`, made on
    `board`) until ponder_hit turns it into "think"; "analyze" runs until stopped.
    """

    def __init__(self, kind: str, board, limits: timeman.Limits, ponder_move: int = 0,
                 exclude=(), multipv: int = 1, hit_limits: Optional[timeman.Limits] = None):
        self.kind = kind
        self.board = board                  # a private copy: the searcher may use it freely
        self.limits = limits
        self.ponder_move = ponder_move      # the opponent move assumed while pondering
        self.hit_limits = hit_limits        # limits after a ponder hit (None: from the clock)
        self.exclude = tuple(exclude)
        self.multipv = multipv
        self.start = time.monotonic()       # reset on a ponder hit
        self.stop_flag = False
        self.best = None                    # last SearchInfo of the first line with a PV
        self.scale = timeman.SoftLimitScale()   # of the soft limit, from the first line
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
        factor = self.scale.factor()
        if lim.soft_ms is not None and self.elapsed_ms() >= lim.soft_ms * factor:
            return True
        if lim.soft_nodes is not None and info.nodes >= lim.soft_nodes * factor:
            return True
        return False


def mate_in_moves(score: int) -> Optional[int]:
    """Moves to mate of a search score (MATE - plies), negative when being mated;
    None for an ordinary score."""
    if score > MATE - MATE_WINDOW:
        return (MATE - score + 1) // 2
    if score < -MATE + MATE_WINDOW:
        return -((MATE + score + 1) // 2)
    return None


def spell_moves(board, moves, spell) -> list:
    """Each move as `spell(board, move)` writes it, played out on a copy of board (up to
    the first move that is not legal there)."""
    b = board.copy()
    words = []
    for m in moves:
        try:
            words.append(spell(b, m))
            b.push(m)
        except Exception:
            break
    return words


class Session:
    """One engine's game and searches, for the front end that sets `listener`.

    As CECP wants by default; the UCI front end turns off
    plays_its_moves: the engine keeps the game: it makes its own moves on the board,
    claims results, resigns and ponders on the reply it expects (UCI: the engine only
    reports its move; the GUI sends every position), and
    xboard_rules: play only the rule endings XBoard can referee (see apply_gui_rules).
    """

    def __init__(self, ini: Optional[str] = None, hash_mb: int = DEFAULT_HASH_MB):
        self.listener = Listener()
        self.plays_its_moves = True
        self.xboard_rules = True
        self.ini_path = str(Path(ini).resolve()) if ini else str(loader.default_ini_path())
        self.specs = loader.load_file(self.ini_path)
        self.variant_cache: dict = {}
        self.hash_mb = max(1, int(hash_mb))
        # allocated now, not at the first search: under load the allocation of the
        # hash table took longer than a short move's soft limit, and that first
        # search stopped after one iteration
        self.searcher = Searcher(hash_mb=self.hash_mb)
        self.tm = timeman.TimeManager()
        # options
        self.resign_enabled = False
        self.resign_threshold = 800
        self.claim_moves = 50
        self.multipv = 1
        self.fairy_choice: Optional[str] = None
        self.makruk_choice: Optional[str] = None
        self.reset_choices()
        # the game
        self.variant_name = ""
        self.gui_variant = ""
        self.board = None
        self.position_valid = True
        self.excluded: set = set()
        self.set_variant(self.default_variant())
        self.force = False
        self.engine_side = 1                # colour the engine plays (when not in force mode)
        self.ponder = False
        self.analyzing = False
        self.paused = False
        self.job: Optional[SearchJob] = None
        self.last_score: Optional[int] = None
        self.last_pv: list = []
        self.draw_offered = False
        # held while a report goes out and while a search is marked stopped, so that
        # no report of a stopped ponder or analysis follows the command that stopped it
        self.report_lock = threading.Lock()

    # ------------------------------------------------------------ variants
    def fairy_names(self) -> list:
        return [n for n in self.specs if n.startswith("fairy/")]

    def makruk_names(self) -> list:
        caps = [n for n in self.specs if n[:1].isupper()]
        return (["makruk"] + caps) if caps and "makruk" in self.specs else []

    def reset_choices(self) -> None:
        """VariantFairySelects and MakrukRules back to the first of their choices."""
        fairy, makruk = self.fairy_names(), self.makruk_names()
        self.fairy_choice = fairy[0] if fairy else None
        self.makruk_choice = makruk[0] if makruk else None

    def variant_list(self) -> list:
        """Fairy-Max's list: ini names not capitalised and not fairy/..., plus "fairy"."""
        names = [n for n in self.specs if not n[:1].isupper() and not n.startswith("fairy/")]
        if self.fairy_names() and "fairy" not in names:
            names.append("fairy")
        return names

    def default_variant(self) -> str:
        return "normal" if "normal" in self.specs else next(iter(self.specs))

    def resolve_variant(self, name: str) -> Optional[str]:
        """The ini game a variant name selects, or None."""
        name = name.strip()
        sized = VARIANT_WITH_SIZE.match(name)
        if sized and sized.group(1) in self.specs:
            name = sized.group(1)
        if name == "fairy" and "fairy" not in self.specs:
            return self.fairy_choice
        if name == "makruk" and self.makruk_choice:
            return self.makruk_choice
        if name in self.specs:
            return name
        lowered = {n.lower(): n for n in self.specs if not n[:1].isupper()}
        return lowered.get(name.lower())

    def set_fairy_choice(self, name: str) -> None:
        if name not in self.specs:
            raise ValueError(name)
        self.fairy_choice = name

    def set_makruk_choice(self, name: str) -> None:
        if name not in self.specs:
            raise ValueError(name)
        self.makruk_choice = name

    def compiled_variant(self, name: str, rule_endings: bool = True):
        """The compiled rules of ini game `name` (cached), with or without the endings
        by hill and bare king (see Variant); under XBoard's rules, with XBoard's result
        for a stalemate, which ends the game whatever the ini says."""
        stalemate = self.gui_stalemate()
        variant = self.variant_cache.get((name, rule_endings, stalemate))
        if variant is None:
            variant = Variant(self.specs[name], rule_endings=rule_endings, stalemate=stalemate)
            evaluate.init_psq(variant)
            self.variant_cache[(name, rule_endings, stalemate)] = variant
        return variant

    def gui_stalemate(self) -> Optional[str]:
        """XBoard's result for the stalemated side in the game played ("loss" or "draw"),
        or None when the ini's rule counts (no XBoard referee)."""
        if not self.xboard_rules:
            return None
        return "loss" if self.gui_variant in XBOARD_STALEMATE_LOSES else "draw"

    def make_board(self, name: str):
        """A Board at the start position of ini game `name`."""
        return Board(self.compiled_variant(name))

    def set_variant(self, name: str, requested: Optional[str] = None) -> None:
        """Start ini game `name`, which the GUI knows as `requested` (e.g. `fairy` for an army)."""
        self.variant_name = name
        self.gui_variant = self.gui_parent(name, requested or name) or (requested or name)
        self.board = self.make_board(name)
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

    def gui_rule_ending(self, board) -> Optional[tuple]:
        """A hill, bare-king or counting ending that XBoard would not recognise in this
        variant (XBoard 4.9.1 names no counting rule among its adjudications)."""
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
        if not self.xboard_rules:
            return
        relaxed = self.gui_rule_ending(self.board) is not None
        variant = self.compiled_variant(self.variant_name, rule_endings=not relaxed)
        if self.board.variant is not variant:
            self.board = self.board.with_variant(variant)

    def load_ini(self, path: str) -> None:
        """Read another variant file; ValueError (with the reason) keeps the old one."""
        try:
            specs = loader.load_file(path)
        except Exception as exc:
            raise ValueError(str(exc)) from exc
        if not specs:
            raise ValueError(f"{path}: no Game: blocks")
        self.ini_path, self.specs, self.variant_cache = str(Path(path).resolve()), specs, {}
        self.reset_choices()
        if self.variant_name not in specs:
            self.set_variant(self.default_variant())

    # ------------------------------------------------------------ position
    def new_game(self, variant: Optional[str] = None) -> None:
        """The start position of `variant` (default: normal chess), engine to play Black,
        clocks back to the start of the time control, hash and history forgotten."""
        self.set_variant(variant or self.default_variant())
        self.force = False
        self.engine_side = 1
        self.paused = False
        self.draw_offered = False
        self.last_pv = []
        self.last_score = None
        self.tm.new_game()
        self.searcher.clear()

    def start_fen(self) -> str:
        return self.make_board(self.variant_name).fen()

    def set_fen(self, fen: str) -> None:
        """Set up a FEN.  One that cannot be read (ValueError, with the reason) leaves no
        position to play from, so the engine will not move from a stale one."""
        try:
            self.board.set_fen(fen)
        except ValueError:
            self.position_valid = False
            raise
        self.position_valid = True
        self.position_changed()

    def set_holdings(self, white: str, black: str) -> None:
        """The hands as the GUI sees them (CECP `holding`, sent by an ICS interface).
        ValueError, keeping the position, if they do not fit the variant."""
        if not self.board.variant.flags()["drops"]:
            raise ValueError(f"{self.variant_name} has no pieces in hand")
        placement, _, rest = self.board.fen().partition(" ")
        self.board.set_fen(f"{placement.split('[')[0]}[{white.upper()}{black.lower()}] {rest}")
        self.position_changed()

    def position_changed(self) -> None:
        self.excluded = set()
        self.apply_gui_rules()

    def parse_move(self, text: str) -> Optional[int]:
        """XBoard move text (also O-O, O-O-O, 0-0) -> legal move, or None."""
        try:
            return self.board.parse_move(text.strip())
        except Exception:
            return None

    def push(self, move: int) -> None:
        """Make a move, legal in the current position (see parse_move)."""
        self.board.push(move)
        self.position_changed()

    def user_move(self, move: int) -> None:
        """The opponent's (or the user's) legal move; the engine answers it if it is now
        on move."""
        self.push(move)
        if self.engine_to_move():
            self.think()

    def take_back(self, plies: int) -> None:
        """Undo plies moves (ValueError if the game has fewer)."""
        if len(self.board.history) < plies:
            raise ValueError("not enough moves to take back")
        for _ in range(plies):
            self.board.pop()
        self.position_changed()
        self.last_pv = []

    def exclude(self, move: Optional[int], excluded: bool) -> None:
        """Leave a root move out of the searches (excluded=False: back in); move None
        means all of them.  Any new position brings all moves back."""
        if move is None:
            self.excluded = set(self.board.legal_moves()) if excluded else set()
        elif excluded:
            self.excluded.add(move)
        else:
            self.excluded.discard(move)

    def hint(self) -> Optional[int]:
        """The move the engine expects from its opponent now, if any."""
        if self.last_pv and self.last_pv[0] in self.board.legal_moves():
            return self.last_pv[0]
        return None

    def divide(self, depth: int) -> list:
        """[(move, leaf nodes below it)] for perft to `depth` from the current position."""
        if not self.position_valid:
            raise NoPosition()
        if not 1 <= depth <= MAX_PERFT_DEPTH:
            raise ValueError(f"depth {depth} is not in 1..{MAX_PERFT_DEPTH}")
        board = self.board.copy()
        counts = []
        for move in board.legal_moves():
            board.push(move)
            counts.append((move, board.perft(depth - 1) if depth > 1 else 1))
            board.pop()
        return counts

    # ------------------------------------------------------------ options
    @property
    def threads(self) -> int:
        """Search threads (Lazy SMP), from the next search on."""
        return self.searcher.threads

    @threads.setter
    def threads(self, count: int) -> None:
        self.searcher.threads = min(max(count, 1), MAX_THREADS)

    def set_hash(self, mb: int) -> None:
        self.hash_mb = max(1, int(mb))
        self.searcher.resize(self.hash_mb)

    def clear_hash(self) -> None:
        self.searcher.clear()

    def set_multipv(self, lines: int) -> None:
        self.multipv = min(max(int(lines), 1), MAX_MULTIPV)

    # ------------------------------------------------------------ results
    def outcome(self, board=None):
        """The result to claim in this position, judged as XBoard judges the variant."""
        board = board or self.board
        claim = self.claim_moves if self.claim_moves > 0 else 10 ** 6
        result = board.outcome(claim_moves=claim)
        if self.xboard_rules and result is not None:
            repetition = board.repetition_ending()
            if repetition is not None and repetition[:2] == result:
                if repetition[2] == "perpetual-check":
                    # not claimed: whether XBoard confirms such a claim is untested; it has
                    # an adjudication of its own ("Xboard adjudication: perpetual checking")
                    return None
                if (board.rule_plies < XBOARD_RULE_PLIES
                        and board.repetitions(within=XBOARD_REPETITION_PLIES) < XBOARD_REPETITIONS):
                    return None     # XBoard would not see the repetition: a false claim
        if result is not None and not board.in_check() and not board.legal_moves():
            loser = board.side_to_move
            if self.gui_variant in XBOARD_STALEMATE_LOSES:
                return ("0-1" if loser == 0 else "1-0"), "Stalemate"
            return "1/2-1/2", "Stalemate"
        return result

    def claim_if_over(self) -> bool:
        """Report the result if the game is over in the current position."""
        result = self.outcome()
        if result is None:
            return False
        self.listener.on_result(*result)
        return True

    def opponent_offers_draw(self) -> None:
        """Accept at once when the current score says so (during an own search, the
        score so far); else keep the offer in mind until the engine's next move."""
        job = self.job
        score = self.last_score
        if job is not None and job.kind == "think" and job.best is not None:
            score = job.best.score
        if score is not None and score <= DRAW_ACCEPT_CP and not self.force:
            self.draw_offered = False
            self.listener.on_offer_draw()
        else:
            self.draw_offered = True

    # ------------------------------------------------------------ searches
    def engine_to_move(self) -> bool:
        return (not self.force and not self.analyzing
                and self.board.side_to_move == self.engine_side)

    def think(self, limits: Optional[timeman.Limits] = None, kind: str = "think",
              multipv: int = 1) -> None:
        """Search the current position for the engine's move (limits: from the clock if
        None).  A game over by rule is claimed instead when the engine keeps the game;
        otherwise a position without moves reports no move (at once for "think", on
        stop for "ponder" and "analyze", as UCI wants).  NoPosition without a position."""
        if not self.position_valid:
            raise NoPosition()
        if self.paused or (self.plays_its_moves and self.claim_if_over()):
            return
        legal = self.board.legal_moves()
        if not legal:
            if self.plays_its_moves:
                return
            if kind == "think":
                self.listener.on_bestmove(self.board, None, None)
            else:
                self.job = SearchJob(kind, self.board.copy(), timeman.Limits())  # waits for stop
            return
        if limits is None:
            limits = self.tm.allot()
        excluded = [m for m in legal if m in self.excluded]
        if len(excluded) == len(legal):
            excluded = []                   # everything excluded: ignore the exclusions
        if kind == "think" and len(legal) - len(excluded) == 1:
            limits.soft_ms, limits.soft_nodes = 0.0, 1
        self.start_job(SearchJob(kind, self.board.copy(), limits, exclude=excluded,
                                 multipv=multipv,
                                 hit_limits=limits if kind == "ponder" else None))

    def analyze(self) -> None:
        """Analyse the current position until stopped (CECP analyse mode)."""
        if self.paused or not self.analyzing or self.job is not None:
            return
        legal = self.board.legal_moves()
        moves = [m for m in legal if m not in self.excluded]
        if not moves:
            return
        # no depth cap: `sd` limits the engine's own moves, and an analysing GUI (or
        # python-chess, which stops analysis at its own depth) waits for deeper lines
        self.start_job(SearchJob("analyze", self.board.copy(), timeman.Limits(),
                                 exclude=[m for m in self.excluded if m in legal],
                                 multipv=self.multipv))

    def start_ponder(self) -> None:
        """After an own move with pondering on: think on the opponent's expected reply."""
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

    def ponder_hit(self) -> None:
        """The opponent played the move the engine pondered on (or, in UCI, the GUI says
        so): that search becomes the search for the engine's move."""
        job = self.job
        if job is None or job.kind != "ponder":
            return
        if job.ponder_move:
            self.push(job.ponder_move)
        job.limits = job.hit_limits or self.tm.allot()
        job.start = time.monotonic()
        job.kind = "think"
        if job.limits.hard_ms is not None:
            self.searcher.set_deadline(job.limits.hard_ms)
        if job.thread is None or not job.thread.is_alive():
            self.job = None
            self.finish_think(job)
            return
        self.arm_timer(job)

    def move_now(self) -> None:
        """Stop the search and play (or report) its best move so far."""
        job = self.stop_job()
        if job is not None:
            self.finish_think(job)

    def start_job(self, job: SearchJob) -> None:
        self.job = job
        job.thread = threading.Thread(target=self.run_job, args=(job,), daemon=True)
        job.thread.start()
        if job.kind == "think":
            self.arm_timer(job)

    def run_job(self, job: SearchJob) -> None:
        """Search thread body: iterate, report each step, tell the front end at the end."""
        gen = None
        try:
            lim = job.limits
            gen = self.searcher.iterate(
                job.board, max_depth=lim.depth, max_nodes=lim.nodes,
                hard_ms=lim.hard_ms if job.kind == "think" else None,
                exclude=job.exclude, multipv=job.multipv)
            for info in gen:
                job.last = info
                if info.pv and info.multipv == 1:
                    job.best = info             # the first line of a multi-PV search
                    job.scale.update(info.pv[0], info.score, info.complete)
                if info.pv:
                    self.report(job, info)
                if job.stop_flag or job.soft_limit_reached(info):
                    break
        except Exception:
            self.listener.on_message("search error: " + traceback.format_exc())
        finally:
            try:
                if gen is not None:
                    gen.close()
            finally:
                self.listener.on_search_end(job)

    def report(self, job: SearchJob, info) -> None:
        """Thinking output of one SearchInfo.  A ponder search reports from the position
        before the expected reply, as if the engine were thinking on its opponent's
        move (the score is then the opponent's)."""
        board, pv, score = job.board, list(info.pv), info.score
        mate = mate_in_moves(score)
        if job.kind == "ponder" and job.ponder_move:
            board = job.board.copy()
            board.pop()
            pv = [job.ponder_move] + pv
            score, mate = -score, (None if mate is None else -mate)
        # a PV cut short by the hash table leaves the deepest ply reached below the
        # iteration depth; GUIs expect seldepth >= depth
        report = Thinking(depth=info.depth, seldepth=max(info.seldepth, info.depth),
                          multipv=info.multipv, score=score, mate=mate,
                          time_ms=int(info.time_ms), nodes=info.nodes, board=board, pv=pv,
                          kind=job.kind, hashfull=self.searcher.hashfull())
        with self.report_lock:
            if job.stop_flag and job.kind != "think":
                return
            self.listener.on_info(report)

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
        """Stop the running search (if any), wait for its thread, detach and return it."""
        job = self.job
        if job is None:
            return None
        self.job = None
        with self.report_lock:
            job.stop_flag = True
        if job.timer is not None:
            job.timer.cancel()
        if job.thread is not None:
            deadline = time.monotonic() + 10.0
            while job.thread.is_alive() and time.monotonic() < deadline:
                self.searcher.stop()
                job.thread.join(0.005)
        return job

    def search_ended(self, job: SearchJob) -> bool:
        """A search thread ended by itself (command thread).  An own-move search plays
        its move; a ponder or analysis search keeps its result for a hit or a stop.
        False when the job had been stopped and dealt with already."""
        if job is not self.job:
            return False
        if job.timer is not None:
            job.timer.cancel()
        if job.kind == "think":
            self.job = None
            self.finish_think(job)
        return True

    def quick_move(self) -> Optional[int]:
        """A move when the search produced none (stopped before depth 1 ended)."""
        legal = self.board.legal_moves()
        if not legal:
            return None
        try:
            for info in self.searcher.iterate(self.board.copy(), max_depth=1):
                if info.pv:
                    return info.pv[0]
        except Exception:
            pass                # any legal move is better than none (a forfeit)
        return legal[0]

    def finish_think(self, job: SearchJob) -> None:
        """Play or report (or resign instead of) the result of an own-move search."""
        used = job.elapsed_ms()
        best = job.best
        move = best.pv[0] if best is not None and best.pv else None
        if move is None or move not in self.board.legal_moves():
            move = self.quick_move()
            best = None
        if move is None:
            if self.plays_its_moves:
                self.claim_if_over()
            else:
                self.listener.on_bestmove(self.board, None, None)
            return
        self.tm.record_move(used)
        self.last_score = best.score if best is not None else None
        if (self.resign_enabled and best is not None and best.depth > 1
                and best.score <= -self.resign_threshold):
            self.listener.on_resign()
            self.force = True
            return
        if self.draw_offered and self.last_score is not None and self.last_score <= DRAW_ACCEPT_CP:
            self.listener.on_offer_draw()
        self.draw_offered = False
        self.last_pv = list(best.pv[1:]) if best is not None else []
        self.listener.on_bestmove(self.board, move, self.last_pv[0] if self.last_pv else None)
        if not self.plays_its_moves:
            return
        self.push(move)
        if self.claim_if_over():
            return
        self.start_ponder()
