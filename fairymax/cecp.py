"""CECP (XBoard protocol v2) front end: XBoard's lines -> session calls, session
events -> CECP text.  One method per command (cmd_new, cmd_usermove, ...).

Ordering rules (CECP §7): while the engine thinks about its own move, commands that
end or change the search (`?`, `force`, `new`, `result`, `quit`, `undo`, `setboard`,
...) stop it at once; a few that touch nothing the search uses (`post`, `otim`, and
`draw`, which is answered from the score so far) are done at once too; all others
(notably `ping`, `time`, moves) wait until the move is out, so `pong` always follows
the move.  While pondering or analysing, harmless commands (`ping`, `time`, `post`,
`.`) are answered without disturbing the search; anything that changes the position
stops it.

Every stdout line is protocol (flushed as written); debug lines start with `#`.
"""
from __future__ import annotations

import re
from typing import Callable

from fairymax import __version__
from fairymax.board import Board
from fairymax.frontend import ENGINE_NAME, Connection, FrontEnd
from fairymax.session import NoPosition, SearchJob, Session, Thinking, spell_moves


# command groups, see the module docstring
STOPS_THINKING = {"?", "quit", "force", "new", "result", "undo", "remove", "setboard", "edit",
                  "variant", "analyze", "playother", "pause", "memory", "exit"}
HARMLESS = {"ping", "time", "otim", "post", "nopost", "hard", "computer", "name", "rating",
            "ics", "accepted", "rejected", "random", "hint", "bk", ".", "cores", "egtpath",
            "draw", "level", "st", "sd", "nps", "protover", "xboard"}
WHILE_THINKING = {"post", "nopost", "hard", "easy", "otim", "computer", "name", "rating", "ics",
                  "accepted", "rejected", "random", "cores", "egtpath", "draw"}
MOVE_LIKE = re.compile(r"^([a-z]\d+[a-z]\d+|[A-Za-z]@[a-z]\d+|@@@@|O-O(-O)?|0-0(-0)?)", re.I)
SQUARE = re.compile(r"^([a-z])(\d+)$")
HOLDING = re.compile(r"^\[([A-Za-z]*)\]\s*\[([A-Za-z]*)\]")      # `holding [PN] [pb]`; a third [..] is ignored
EDIT_LINE = re.compile(r"^([#c.]|[A-Za-z][+~]?[a-z]\d+)$")   # other lines: normal commands
NO_POSITION = "Error (no valid position: send setboard or new)"


def cecp_score(report: Thinking) -> int:
    """Centipawns, or 100000 + moves for a mate (-100000 - moves: being mated)."""
    if report.mate is None:
        return report.score
    return 100000 + report.mate if report.mate > 0 else -100000 + report.mate


def thinking_line(report: Thinking) -> str:
    """XBoard's extended form: `depth score centis nodes seldepth nps tbhits<TAB>pv`."""
    pv = " ".join(spell_moves(report.board, report.pv, Board.move_text))
    return (f"{report.depth} {cecp_score(report)} {report.time_ms // 10} {report.nodes} "
            f"{report.seldepth} {report.nps} 0\t{pv}")



def holdings_size(spec) -> int:
    """XBoard's holdings size for a variant: how many piece types may be in hand (the
    drop game's non-royal unpromoted pieces; 0 without drops)."""
    if spec.drops is None:
        return 0
    promoted = set(spec.promotions.values())
    return len({p.letter.upper() for p in spec.pieces if not p.royal and p.letter.upper() not in promoted})

class CecpFrontEnd(FrontEnd):
    """The CECP state machine on top of a session."""

    def __init__(self, session: Session, connection: Connection):
        super().__init__(session, connection)
        self.post = False
        self.editing = False
        self.edit_colour = 0
        self._edit_grid = None
        self._edit_grid_for = None
        self.deferred: list = []
        self.commands: dict[str, Callable[[str], None]] = {
            name[4:]: getattr(self, name) for name in dir(self) if name.startswith("cmd_")}
        self.commands["?"] = self.cmd_movenow
        self.commands["."] = self.cmd_dot
        self.commands["#"] = self.cmd_comment

    # ------------------------------------------------------------ session events
    def on_info(self, report: Thinking) -> None:
        if self.post or report.kind == "analyze":
            self.send(thinking_line(report))

    def on_bestmove(self, board, move, ponder) -> None:
        if move is not None:
            self.send(f"move {board.move_text(move)}")

    def on_result(self, result: str, comment: str) -> None:
        self.send(f"{result} {{{comment}}}")

    def on_resign(self) -> None:
        self.send("resign")

    def on_offer_draw(self) -> None:
        self.send("offer draw")

    def on_message(self, text: str) -> None:
        """`#` lines (GUIs log them; python-chess ignores them)."""
        for part in str(text).splitlines() or [""]:
            self.send("# " + part)

    def search_ended(self, job: SearchJob) -> None:
        if self.session.search_ended(job):
            self.flush_deferred()

    def flush_deferred(self) -> None:
        pending, self.deferred = self.deferred, []
        for line in pending:
            self.handle_line(line)

    # ------------------------------------------------------------ dispatch
    def handle_line(self, line: str) -> None:
        line = line.strip()
        if not line:
            return
        cmd, _, arg = line.partition(" ")
        arg = arg.strip()
        session = self.session
        job = session.job
        if job is not None:
            if job.kind == "think":
                if cmd == "?":
                    session.move_now()
                    self.flush_deferred()
                    return
                if cmd in WHILE_THINKING:
                    pass
                elif cmd in STOPS_THINKING:
                    session.stop_job()
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
                    move = session.parse_move(text)
                    if move is None:
                        self.send(f"Illegal move: {text}")
                        return
                    if move == job.ponder_move:
                        session.ponder_hit()
                        return
                    session.stop_job()
                else:
                    session.stop_job()
            elif job.kind == "analyze":
                if cmd not in HARMLESS:
                    session.stop_job()
        if self.editing and EDIT_LINE.match(line):
            self.edit_command(line)
        else:
            handler = self.commands.get(cmd)
            if handler is not None:
                handler(arg)
            elif MOVE_LIKE.match(line) or session.parse_move(line) is not None:
                self.cmd_usermove(line)
            else:
                self.send(f"Error (unknown command): {cmd}")
        if not self.editing and session.analyzing and session.job is None and not self.quitting:
            session.analyze()

    def think(self) -> None:
        try:
            self.session.think()
        except NoPosition:
            self.send(f"{NO_POSITION}: go")

    # ------------------------------------------------------------ commands
    def cmd_xboard(self, arg: str) -> None:
        pass

    def cmd_protover(self, arg: str) -> None:
        self.send(f'feature myname="{ENGINE_NAME} {__version__}"')
        self.send("feature ping=1 setboard=1 playother=1 usermove=1 san=0 time=1 draw=1 "
                  "sigint=0 sigterm=0 reuse=1 analyze=1 colors=0 memory=1 smp=1 exclude=1 "
                  "pause=1 nps=1 debug=1")
        self.send(f'feature variants="{",".join(self.session.variant_list())}"')
        for option in self.option_features():
            self.send(f'feature option="{option}"')
        self.send("feature done=1")

    def option_features(self) -> list:
        s = self.session
        opts = [
            f"Resign -check {int(s.resign_enabled)}",
            f"ResignThreshold -spin {s.resign_threshold} 200 1200",
            f"ClaimDrawAfter -spin {s.claim_moves} 0 200",
            f"IniFile -file {s.ini_path}",
            f"MultiPVLines -spin {s.multipv} 1 32",
            f"MoveOverhead -spin {int(s.tm.overhead_ms)} 0 10000",
        ]
        fairy = s.fairy_names()
        if fairy:
            opts.append("VariantFairySelects -combo " + " /// ".join(
                ("*" if n == s.fairy_choice else "") + n for n in fairy))
        makruk = s.makruk_names()
        if makruk:
            opts.append("MakrukRules -combo " + " /// ".join(
                ("*" if n == s.makruk_choice else "") + n for n in makruk))
        opts.append("ClearHash -button")
        return opts

    def cmd_accepted(self, arg: str) -> None:
        pass

    def cmd_rejected(self, arg: str) -> None:
        pass

    def cmd_new(self, arg: str) -> None:
        self.editing = False
        self.session.new_game()

    def cmd_variant(self, arg: str) -> None:
        s = self.session
        name = s.resolve_variant(arg)
        if name is None:
            self.send(f"Error (unsupported variant): {arg}")
            return
        try:
            s.set_variant(name, arg)
        except Exception as exc:
            self.send(f"tellusererror variant {arg}: {exc}")
            return
        for line in self.setup_lines(name, arg):
            self.send(line)

    def setup_lines(self, name: str, requested: str) -> list:
        """What `variant NAME` answers: `setup` for engine-defined variants, `piece` lines."""
        s = self.session
        spec = s.specs[name]
        lines = []
        parent = s.gui_parent(name, requested)
        if parent:
            ptc = f"({spec.piece_to_char}) " if spec.piece_to_char else ""
            lines.append(f"setup {ptc}{spec.width}x{spec.height}+{holdings_size(spec)}_{parent} {s.board.fen()}")
        for gui in spec.gui_lines:
            lines.append(f"piece {gui}")
        return lines

    def cmd_quit(self, arg: str) -> None:
        self.quitting = True

    def cmd_force(self, arg: str) -> None:
        self.session.force = True

    def cmd_go(self, arg: str) -> None:
        s = self.session
        if s.analyzing:
            return
        s.force = False
        s.engine_side = s.board.side_to_move
        self.think()

    def cmd_playother(self, arg: str) -> None:
        s = self.session
        if s.analyzing:
            return
        s.force = False
        s.engine_side = 1 - s.board.side_to_move

    def cmd_white(self, arg: str) -> None:     # colors=0: never sent, accepted anyway
        self.session.force = False
        self.session.engine_side = 1

    def cmd_black(self, arg: str) -> None:
        self.session.force = False
        self.session.engine_side = 0

    def cmd_usermove(self, arg: str) -> None:
        s = self.session
        if not s.position_valid:
            self.send(f"{NO_POSITION}: {arg}")
            return
        move = s.parse_move(arg)
        if move is None:
            self.send(f"Illegal move: {arg}")
            return
        try:
            s.user_move(move)
        except ValueError as exc:               # a game longer than the move history
            self.send(f"Error ({exc}): {arg}")

    def cmd_movenow(self, arg: str) -> None:
        pass                            # `?` when not thinking: nothing to do

    def cmd_ping(self, arg: str) -> None:
        self.send(f"pong {arg}".rstrip())

    def cmd_draw(self, arg: str) -> None:
        self.session.opponent_offers_draw()

    def cmd_result(self, arg: str) -> None:
        self.session.force = True
        self.session.last_pv = []

    def cmd_setboard(self, arg: str) -> None:
        try:
            self.session.set_fen(arg)
        except ValueError as exc:
            self.send(f"tellusererror Illegal position: {exc}")

    def cmd_holding(self, arg: str) -> None:
        """`holding [WHITE] [BLACK]` (from an ICS, in drop games): set the hands."""
        found = HOLDING.match(arg)
        if not found:
            self.send(f"Error (bad holding): {arg}")
            return
        try:
            self.session.set_holdings(found.group(1), found.group(2))
        except ValueError as exc:
            self.send(f"Error (bad holding): {exc}")

    def cmd_perft(self, arg: str) -> None:
        """`perft N` (not CECP; Stockfish's reply): `move: count` per legal move in
        XBoard coordinates, an empty line, `Nodes searched: total`."""
        s = self.session
        try:
            counts = s.divide(int(arg))
        except NoPosition:
            self.send(f"{NO_POSITION}: perft")
            return
        except ValueError:
            self.send(f"Error (bad argument): perft {arg}")
            return
        for move, count in counts:
            self.send(f"{s.board.move_text(move)}: {count}")
        self.send("")
        self.send(f"Nodes searched: {sum(count for _, count in counts)}")

    # ------------------------------------------------------------ edit mode
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
        variant = self.session.board.variant
        width, height = variant.width, variant.height
        file = ord(m.group(1)) - ord("a")
        rank = int(m.group(2)) - (0 if height == 10 else 1)
        if not (0 <= file < width and 0 <= rank < height):
            return None
        return height - 1 - rank, file

    @property
    def edit_grid(self):
        board = self.session.board
        if self._edit_grid is None or self._edit_grid_for is not board:
            self._edit_grid = fen_to_grid(board.fen(), board.variant.width, board.variant.height)
            self._edit_grid_for = board
        return self._edit_grid

    def finish_edit(self) -> None:
        """Leave edit mode: set the edited position (side to move unchanged)."""
        s = self.session
        grid = self.edit_grid
        self._edit_grid = None
        stm = "b" if s.board.side_to_move else "w"
        start_fen = s.start_fen()
        start = fen_to_grid(start_fen, len(grid[0]), len(grid))
        start_castling = start_fen.split()[2:3] or ["-"]
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
                s.set_fen(fen)
                return
            except ValueError:
                continue
        self.send("tellusererror Illegal position")

    # ------------------------------------------------------------ more commands
    def cmd_undo(self, arg: str) -> None:
        self.take_back(1, "undo")

    def cmd_remove(self, arg: str) -> None:
        self.take_back(2, "remove")

    def take_back(self, plies: int, name: str) -> None:
        try:
            self.session.take_back(plies)
        except ValueError:
            self.send(f"Error (command not legal now): {name}")

    def cmd_hint(self, arg: str) -> None:
        move = self.session.hint()
        if move is not None:
            self.send(f"Hint: {self.session.board.move_text(move)}")

    def cmd_bk(self, arg: str) -> None:
        self.send(" no book")
        self.send("")

    def cmd_hard(self, arg: str) -> None:
        self.session.ponder = True

    def cmd_easy(self, arg: str) -> None:
        s = self.session
        s.ponder = False
        if s.job is not None and s.job.kind == "ponder":
            s.stop_job()

    def cmd_post(self, arg: str) -> None:
        self.post = True

    def cmd_nopost(self, arg: str) -> None:
        self.post = False

    def cmd_analyze(self, arg: str) -> None:
        self.session.analyzing = True

    def cmd_exit(self, arg: str) -> None:
        self.session.analyzing = False

    def cmd_dot(self, arg: str) -> None:
        s = self.session
        job = s.job
        if s.analyzing and job is not None and job.last is not None:
            info = job.last
            nmoves = len(s.board.legal_moves())
            self.send(f"stat01: {int(job.elapsed_ms()) // 10} {info.nodes} {info.depth} 0 {nmoves}")

    def cmd_comment(self, arg: str) -> None:
        pass

    def cmd_exclude(self, arg: str) -> None:
        self.exclude_include(arg, True)

    def cmd_include(self, arg: str) -> None:
        self.exclude_include(arg, False)

    def exclude_include(self, arg: str, exclude: bool) -> None:
        if arg == "all":
            self.session.exclude(None, exclude)
            return
        move = self.session.parse_move(arg)
        if move is None:
            self.send(f"Illegal move: {arg}")
            return
        self.session.exclude(move, exclude)

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
        self.session.paused = True

    def cmd_resume(self, arg: str) -> None:
        s = self.session
        if not s.paused:
            return
        s.paused = False
        if s.engine_to_move():
            self.think()

    def cmd_memory(self, arg: str) -> None:
        try:
            mb = max(1, int(float(arg)))
        except ValueError:
            self.send(f"Error (bad argument): memory {arg}")
            return
        self.session.set_hash(mb)

    def cmd_cores(self, arg: str) -> None:
        try:
            self.session.threads = int(float(arg))
        except ValueError:
            pass

    def cmd_egtpath(self, arg: str) -> None:
        pass

    def cmd_level(self, arg: str) -> None:
        self.time_command(self.session.tm.level, "level", arg)

    def cmd_st(self, arg: str) -> None:
        self.time_command(self.session.tm.st, "st", arg)

    def cmd_sd(self, arg: str) -> None:
        self.time_command(self.session.tm.sd, "sd", arg)

    def cmd_nps(self, arg: str) -> None:
        self.time_command(self.session.tm.set_nps, "nps", arg)

    def cmd_time(self, arg: str) -> None:
        self.time_command(self.session.tm.time, "time", arg)

    def cmd_otim(self, arg: str) -> None:
        self.time_command(self.session.tm.otim, "otim", arg)

    def time_command(self, method, name: str, arg: str) -> None:
        try:
            method(arg)
        except (ValueError, OverflowError):
            self.send(f"Error (bad argument): {name} {arg}")

    def cmd_option(self, arg: str) -> None:
        s = self.session
        name, _, value = arg.partition("=")
        name, value = name.strip(), value.strip()
        key = name.lower()
        try:
            if key == "resign":
                s.resign_enabled = bool(int(value))
            elif key == "resignthreshold":
                s.resign_threshold = min(max(int(value), 1), 100000)
            elif key == "claimdrawafter":
                s.claim_moves = max(0, int(value))
            elif key in ("multipvlines", "multipv"):
                s.set_multipv(int(value))
            elif key == "moveoverhead":
                s.tm.overhead_ms = max(0, int(value))
            elif key == "inifile":
                self.load_ini(value)
            elif key == "variantfairyselects":
                s.set_fairy_choice(value)
            elif key == "makrukrules":
                s.set_makruk_choice(value)
            elif key == "clearhash":
                s.clear_hash()
            else:
                self.send(f"Error (unknown option): {name}")
        except ValueError:
            self.send(f"Error (bad option value): {arg}")

    def load_ini(self, path: str) -> None:
        try:
            self.session.load_ini(path)
        except ValueError as exc:
            self.send(f"tellusererror {exc}")


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
