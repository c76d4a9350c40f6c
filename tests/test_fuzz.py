"""Fuzz the protocol: thousands of random, garbled and hostile command lines.

The engine must never crash, must answer every `ping` in order, must never print
an internal error, and must print only protocol lines.  Time controls are kept
tiny so that searches started by the fuzz end quickly.
"""
import random
import re
import string

import pytest

from enginepipe import EnginePipe

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


def random_move(rng):
    files, ranks = "abcdefghijklmnopz", [str(r) for r in range(0, 17)]
    text = rng.choice(files) + rng.choice(ranks) + rng.choice(files) + rng.choice(ranks)
    if rng.random() < 0.2:
        text += rng.choice("qrbnkxQ=")
    return rng.choice([text, "usermove " + text, "O-O", "O-O-O", "usermove O-O", "P@e4",
                       "@@@@", "e2e4", "e7e5", "usermove g1f3", "usermove g8f6"])


def garble(rng, line):
    chars = list(line)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        pos = rng.randint(0, len(chars))
        if op < 0.4:
            chars.insert(pos, rng.choice(string.printable[:95] + "\t\x00\x7f\u00e9\u20ac"))
        elif op < 0.7 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif chars:
            chars[min(pos, len(chars) - 1)] = rng.choice(string.ascii_letters + string.digits)
    return "".join(chars).replace("\n", " ").replace("\r", " ")


def random_line(rng):
    kind = rng.random()
    if kind < 0.3:
        line = rng.choice(COMMANDS)
    elif kind < 0.5:
        line = random_move(rng)
    elif kind < 0.6:
        line = "setboard " + rng.choice(FENS)
    elif kind < 0.75:
        line = rng.choice(TIMES)
    elif kind < 0.8:
        line = "".join(rng.choice(string.printable[:95]) for _ in range(rng.randint(0, 40)))
    elif kind < 0.85:
        line = "edit"
    else:
        line = garble(rng, rng.choice(COMMANDS + FENS + TIMES))
    return line


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_command_stream(seed):
    rng = random.Random(seed)
    with EnginePipe() as e:
        e.handshake()
        e.send("st 0.02", "sd 3")
        for block in range(60):
            lines = [random_line(rng) for _ in range(25)]
            if rng.random() < 0.5:
                lines += ["force", "st 0.02", "sd 3"]    # keep searches short
            if "edit" in lines and "." not in lines:
                lines.append(".")
            e.send(*lines)
            out = e.sync(timeout=20)
            for line in out:
                assert not line.startswith("# internal error"), line
                assert not line.startswith("# search error"), line
                assert re.match(r"^(move |pong |Error \(|Illegal move|tellusererror |setup |piece |"
                                r"Hint: |\d+ -?\d+ \d+ \d+|stat01: |1-0 |0-1 |1/2-1/2 |resign|"
                                r"offer draw| no book|$|# )", line), line
        e.send("exit", "force", "new")
        e.sync()
        assert e.proc.poll() is None


def test_long_lines_and_binary_garbage():
    with EnginePipe() as e:
        e.handshake()
        e.send("x" * 100000, "setboard " + "p" * 50000, "usermove " + "a1" * 10000,
               "level " + "9" * 500 + " 1 1", "st " + "9" * 400, "\x01\x02\x03 \x1b[2J")
        out = e.sync()
        assert not [line for line in out if line.startswith("# internal error")]
        e.send("new", "force", "st 0.05", "go")
        e.expect(r"^move ", 10)
