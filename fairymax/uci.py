"""UCI front end: a UCI GUI's lines -> session calls, session events -> UCI text.

Commands: uci, isready, ucinewgame, position, go (wtime btime winc binc movestogo
movetime depth nodes mate infinite ponder searchmoves, and Stockfish's `go perft N`),
stop, ponderhit, setoption, quit; debug and register are ignored.  While a search
runs, a command that changes what it searches (position, go, ucinewgame, setoption)
first ends it, with its bestmove, as if `stop` had come before; the others are done
at once.  `go` without a limit searches until `stop`, as Stockfish's does.

Notation as Fairy-Stockfish writes it: ranks count from 1 on every board (XBoard
counts the 10-rank boards from 0: its `b9c7` is UCI's `b10c8`), promotion letters in
lower case, castling as the king's move (`e1g1`).  Variants go by Fairy-Stockfish's
names where the two engines share a variant (our `normal` is its `chess`).
"""
from __future__ import annotations

import re
from typing import Optional

from fairymax import __version__
from fairymax.frontend import ENGINE_NAME, Connection, FrontEnd
from fairymax.session import MAX_MULTIPV, MAX_THREADS, NoPosition, Session, Thinking, spell_moves

ENGINE_AUTHOR = "the fairymax authors, after H.G. Muller's Fairy-Max"
MAX_HASH_MB = 32768
# Fairy-Stockfish's names for the variants of pieces.ini it also plays, where they differ
# (it has no built-in Great Shatranj; greatshatranj is the name of the definition our
# perft reference counts were made with).
FSF_NAMES = {"normal": "chess", "king-of-the-hill": "kingofthehill", "los-alamos": "losalamos",
             "great": "greatshatranj"}
CHANGES_SEARCH = {"position", "go", "ucinewgame", "setoption"}
GO_NUMBERS = {"wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate",
              "perft"}
GO_WORDS = GO_NUMBERS | {"infinite", "ponder", "searchmoves"}
GO_NUMBER_LIMIT = 2 ** 31 - 1           # larger `go` numbers (ms, nodes, plies) mean "no limit"
GO_NUMBER_MIN = {"depth": 1, "nodes": 1, "mate": 1, "movestogo": 1}     # others: 0
SQUARE_IN_TEXT = re.compile(r"([a-z])(\d+)")
SETOPTION = re.compile(r"^name\s+(.*?)(?:\s+value\s+(.*))?$", re.I)


def shift_ranks(text: str, height: int, step: int) -> str:
    """Square names in text with their ranks moved by step on a 10-rank board (the
    only boards where XBoard's ranks and UCI's differ)."""
    if height != 10:
        return text
    return SQUARE_IN_TEXT.sub(lambda m: m.group(1) + str(int(m.group(2)) + step), text)


def uci_move(board, move: int) -> str:
    return shift_ranks(board.move_text(move), board.variant.height, 1)


def uci_fen_to_xboard(fen: str, height: int) -> str:
    """A UCI FEN with its e.p. square in XBoard's ranks (the only square a FEN names)."""
    fields = fen.split()
    return " ".join(fields[:2] + [shift_ranks(f, height, -1) for f in fields[2:]])


class UciFrontEnd(FrontEnd):
    """The UCI conversation on top of a session (which then keeps no game of its own:
    every position comes from the GUI)."""

    def __init__(self, session: Session, connection: Connection):
        super().__init__(session, connection)
        session.plays_its_moves = False
        session.xboard_rules = False
        self.commands = {name[4:]: getattr(self, name) for name in dir(self) if name.startswith("cmd_")}

    # ------------------------------------------------------------ variant names
    def uci_variant(self, name: str) -> str:
        return FSF_NAMES.get(name, name)

    def ini_variant(self, uci_name: str) -> Optional[str]:
        """The ini game a UCI_Variant value selects (our own names are taken too)."""
        ours = {fsf: name for name, fsf in FSF_NAMES.items()}.get(uci_name.lower(), uci_name)
        return self.session.resolve_variant(ours)

    # ------------------------------------------------------------ session events
    def on_info(self, report: Thinking) -> None:
        score = f"mate {report.mate}" if report.mate is not None else f"cp {report.score}"
        pv = " ".join(spell_moves(report.board, report.pv, uci_move))
        self.send(f"info depth {report.depth} seldepth {report.seldepth} multipv {report.multipv} "
                  f"score {score} nodes {report.nodes} nps {report.nps} hashfull {report.hashfull} "
                  f"time {report.time_ms} pv {pv}")

    def on_bestmove(self, board, move, ponder) -> None:
        if move is None:
            self.send(f"info depth 0 score {'mate 0' if board.in_check() else 'cp 0'}")
            self.send("bestmove (none)")
            return
        words = spell_moves(board, [move] + ([ponder] if ponder else []), uci_move)
        self.send(f"bestmove {words[0]}" + (f" ponder {words[1]}" if len(words) > 1 else ""))

    def on_message(self, text: str) -> None:
        for part in str(text).splitlines() or [""]:
            self.send("info string " + part)

    # ------------------------------------------------------------ dispatch
    def handle_line(self, line: str) -> None:
        # UCI separates tokens by any white space (a tab after `go` is still `go`)
        cmd, _, arg = " ".join(line.split()).partition(" ")
        if not cmd:
            return
        if self.session.job is not None and cmd in CHANGES_SEARCH:
            self.session.move_now()
        handler = self.commands.get(cmd)
        if handler is None:
            self.send(f"info string unknown command: {line.strip()}")
        else:
            handler(arg.strip())

    # ------------------------------------------------------------ commands
    def cmd_uci(self, arg: str) -> None:
        s = self.session
        self.send(f"id name {ENGINE_NAME} {__version__}")
        self.send(f"id author {ENGINE_AUTHOR}")
        self.send(f"option name Hash type spin default {s.hash_mb} min 1 max {MAX_HASH_MB}")
        self.send(f"option name Threads type spin default 1 min 1 max {MAX_THREADS}")
        self.send(f"option name MultiPV type spin default {s.multipv} min 1 max {MAX_MULTIPV}")
        self.send("option name Ponder type check default false")
        self.send("option name UCI_AnalyseMode type check default false")
        variants = [self.uci_variant(n) for n in s.variant_list()]
        self.send(f"option name UCI_Variant type combo default {self.uci_variant(s.variant_name)} "
                  + " ".join(f"var {v}" for v in variants))
        self.send(f"option name Move Overhead type spin default {int(s.tm.overhead_ms)} min 0 max 10000")
        self.send("option name Clear Hash type button")
        if s.fairy_names():
            self.send(f"option name VariantFairySelects type combo default {s.fairy_choice} "
                      + " ".join(f"var {n}" for n in s.fairy_names()))
        if s.makruk_names():
            self.send(f"option name MakrukRules type combo default {s.makruk_choice} "
                      + " ".join(f"var {n}" for n in s.makruk_names()))
        self.send(f"option name IniFile type string default {s.ini_path}")
        self.send("uciok")

    def cmd_isready(self, arg: str) -> None:
        self.send("readyok")

    def cmd_debug(self, arg: str) -> None:
        pass

    def cmd_register(self, arg: str) -> None:
        pass

    def cmd_quit(self, arg: str) -> None:
        self.quitting = True

    def cmd_stop(self, arg: str) -> None:
        self.session.move_now()

    def cmd_ponderhit(self, arg: str) -> None:
        self.session.ponder_hit()

    def cmd_ucinewgame(self, arg: str) -> None:
        self.session.new_game(self.session.variant_name)

    def cmd_setoption(self, arg: str) -> None:
        found = SETOPTION.match(arg)
        if not found:
            self.send(f"info string bad setoption: {arg}")
            return
        name, value = found.group(1).strip(), (found.group(2) or "").strip()
        s = self.session
        key = name.lower()
        try:
            if key == "hash":
                s.set_hash(min(int(value), MAX_HASH_MB))
            elif key == "threads":
                s.threads = int(value)
            elif key == "multipv":
                s.set_multipv(int(value))
            elif key in ("ponder", "uci_analysemode"):
                pass        # the GUI decides when to ponder; analysis searches alike
            elif key == "uci_variant":
                variant = self.ini_variant(value)
                if variant is None:
                    raise ValueError(value)
                s.set_variant(variant, value)
            elif key == "move overhead":
                s.tm.overhead_ms = max(0, int(value))
            elif key == "clear hash":
                s.clear_hash()
            elif key == "variantfairyselects":
                s.set_fairy_choice(value)
            elif key == "makrukrules":
                s.set_makruk_choice(value)
            elif key == "inifile":
                s.load_ini(value)
            else:
                self.send(f"info string unknown option: {name}")
        except (ValueError, MemoryError) as exc:
            self.send(f"info string bad value for {name}: {value} ({exc})")

    def cmd_position(self, arg: str) -> None:
        """`position startpos|fen FEN [moves ...]`: an illegal move is reported and the
        position before it kept."""
        s = self.session
        words = arg.split()
        moves_at = words.index("moves") if "moves" in words else len(words)
        setup, moves = words[:moves_at], words[moves_at + 1:]
        if setup[:1] == ["startpos"]:
            s.set_variant(s.variant_name)
        elif setup[:1] == ["fen"] and len(setup) > 1:
            try:
                s.set_fen(uci_fen_to_xboard(" ".join(setup[1:]), s.board.variant.height))
            except ValueError as exc:
                self.send(f"info string illegal position: {exc}")
                return
        else:
            self.send(f"info string bad position command: {arg}")
            return
        for text in moves:
            move = s.parse_move(shift_ranks(text, s.board.variant.height, -1))
            if move is None:
                self.send(f"info string illegal move {text}")
                return
            try:
                s.push(move)
            except ValueError as exc:            # a game longer than the move history
                self.send(f"info string move {text} not played: {exc}")
                return

    def cmd_go(self, arg: str) -> None:
        s = self.session
        params: dict = {}
        words = arg.split()
        try:
            while words:
                word = words.pop(0)
                if word in GO_NUMBERS:
                    # below 1 means at once (a single iteration), past the limit: no limit
                    params[word] = min(max(int(words.pop(0)), GO_NUMBER_MIN.get(word, 0)),
                                       GO_NUMBER_LIMIT)
                elif word == "searchmoves":
                    params[word] = []
                    while words and words[0] not in GO_WORDS:
                        params[word].append(words.pop(0))
                elif word in GO_WORDS:
                    params[word] = True
                else:
                    raise ValueError(word)
        except (ValueError, IndexError):
            self.send(f"info string bad go command: {arg}")
            return
        if "perft" in params:
            self.perft(params["perft"])
            return
        white = s.board.side_to_move == 0
        clock = params.get("wtime" if white else "btime")
        depth = params.get("depth")
        if "mate" in params:                    # a mate in N moves is N + N-1 plies deep
            mate_depth = max(1, 2 * params["mate"] - 1)
            depth = min(depth, mate_depth) if depth else mate_depth
        limits = s.tm.for_go(clock_ms=clock, inc_ms=params.get("winc" if white else "binc", 0),
                             moves_to_go=params.get("movestogo"), move_time_ms=params.get("movetime"),
                             depth=depth, nodes=params.get("nodes"))
        self.restrict_root(params.get("searchmoves"))
        kind = "ponder" if "ponder" in params else "analyze" if "infinite" in params else "think"
        try:
            s.think(limits, kind=kind, multipv=s.multipv)
        except NoPosition:
            self.send("info string no valid position")
            self.send("bestmove (none)")

    def restrict_root(self, texts: Optional[list]) -> None:
        """Search only these moves (None: all)."""
        s = self.session
        s.exclude(None, texts is not None)
        for text in texts or []:
            move = s.parse_move(shift_ranks(text, s.board.variant.height, -1))
            if move is None:
                self.send(f"info string illegal move {text}")
            else:
                s.exclude(move, False)

    def perft(self, depth: int) -> None:
        """Stockfish's reply: `move: count` per legal move, an empty line, the total."""
        s = self.session
        try:
            counts = s.divide(depth)
        except (NoPosition, ValueError) as exc:
            self.send(f"info string perft {depth}: {exc or 'no valid position'}")
            return
        for move, count in counts:
            self.send(f"{uci_move(s.board, move)}: {count}")
        self.send("")
        self.send(f"Nodes searched: {sum(count for _, count in counts)}")
