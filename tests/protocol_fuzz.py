"""Protocol fuzzing for tests/test_fuzz.py and scripts/fuzz_protocol.py: random, garbled and
hostile command lines for both protocols, and runners that feed them to the engine over
pipes and check what comes back.

Lines.  `cecp_line(rng)` makes one CECP line (commands, moves, `setboard` with sound and
hostile FENs, time controls, printable garbage, garbled copies of all of these).
`UciLines(rng).block(n)` makes UCI lines: `position startpos|fen` with legal random games in
the variant last selected (so 10-rank boards get UCI's ranks 1-10), illegal, XBoard-spelled
and garbled moves, and hostile FENs; `go` with random, absurd, negative, huge or missing
values (`movetime 0`, `depth 0`, `nodes 1`, `infinite` and `ponder` mostly followed by
`stop` or `ponderhit`, `perft` up to depth 3); `stop` and `ponderhit` with nothing running;
`setoption` with known and unknown names and bad values (UCI_Variant capablanca, roman,
shatranj, ...); `isready`, `ucinewgame`, `uci`, `debug`, `register`; raw bytes that are no
UTF-8, control characters and lines of 100,000 characters.  Nothing makes the engine quit,
allocate a big hash table, start hundreds of threads or run a deep perft (`costly`).

Checks (a failure is recorded with the transcript before it and the run goes on; a test
asserts that there is none):

* the engine stays up and answers its syncs (CECP `ping` -> `pong`, UCI `isready` ->
  `readyok`) within a time limit: else a "crash" or "hang", which ends that seed's run;
* every output line is a line of its protocol (`CECP_OUTPUT`, `UCI_OUTPUT`), and none shows
  an internal error, a search error or a traceback (`ERROR_TEXT`, stdout and stderr);
* every line that needs an answer gets it.  CECP: each fuzzed `ping N` its `pong N`, in
  order.  UCI: each line is followed by `isready` (a marker; not after a line that is an
  `isready` itself), so the output splits at `readyok` into one segment per line.  Then an
  `isready` got its `readyok`; an unknown command an `info string` in its segment; a `go`
  either a rejection in its segment (`info string bad go command ...`, perft output) or
  exactly one `bestmove`: a bestmove while no search is owed one is an "extra answer", and a
  search still owed one after the block's closing `stop` + `isready` a "missing answer".
  Blocks are sent line by line (each line's answers read before the next is sent) or, one
  block in three, all at once.  A missing `readyok` is a "missing answer" too; as the
  segments after it cannot be told apart, bestmoves then go uncounted till the block ends.

What a line means is decided as the UCI specification says (tokens split at any white
space), not as the engine parses it.  Inputs of a known engine bug (`KNOWN_BUGS`) are
made only when asked for (`known_bugs=True`: the script), so that the test passes
while the bug is open; each has a strict-xfail reproduction in test_fuzz.py.
"""
from __future__ import annotations

import random
import re
import string
import subprocess
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from enginepipe import EnginePipe, UciPipe
from fairymax import loader
from fairymax.board import Board
from fairymax.uci import FSF_NAMES, shift_ranks, uci_move
from fairymax.variant import Variant

# ---------------------------------------------------------------- shared
PRINTABLE = string.printable[:95]          # letters, digits, punctuation, space
ODD_CHARS = "\t\x00\x7f\u00e9\u20ac"
ERROR_TEXT = re.compile(r"internal error|search error|Traceback|\b[A-Z]\w*Error\b|Exception")


def garble(rng: random.Random, line: str) -> str:
    """line with 1-4 characters inserted (odd ones too), deleted or replaced; no newline."""
    chars = list(line)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        pos = rng.randint(0, len(chars))
        if op < 0.4:
            chars.insert(pos, rng.choice(PRINTABLE + ODD_CHARS))
        elif op < 0.7 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif chars:
            chars[min(pos, len(chars) - 1)] = rng.choice(string.ascii_letters + string.digits)
    return "".join(chars).replace("\n", " ").replace("\r", " ")


def printable_garbage(rng: random.Random, longest: int = 40) -> str:
    return "".join(rng.choice(PRINTABLE) for _ in range(rng.randint(0, longest)))


def byte_garbage(rng: random.Random, longest: int = 40) -> str:
    """Control characters, Latin-1, other Unicode and lone bytes that are no UTF-8 (as
    surrogate escapes: the pipe writes them as the raw bytes 0x80-0xff)."""
    pool = ([chr(c) for c in range(1, 32) if c not in (10, 13)] + [chr(c) for c in range(127, 256)]
            + [chr(0xDC80 + c) for c in range(128)] + ["\u2028", "\ufeff", "\U0001F600", "\x00"])
    return "".join(rng.choice(pool) for _ in range(rng.randint(1, longest)))


def shown(line: str, width: int = 160) -> str:
    """A transcript line fit for a report: escapes visible, long lines cut."""
    text = ascii(line)[1:-1] if not line.isprintable() else line
    return text if len(text) <= width else f"{text[:width]}... ({len(line)} characters)"


def int_or_none(text: str) -> Optional[int]:
    try:
        return int(text)
    except ValueError:
        return None


@dataclass
class Failure:
    protocol: str
    seed: int
    kind: str               # crash, hang, missing answer, extra answer, unexpected line, stderr
    message: str
    context: list           # the transcript before it (> sent, < received), shown()
    bug: str = ""           # the known bug (KNOWN_BUGS) one of the lines it may answer hits
    replay: list = field(default_factory=list)  # a crash's or hang's input: all lines sent

    def __str__(self) -> str:
        known = f" [known bug: {self.bug}]" if self.bug else ""
        return (f"{self.protocol} seed {self.seed}: {self.kind}{known}: {self.message}\n"
                + "\n".join("    " + line for line in self.context))


@dataclass
class FuzzStats:
    """What one or more fuzz runs of a protocol did."""
    protocol: str
    seeds: int = 0
    lines: int = 0          # fuzzed lines sent (not the syncs and markers)
    answers: int = 0        # answers that fuzzed lines required, checked
    syncs: int = 0          # sync answers checked (CECP ping per block, UCI isready markers)
    output: int = 0         # output lines checked
    crashes: int = 0        # runs ended by a crash or a hang
    unexpected: int = 0     # output lines that are no protocol line or show an error
    seconds: float = 0.0
    failures: list = field(default_factory=list)

    def add(self, other: "FuzzStats") -> None:
        for name in ("seeds", "lines", "answers", "syncs", "output", "crashes", "unexpected", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures


class EngineGone(Exception):
    """The engine crashed or hung: the run of this seed ends."""


class FuzzRun:
    """One engine process fed by one seed; records failures into stats."""

    protocol = ""

    def __init__(self, pipe: EnginePipe, seed: int, stats: FuzzStats):
        self.e = pipe
        self.seed = seed
        self.stats = stats
        self.stderr_seen = 0
        self.last_block: list = []  # stderr comes late: the block before may have caused it

    def context(self, lines: int = 30) -> list:
        return [shown(line) for line in self.e.transcript[-lines:]]

    def fail(self, kind: str, message: str, suspects=()) -> None:
        """Record a failure; suspects: the input lines it may be the answer to, the likeliest
        first.  It is put down to the known bugs of the first suspect that triggers any
        known to fail this way."""
        bug = next((" + ".join(names) for names in (known_bugs_of(line, self.protocol, kind)
                                                   for line in suspects) if names), "")
        self.stats.failures.append(Failure(self.protocol, self.seed, kind, message, self.context(),
                                           bug))

    def gone(self, what: str, suspects=()) -> EngineGone:
        """Record a crash (the process ended) or a hang, with the whole input for a replay;
        the exception to raise."""
        try:
            code = self.e.proc.wait(2)
        except subprocess.TimeoutExpired:
            code = None
        kind = "crash" if code is not None else "hang"
        self.stats.crashes += 1
        self.fail(kind, f"{what}" + (f" (exit status {code})" if code is not None else ""), suspects)
        self.stats.failures[-1].replay = [line[2:] for line in self.e.transcript if line.startswith("> ")]
        self.check_stderr(suspects)
        return EngineGone(kind)

    def readline(self, timeout: float) -> Optional[str]:
        """The next output line (None: none within timeout); EngineGone if output closed."""
        try:
            line = self.e.readline(timeout)
        except AssertionError:          # EnginePipe: the engine closed its output
            raise self.gone("engine closed its output") from None
        if line is not None:
            self.stats.output += 1
        return line

    def check_stderr(self, block=()) -> None:
        """Flag an error on stderr since the last check (block: the lines sent since)."""
        new = self.e.stderr[self.stderr_seen:]
        self.stderr_seen += len(new)
        text = "".join(new)
        if ERROR_TEXT.search(text):
            self.stats.unexpected += 1
            sent = list(block) + self.last_block        # searches write there: go lines first
            self.fail("stderr", "traceback or error on stderr:\n" + text[-2000:],
                      sorted(sent, key=lambda line: command_word(line) not in ("go", "usermove")))
        self.last_block = list(block)

    def check_output(self, lines: list, pattern: re.Pattern, suspects=(), after: str = "") -> None:
        """Flag output lines with error text, or that are no lines of the protocol, as one
        failure (suspects: the input lines they may answer; after: the one they follow)."""
        bad = [line for line in lines if ERROR_TEXT.search(line) or not pattern.match(line)]
        if bad:
            self.stats.unexpected += len(bad)
            cause = f" after {shown(after, 200)!r}" if after else ""
            self.fail("unexpected line", f"{len(bad)} output line(s){cause} with error text or "
                      f"not {self.protocol}: " + " | ".join(shown(line, 200) for line in bad[:6]),
                      suspects)


# ---------------------------------------------------------------- CECP
COMMANDS = ["new", "force", "go", "playother", "undo", "remove", "?", "draw", "hint", "bk",
            "hard", "easy", "post", "nopost", "analyze", "exit", ".", "random", "computer",
            "pause", "resume", "edit", "#", "c", "white", "black", "result 1-0 {x}", "result *",
            "name bob", "rating 1 2", "ics -", "accepted ping", "rejected x", "cores 2",
            "memory 2", "egtpath syzygy /x", "exclude all", "include all", "option MultiPVLines=2",
            "option Resign=1", "option ClaimDrawAfter=0", "variant fairy", "variant los-alamos",
            "variant capablanca", "variant roman", "variant shatranj", "variant normal",
            "variant grande-acedrex", "variant nosuch", "option VariantFairySelects=fairy/FIDE-Rookies"]
FENS = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "8/8/8/8/8/8/8/8 w - - 0 1", "k7/8/8/8/8/8/8/K7 b - -",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "x", "", "8/8/8/8/8/8/8/8/8/8 w - - 0 1",
        "kkkkkkkk/8/8/8/8/8/8/KKKKKKKK w - - 0 1", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w - -",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "4k3/P7/8/8/8/8/8/4K3 w - - 99 80"]
TIMES = ["level 0 0:01 0", "level 40 0:02 0", "level 0 0:00 0", "level -1 -1 -1", "level 1 x 2",
         "level 0 0:01 0.01", "st 0.01", "st 0", "st -5", "st 1e-9", "st 0.05", "sd 1", "sd 2",
         "sd 0", "sd -3", "sd 99999999999999999999", "nps 1000", "nps 0", "nps -1", "time 0",
         "time 1", "time -100", "time 99999999999", "otim 5", "otim x", "time", "level"]
CECP_OUTPUT = re.compile(r"^(move |pong |Error \(|Illegal move|tellusererror |setup |piece |"
                         r"Hint: |\d+ -?\d+ \d+ \d+|stat01: |1-0 |0-1 |1/2-1/2 |resign|"
                         r"offer draw| no book|$|# )")
CECP_SHORT_SEARCH = ["force", "st 0.02", "sd 3"]
PING_BASE = 100000          # fuzzed pings count from here (EnginePipe.sync's from 1001)


def random_move(rng: random.Random) -> str:
    files, ranks = "abcdefghijklmnopz", [str(r) for r in range(0, 17)]
    text = rng.choice(files) + rng.choice(ranks) + rng.choice(files) + rng.choice(ranks)
    if rng.random() < 0.2:
        text += rng.choice("qrbnkxQ=")
    return rng.choice([text, "usermove " + text, "O-O", "O-O-O", "usermove O-O", "P@e4",
                       "@@@@", "e2e4", "e7e5", "usermove g1f3", "usermove g8f6"])


def cecp_line(rng: random.Random, known_bugs: bool = False) -> str:
    """One random, garbled or hostile CECP line (a known bug's trigger only if asked for)."""
    while True:
        line = cecp_any_line(rng)
        if known_bugs or not known_bugs_of(line, "CECP"):
            return line


def cecp_any_line(rng: random.Random) -> str:
    """One random CECP line of any kind."""
    kind = rng.random()
    if kind < 0.3:
        line = rng.choice(COMMANDS)
    elif kind < 0.5:
        line = random_move(rng)
    elif kind < 0.6:
        line = "setboard " + rng.choice(FENS + HOSTILE_FENS)
    elif kind < 0.75:
        line = rng.choice(TIMES)
    elif kind < 0.8:
        line = printable_garbage(rng)
    elif kind < 0.85:
        line = "edit"
    else:
        line = garble(rng, rng.choice(COMMANDS + FENS + TIMES))
    return line


class CecpRun(FuzzRun):
    protocol = "CECP"

    def block(self, rng: random.Random, size: int, known_bugs: bool = False) -> None:
        """size random lines (with a few `ping N` among them), then the sync ping: each
        ping answered in order, every line a CECP line."""
        lines = [cecp_line(rng, known_bugs) for _ in range(size)]
        if rng.random() < 0.5:
            lines += CECP_SHORT_SEARCH          # keep searches short
        if "edit" in lines and "." not in lines:
            lines.append(".")
        pings = {f"ping {PING_BASE + self.stats.lines + k}" for k in range(rng.randint(0, 3))}
        for ping in sorted(pings):
            lines.insert(rng.randint(0, len(lines)), ping)
        pongs = ["pong " + line[5:] for line in lines if line in pings]
        self.e.send(*lines)
        self.stats.lines += len(lines)
        try:
            out = self.e.sync(timeout=20)
        except AssertionError:
            raise self.gone("no pong for the sync ping within 20 s", lines) from None
        self.stats.output += len(out) + 1
        self.stats.syncs += 1
        self.stats.answers += len(pongs)
        self.check_output(out, CECP_OUTPUT, lines)
        got = [line for line in out if line.startswith("pong ")]
        if got != pongs:
            self.stats.answers -= len(pongs)
            self.fail("missing answer", f"pongs {got} for the pings of {pongs}", lines)
        self.check_stderr(lines)


def run_cecp(seed: int, blocks: int = 60, size: int = 25, known_bugs: bool = False,
             command: Optional[list] = None) -> FuzzStats:
    """One engine (command: another program), `blocks` blocks of `size` random CECP lines
    from seed."""
    stats = FuzzStats("CECP", seeds=1)
    start = time.monotonic()
    rng = random.Random(seed)
    with EnginePipe(command=command) as e:
        run = CecpRun(e, seed, stats)
        try:
            e.handshake()
            e.send("st 0.02", "sd 3")
            for _ in range(blocks):
                run.block(rng, size, known_bugs)
            e.send("exit", "force", "new")
            e.sync()
            if e.proc.poll() is not None:
                raise run.gone("the engine ended")
        except EngineGone:
            pass
        except AssertionError as exc:       # handshake or the last sync
            run.gone(str(exc).splitlines()[0])
    stats.seconds = time.monotonic() - start
    return stats


# ---------------------------------------------------------------- UCI
UCI_COMMANDS = {"uci", "debug", "isready", "setoption", "register", "ucinewgame", "position",
                "go", "stop", "ponderhit", "quit"}
UCI_MOVE = r"(?:[a-z][1-9]\d?[a-z][1-9]\d?[a-z]?|[A-Z]@[a-z][1-9]\d?|0000|\(none\))"
UCI_OUTPUT = re.compile(
    r"^(?:id (?:name|author) \S.*"
    r"|option name \S.*? type (?:check|spin|combo|button|string)(?: .*)?"
    r"|uciok|readyok"
    rf"|bestmove {UCI_MOVE}(?: ponder {UCI_MOVE})?"
    r"|info string(?: .*)?"
    r"|info depth \d+ seldepth \d+ multipv \d+ score (?:cp|mate) -?\d+ nodes \d+ nps \d+ hashfull \d+"
    rf" time \d+ pv(?: {UCI_MOVE})+"
    r"|info depth 0 score (?:cp 0|mate 0)"
    rf"|{UCI_MOVE}: \d+|Nodes searched: \d+|)$")      # `go perft N`: Stockfish's lines
GO_REJECTED = re.compile(r"^info string (?:bad go command|perft )|^Nodes searched: ")

VARIANTS = ["chess", "capablanca", "roman", "shatranj", "makruk", "courier", "grande-acedrex",
            "ciccolini", "mexican", "almost-wildebeest", "losalamos", "seirawan", "spartan",
            "knightmate", "gothic", "janus", "greatshatranj", "kingofthehill", "berolina",
            "cylinder", "super", "fairy", "asean", "cambodian", "ai-wok", "nocastle", "falcon",
            "light-brigade", "bifurcator", "team-mate"]
BAD_VARIANTS = ["nosuch", "", "normal", "Chess", "CAPABLANCA", "10x8+0_capablanca", "fairy/FIDE-Rookies",
                "king-of-the-hill", "los-alamos", "great", "x" * 300, "chess chess", "-1"]
HOSTILE_FENS = [
    "", "x", "startpos", "8/8/8/8/8/8/8/8 w - - 0 1", "k7/8/8/8/8/8/8/K7 w - - 0 1",
    "k7/8/8/8/8/8/8/K7 b - -", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqKQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 0",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999999999999 99999999999999999999",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e10 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq a0 0 1",
    "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1",
    "kkkkkkkk/8/8/8/8/8/8/KKKKKKKK w - - 0 1", "P6k/8/8/8/8/8/8/K6p w - - 0 1",
    "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", "8/8/8/3kK3/8/8/8/8 b - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "4k3/P7/8/8/8/8/8/4K3 w - - 99 80",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1",
    "rnabqkbanr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RNABQKBANR w KQkq - 0 1",
    "rnabqkbanr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RNABQKBANR w KQkq e9 0 1",
    "rnabqkbanr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RNABQKBANR w KQkq e11 0 1",
    "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
    "rnabqkbcnr/pppppppppp/11/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
    "4k5/10/10/10/10/10/10/10/10/4K5 w - - 0 1", "12/12/12/12/12/12/12/12/12/12/12/5k1K4 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra words here",
    "/" * 20 + " w", "9999999999999999999999/8/8/8/8/8/8/8 w - - 0 1", "-1/8/8/8/8/8/8/8 w",
]
BAD_MOVES = ["e2e4", "e7e5", "e1g1", "e8c8", "0000", "a1a1", "e2e9", "e2e11", "b0c2", "a0a1",
             "e7e8Q", "e7e8q", "e7e8k", "e7e8x", "e2", "e2e4e5", "P@e4", "@@@@", "O-O", "--",
             "z9z9", "j10j9", "l12l11", "a1b2c3", "E2E4", "e2-e4", "e2xe4", "moves", "startpos",
             "fen", "b1c3h", "e1g1e", "\u00e9\u00e9", "g1f3 g8f6", "99999999999999999999"]
GO_LIMITS = {"depth": [0, 1, 1, 2, 2, 3, -1, -5, 2 ** 31, 10 ** 20, -10 ** 20],
             "nodes": [1, 1, 10, 100, 1000, 5000, 0, -1, 2 ** 64],
             "movetime": [0, 0, 1, 5, 10, 30, -10, -10 ** 20, 2 ** 40, 10 ** 13],
             "mate": [0, 1, 2, -1, -10 ** 20, 10 ** 20],
             "wtime": [0, -100, 1, 10, 50, 200, 1000, 2 ** 40, 10 ** 23],
             "btime": [0, -100, 1, 10, 50, 200, 1000, 2 ** 40, 10 ** 23],
             "winc": [0, -5, 10, 100, 10 ** 20], "binc": [0, -5, 10, 100, 10 ** 20],
             "movestogo": [0, 1, -1, 40, 10 ** 20]}
OPTIONS = {"Hash": ["1", "2", "16", "0", "-5", "x", "", "1.5", "true"],
           "Threads": ["1", "2", "0", "-3", "x", "", "99999999999999999999"],
           "MultiPV": ["1", "2", "3", "0", "-1", "256", "300", "x", "99999999999999999999"],
           "Ponder": ["true", "false", "x", ""], "UCI_AnalyseMode": ["true", "false", "1"],
           "Move Overhead": ["0", "10", "50", "-1", "10000", "99999999999999999999", "x"],
           "Clear Hash": [None, "", "x"],
           "VariantFairySelects": ["fairy/FIDE-Nutters", "fairy/Rookies-Clobberers", "nosuch", ""],
           "MakrukRules": ["makruk", "Cambodian", "Ai-wok", "nosuch", ""],
           "IniFile": ["/nonexistent/pieces.ini", "", "/", "/etc/hostname", "tests"],
           "NoSuch": ["1", None], "UCI_Chess960": ["true"], "Skill Level": ["3"],
           "hash": ["8"], "HASH": ["4"], "multipv": ["2"], "uci_variant": ["shatranj"]}


def go_number_overflow(line: str) -> bool:
    """A `go` whose numbers do not fit the search's C types."""
    words = line.split()
    if words[:1] != ["go"]:
        return False
    for name, value in zip(words, words[1:] + [""]):
        number = int_or_none(value)
        if number is None:
            continue
        if name == "nodes" and not 0 <= number < 2 ** 64:
            return True
        if name == "depth" and number < -2 ** 31:
            return True
        if name in ("movetime", "wtime", "btime") and number >= 9 * 10 ** 12:
            return True
    return False


def tab_separated_command(line: str) -> bool:
    """A command word followed by white space other than a space before its first argument."""
    found = re.match(r"^\s*(\S+)(\s+)\S", line)
    return bool(found and found.group(1) in UCI_COMMANDS and found.group(2)[0] != " ")


def game_too_long(line: str) -> bool:
    """A `position` with more moves than the engine's game history holds (4096 - 256 plies)."""
    words = line.split()
    return words[:1] == ["position"] and "moves" in words and len(words) - words.index("moves") > 3800


def protover_line(line: str) -> bool:
    """A line the reader thread takes for CECP's `protover`."""
    return line.strip().startswith("protover")


def fen_number_overflow(line: str) -> bool:
    """A FEN (`setboard`, `position fen`) with a number of 2^31 or more in it."""
    words = line.split()
    if words[:1] == ["setboard"]:
        fen = words[1:]
    elif words[:1] == ["position"] and "fen" in words:
        fen = words[words.index("fen") + 1:]
        fen = fen[:fen.index("moves")] if "moves" in fen else fen
    else:
        return False
    return any(int(digits) >= 2 ** 31 for digits in re.findall(r"\d+", " ".join(fen)))


@dataclass(frozen=True)
class KnownBug:
    """An engine bug this fuzzer found, still open: the lines that trigger it, the kinds of
    failure it makes, what happens, and lines that show it (test_fuzz.py reproduces them in
    strict xfail tests)."""
    protocols: tuple
    hit: Callable[[str], bool]
    kinds: tuple
    what: str
    examples: tuple


# Bugs the fuzzer found that are fixed now: their inputs are fuzzed again, and
# test_fuzz.py replays each example as a regression test.
FIXED_BUGS = {
    "go number overflow": KnownBug(
        ("UCI",), go_number_overflow, ("unexpected line", "stderr"),
        "`go nodes N` with N < 0 or N >= 2^64, `go depth N` with N < -2^31, `go movetime N` "
        "with N >= about 9.2e12 (ms; a hard limit past 2^63 ns), `go wtime|btime N` with N "
        "about 1e15 or more: the search thread fails with OverflowError (`info string search "
        "error: Traceback ...`; the bestmove still comes, from the depth-1 fallback); a time "
        "limit past threading.TIMEOUT_MAX also kills the backup timer thread (`OverflowError: "
        "timestamp out of range for platform time_t` on stderr)",
        ("go nodes -1", "go nodes 18446744073709551616", "go depth -2147483649",
         "go movetime 9300000000000")),
    "FEN number overflow": KnownBug(
        ("UCI", "CECP"), fen_number_overflow, ("unexpected line", "crash", "hang"),
        "a FEN with a number of 2^31 or more, as an empty-square count or as the half-move or "
        "full-move counter: `info string internal error on 'position fen ...': Traceback ... "
        "OverflowError` (CECP: `# internal error on 'setboard ...'`, `# OverflowError ...`).  "
        "Board.set_fen raises OverflowError, not ValueError, after it has already set up part "
        "of the new position (the FEN's pieces, no undo history); Session.set_fen catches only "
        "ValueError, so the position stays valid and the session's move history is kept.  "
        "CECP: a later `undo` or `remove` pops the board past its start: the engine dies of "
        "SIGSEGV (`new`, `force`, `e2e4`, `setboard 4k3/8/8/8/8/8/8/4K3 w - - 2147483648 1`, "
        "`undo`).  UCI: a `go` searches the half-set-up position instead of answering `no "
        "valid position`",
        ("position fen 4k3/8/8/8/8/8/8/4K3 w - - 2147483648 1",
         "position fen 2147483648/8/8/8/8/8/8/8 w - - 0 1",
         "setboard 4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999999999999")),
    "tab after the command": KnownBug(
        ("UCI",), tab_separated_command, ("missing answer",),
        "a tab (or other white space but a space) between the command and its arguments, as in "
        "`go\\tdepth 1` or `isready\\tnow`: `info string unknown command`, so no search and no "
        "bestmove, no readyok (the UCI specification allows any white space between tokens)",
        ("go\tdepth 1", "isready\tnow")),
    "game too long": KnownBug(
        ("UCI",), game_too_long, ("unexpected line",),
        "a game of more than 3840 plies (MAX_GAME_PLY 4096 - HISTORY_RESERVE 256), as `position "
        "startpos moves` with 4000 legal moves: `info string internal error on 'position ...': "
        "Traceback ... ValueError: game too long` from Board.push (the position is left at ply "
        "3840).  CECP alike: the 3841st `usermove` in force mode gives `# internal error on "
        "'usermove ...'` (not fuzzed: it takes 3840 lines)",
        ("position startpos moves " + "g1f3 g8f6 f3g1 f6g8 " * 1000,)),
    "protover in UCI": KnownBug(
        ("UCI",), protover_line, ("unexpected line",),
        "a line starting `protover` (after white space), in UCI as in CECP: the reader thread "
        "answers the CECP line `feature done=0` (fairymax/frontend.py Connection.read), then "
        "`info string unknown command`",
        ("protover 2",)),
}
# Open engine bugs: the fuzz tests make none of their inputs (the script does, with
# known_bugs=True), and each gets a strict-xfail reproduction in test_fuzz.py.
KNOWN_BUGS: dict = {}


def known_bugs_of(line: str, protocol: str, kind: str = "") -> list:
    """The names of the known bugs line triggers in protocol (that fail that kind of way)."""
    return [name for name, bug in KNOWN_BUGS.items()
            if protocol in bug.protocols and (not kind or kind in bug.kinds) and bug.hit(line)]


def unbounded(line: str) -> bool:
    """Whether a `go` may search until stopped (no limit, or one of a billion ms)."""
    words = line.split()[1:]
    if not words or "infinite" in words or "ponder" in words:
        return True
    return all(int_or_none(w) is None or abs(int_or_none(w)) >= 2 ** 31 for w in words)


def costly(line: str) -> bool:
    """Lines the fuzzer must not send on a shared machine: quit, a big hash table, many
    threads, a deep perft, reading a device."""
    words = line.split()
    if words[:1] == ["quit"] or "/dev" in line:
        return True
    lower = [w.lower() for w in words]
    for name, value in zip(lower, lower[1:] + [""]):
        number = int_or_none(value)
        if name == "perft" and number is not None and number > 3:
            return True
    if words[:1] == ["setoption"] and "value" in lower:
        value = int_or_none(words[lower.index("value") + 1] if lower.index("value") + 1 < len(words)
                            else "")
        if value is not None and ("hash" in lower and value > 64 or "threads" in lower and value > 4):
            return True
    return False


class UciLines:
    """Random UCI lines from rng; the un-garbled `setoption name UCI_Variant` lines set the
    variant whose legal games and FENs `position` lines use."""

    def __init__(self, rng: random.Random, known_bugs: bool = False):
        self.rng = rng
        self.known_bugs = known_bugs
        self.variant = "chess"
        self.last_moves: list = []      # legal moves of the last position line (searchmoves)
        self.specs = _specs()

    # ------------------------------------------------------------ pieces
    def board(self) -> Optional[Board]:
        name = {fsf: ours for ours, fsf in FSF_NAMES.items()}.get(self.variant, self.variant)
        if name == "fairy":
            name = "fairy/FIDE-Clobberers"
        if name not in self.specs:
            return None
        return Board(_variant(self.specs, name))

    def random_game(self, board: Board, plies: int) -> list:
        """UCI texts of up to plies random legal moves played on board."""
        texts = []
        for _ in range(plies):
            moves = board.legal_moves()
            if not moves:
                break
            move = self.rng.choice(moves)
            texts.append(uci_move(board, move))
            board.push(move)
        return texts

    def bad_move(self) -> str:
        rng = self.rng
        if rng.random() < 0.5:
            return rng.choice(BAD_MOVES)
        files = "abcdefghijklz"
        return (rng.choice(files) + str(rng.randint(0, 13)) + rng.choice(files) + str(rng.randint(0, 13))
                + rng.choice(["", "", "q", "n", "Q", "x"]))

    def uci_fen(self, board: Board) -> str:
        """board's FEN with the e.p. square in UCI ranks."""
        fields = board.fen().split()
        return " ".join(fields[:3] + [shift_ranks(f, board.variant.height, 1) for f in fields[3:4]]
                        + fields[4:])

    # ------------------------------------------------------------ commands
    def position(self) -> str:
        rng = self.rng
        board = self.board()
        kind = rng.random()
        if board is None or kind < 0.1:
            return rng.choice(["position", "position startpos moves", "position moves e2e4",
                               "position fen", "position fen moves e2e4", "position startpos e2e4",
                               "position fen startpos", "position startpos fen x",
                               "position startpos moves moves e2e4", "position STARTPOS",
                               "position  startpos   moves   e2e4  "])
        if kind < 0.55:
            head = "position startpos"
        elif kind < 0.8:
            self.random_game(board, rng.randint(0, 40))
            head = "position fen " + self.uci_fen(board)
        else:
            fen = rng.choice(HOSTILE_FENS)
            head = "position fen " + (garble(rng, fen) if rng.random() < 0.3 else fen)
            board = None
        moves = self.random_game(board, rng.choice([0, 1, 2, 5, 10, 30, 80])) if board else []
        self.last_moves = [uci_move(board, m) for m in board.legal_moves()[:8]] if board else []
        if rng.random() < 0.25:
            moves.insert(rng.randint(0, len(moves)), self.bad_move())
        if not moves and rng.random() < 0.5:
            return head
        return f"{head} moves {' '.join(moves)}"

    def go(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.08:
            return rng.choice(["go depth", "go nodes", "go movetime", "go wtime", "go depth x",
                               "go depth 1.5", "go movetime 1e3", "go nodes --1", "go foo",
                               "go depth 1 foo", "go wtime 100 btime", "go searchmoves",
                               "go depth 1 depth 2", "go ponder ponder depth 1", "go mate x",
                               "go perft", "go perft x", f"go perft {rng.choice([0, 1, 2, 3, -1, 21])}"])
        words = []
        if kind < 0.15:
            words.append(rng.choice(["infinite", "ponder", ""]))
        else:
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                name = rng.choice(list(GO_LIMITS))
                words += [name, str(rng.choice(GO_LIMITS[name]))]
            if rng.random() < 0.1:
                words.append("ponder")
        if rng.random() < 0.1:
            words.append("searchmoves")
            words += rng.sample(self.last_moves, min(len(self.last_moves), rng.randint(0, 3)))
            if rng.random() < 0.3:
                words.append(self.bad_move())
        return " ".join(["go"] + [w for w in words if w])

    def setoption(self) -> str:
        rng = self.rng
        if rng.random() < 0.3:
            self.variant = rng.choice(VARIANTS)
            return f"setoption name UCI_Variant value {self.variant}"
        if rng.random() < 0.05:
            return f"setoption name UCI_Variant value {rng.choice(BAD_VARIANTS)}"
        if rng.random() < 0.08:
            return rng.choice(["setoption", "setoption name", "setoption value 3", "setoption name value",
                               "setoption name Hash value", "setoption nam Hash value 1",
                               "setoption name  Hash  value  2", "setoption name Hash value 1 value 2"])
        name = rng.choice(list(OPTIONS))
        value = rng.choice(OPTIONS[name])
        return f"setoption name {name}" + ("" if value is None else f" value {value}")

    def hostile(self) -> str:
        rng = self.rng
        return rng.choice([
            "x" * 100000, "position startpos moves " + "g1f3 g8f6 f3g1 f6g8 " * rng.choice([900, 2000]),
            "position startpos moves " + "e2e4 " * 5000, "go " + "depth 1 " * 10000,
            "setoption name " + "a" * 50000 + " value 1", "position fen " + "p" * 50000,
            "info string " + "z" * 5000, "go searchmoves " + "e2e4 " * 5000 + "depth 1",
            byte_garbage(rng, 2000), "isready " + "y" * 20000])

    def whitespace(self) -> str:
        """Extra white space around and between the tokens of a valid line (tabs too when
        known bugs are wanted)."""
        rng = self.rng
        line = rng.choice([self.go(), self.position(), self.setoption(), "isready", "stop",
                           "ucinewgame", "isready now"])
        spaces = [" ", "  ", "   ", "\t", " \t "]
        return (rng.choice(["", " ", "  "]) + rng.choice(spaces).join(line.split())
                + rng.choice(["", " ", "\t", "  "]))

    def one(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.22:
            return self.position()
        if kind < 0.42:
            return self.go()
        if kind < 0.47:
            return "stop"
        if kind < 0.50:
            return "ponderhit"
        if kind < 0.62:
            return self.setoption()
        if kind < 0.67:
            return rng.choice(["isready", "isready", "isready x"])
        if kind < 0.71:
            return "ucinewgame"
        if kind < 0.72:
            return rng.choice(["uci", "debug on", "debug off", "debug", "register later",
                               "register name x code y", "ucinewgame now"])
        if kind < 0.76:
            return printable_garbage(rng)
        if kind < 0.79:
            return byte_garbage(rng)
        if kind < 0.82:
            return rng.choice(["", " ", "bestmove e2e4", "readyok", "uciok", "id name x",
                               "info depth 1", "option name Hash", "xboard", "protover 2",
                               "ping 1", "usermove e2e4", "e2e4", "new", "?", "Go", "GO depth 1",
                               "ISREADY", "position", "isreadyisready", "stopp"])
        if kind < 0.84:
            return self.whitespace()
        if kind < 0.845:
            return self.hostile()
        return garble(rng, rng.choice([self.position, self.go, self.setoption,
                                       lambda: rng.choice(sorted(UCI_COMMANDS - {"quit"}))])())

    def line(self) -> str:
        """One line that is not costly (nor, unless asked for, a known bug's trigger)."""
        while True:
            line = self.one()
            if costly(line):
                continue
            if not self.known_bugs and known_bugs_of(line, "UCI"):
                continue
            return line

    def block(self, size: int) -> list:
        """size lines; most searches without a limit are followed by stop or ponderhit."""
        lines: list = []
        while len(lines) < size:
            line = self.line()
            lines.append(line)
            if command_word(line) == "go" and self.rng.random() < (0.8 if unbounded(line) else 0.2):
                if "ponder" in line and self.rng.random() < 0.5:
                    lines.append("ponderhit")
                lines.append("stop")
        return lines


_SPECS: dict = {}
_VARIANTS: dict = {}


def _specs() -> dict:
    if not _SPECS:
        _SPECS.update(loader.load_default())
    return _SPECS


def _variant(specs: dict, name: str) -> Variant:
    if name not in _VARIANTS:
        _VARIANTS[name] = Variant(specs[name])
    return _VARIANTS[name]


def command_word(line: str) -> str:
    """The command of a UCI line as the specification reads it (tokens split at white space)."""
    words = line.split()
    return words[0] if words else ""


class UciRun(FuzzRun):
    protocol = "UCI"

    def __init__(self, pipe: EnginePipe, seed: int, stats: FuzzStats):
        super().__init__(pipe, seed, stats)
        self.owed: list = []        # go lines owed a bestmove, oldest first
        self.gos: list = []         # the go lines of the block and those owed before it
        self.lost = False           # a readyok was missing: bestmoves not counted till the block ends

    def exchange(self, lines: list, idle: float = 5.0, limit: float = 30.0) -> Optional[list]:
        """Send lines, each but an `isready` followed by the marker `isready`; one output
        segment per line (the lines before its readyok).  None if a readyok was missing:
        then the output has been checked (no answer to a line, as none can be told from
        the next) and bestmoves go uncounted till the end of the block."""
        sent = []
        for line in lines:
            sent.append(line)
            if command_word(line) != "isready":
                sent.append("isready")
        self.e.send(*sent)
        segments: list = [[]]
        end = time.monotonic() + limit
        while len(segments) <= len(lines):
            line = self.readline(min(idle, end - time.monotonic()))
            if line is None:
                break
            if line == "readyok":
                segments.append([])
            else:
                segments[-1].append(line)
        if len(segments) > len(lines):
            return segments[:len(lines)]
        self.fail("missing answer", f"{len(segments) - 1} readyok for {len(lines)} line(s), "
                  f"each an isready or followed by one",
                  sorted(lines, key=lambda line: command_word(line) != "isready"))
        self.lost = True
        self.resync(sum(segments, []), lines)
        return None

    def resync(self, output: list, suspects: list) -> None:
        """After a missing readyok: wait for a fresh one (EngineGone: none comes)."""
        self.e.send("isready")
        end = time.monotonic() + 20
        while time.monotonic() < end:
            line = self.readline(end - time.monotonic())
            if line == "readyok":
                self.check_output(output, UCI_OUTPUT, suspects)
                return
            if line is not None:
                output.append(line)
        raise self.gone("no readyok within 20 s", suspects)

    def after_search_output(self, lines: list, suspects, after: str = "") -> None:
        """Check output lines, counting their bestmoves."""
        self.check_output(lines, UCI_OUTPUT, suspects, after)
        for out in lines:
            if out.startswith("bestmove ") and not self.lost:
                if not self.owed:
                    self.fail("extra answer", f"{shown(out)} with no search owed one", suspects)
                else:
                    self.owed.pop(0)
                    self.stats.answers += 1

    def check(self, line: str, segment: list, group: list) -> None:
        """The answers of one fuzzed line, sent in group; its segment of the output."""
        word = command_word(line)
        if word == "isready":
            self.stats.answers += 1     # its readyok ended the segment
        else:
            self.stats.syncs += 1       # the marker's did
        if word == "go":
            if any(GO_REJECTED.match(out) for out in segment):
                self.stats.answers += 1
            else:
                self.owed.append(line)
                self.gos.append(line)
        elif word and word not in UCI_COMMANDS:
            if any(out.startswith("info string") for out in segment):
                self.stats.answers += 1
            else:
                self.fail("missing answer", f"no info string for the unknown command "
                                            f"{shown(line)!r}", [line])
        # the reader thread answers `protover` at once, before the lines sent before it
        self.after_search_output(segment, [line] + group + self.owed, after=line)

    def block(self, lines: list, burst: bool) -> None:
        """Send a block, by line or all at once; then `stop` + `isready`: no search may
        still owe its bestmove."""
        self.stats.lines += len(lines)
        self.gos = list(self.owed)
        groups = [lines] if burst else [[line] for line in lines]
        for group in groups:
            segments = self.exchange(group)
            for line, segment in zip(group, segments or []):
                self.check(line, segment, group)
        self.e.send("stop")
        for segment in self.exchange(["isready"]) or []:
            self.after_search_output(segment, self.gos)
        self.stats.syncs += 1
        if self.lost:
            self.owed.clear()
            self.lost = False
        if self.owed:
            self.fail("missing answer", f"{len(self.owed)} bestmove(s) missing after stop + "
                      f"isready, for {len(self.gos)} search(es) started: "
                      f"{[shown(g, 80) for g in self.gos]}", self.owed + self.gos)
            self.owed.clear()
        self.check_stderr(lines)


def run_uci(seed: int, blocks: int = 40, size: int = 20, known_bugs: bool = False,
            command: Optional[list] = None) -> FuzzStats:
    """One engine with a 16 MB hash table (command: another program), `blocks` blocks of
    `size` random UCI lines from seed."""
    stats = FuzzStats("UCI", seeds=1)
    start = time.monotonic()
    rng = random.Random(seed)
    lines = UciLines(rng, known_bugs=known_bugs)
    with UciPipe(args=("--hash", "16"), command=command) as e:
        run = UciRun(e, seed, stats)
        try:
            e.handshake()
            for _ in range(blocks):
                run.block(lines.block(size), burst=rng.random() < 1 / 3)
            if e.proc.poll() is not None:
                raise run.gone("the engine ended")
        except EngineGone:
            pass
        except AssertionError as exc:       # the handshake
            run.gone(str(exc).splitlines()[0])
    stats.seconds = time.monotonic() - start
    return stats


def first_failures(stats: FuzzStats, count: int = 3) -> str:
    return "\n\n".join(str(f) for f in stats.failures[:count])

