"""Fuzz both protocols: thousands of random, garbled and hostile command lines.

The engine must never crash, must answer every line that needs an answer (CECP `ping`,
UCI `isready`, `go`, unknown commands), must never print an internal error, and must
print only protocol lines.  The lines and the checks are in protocol_fuzz.py (shared
with scripts/fuzz_protocol.py, which runs them over many seeds); time controls are tiny
so that the searches the fuzz starts end quickly.
"""
import re
import sys

import pytest

from enginepipe import EnginePipe, UciPipe
from protocol_fuzz import (CECP_OUTPUT, ERROR_TEXT, FIXED_BUGS, UCI_OUTPUT, first_failures,
                           run_cecp, run_uci)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_command_stream(seed):
    stats = run_cecp(seed, blocks=60, size=25)
    assert not stats.failures, first_failures(stats)
    assert stats.lines >= 1500 and stats.syncs == 60


def test_long_lines_and_binary_garbage():
    with EnginePipe() as e:
        e.handshake()
        e.send("x" * 100000, "setboard " + "p" * 50000, "usermove " + "a1" * 10000,
               "level " + "9" * 500 + " 1 1", "st " + "9" * 400, "\x01\x02\x03 \x1b[2J",
               "\udcff\udcfe garbage that is no UTF-8")
        out = e.sync()
        assert not [line for line in out if line.startswith("# internal error")]
        e.send("new", "force", "st 0.05", "go")
        e.expect(r"^move ", 10)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_uci_random_command_stream(seed):
    stats = run_uci(seed, blocks=40, size=20)
    assert not stats.failures, first_failures(stats)
    assert stats.lines >= 800 and stats.answers >= 200


# A UCI engine with the faults the checks are there for: it ignores unknown commands, never
# answers a `go` with a 0 in it, answers one with `nodes 1` twice and `ucinewgame` with junk.
FAULTY_UCI_ENGINE = """
import sys
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["quit"]:
        break
    out = {"uci": ["uciok"], "isready": ["readyok"], "ucinewgame": ["no such line"]}.get(
        words[0] if words else "", [])
    if words[:1] == ["go"] and "0" not in words:
        out = ["bestmove e2e4"] * (2 if "nodes 1" in line else 1)
    for text in out:
        print(text, flush=True)
"""


def test_uci_checks_find_faults():
    stats = run_uci(1, blocks=10, size=20, command=[sys.executable, "-c", FAULTY_UCI_ENGINE])
    kinds = {failure.kind for failure in stats.failures}
    assert kinds == {"missing answer", "extra answer", "unexpected line"}, first_failures(stats, 9)
    assert [f for f in stats.failures if re.search(r"missing after .*'go [^']*\b0\b", f.message)]
    assert [f for f in stats.failures if "unknown command" in f.message]
    assert [f for f in stats.failures if "no such line" in f.message]


def test_uci_answers_in_a_burst():
    """Lines that need an answer, sent at once: each answered, in order."""
    with UciPipe() as e:
        e.handshake()
        e.send("position startpos", "go infinite", "isready", "go nodes 1", "go depth 0",
               "go movetime 0", "frobnicate", "go depth -3", "ponderhit", "stop", "stop",
               "setoption name UCI_Variant value roman", "position startpos moves b1c3",
               "go nodes 1", "stop", "isready")
        out = e.expect(r"^readyok$")
        out += e.expect(r"^readyok$")
        bestmoves = [line for line in out if line.startswith("bestmove ")]
        assert len(bestmoves) == 6
        assert "info string unknown command: frobnicate" in out
        assert re.match(r"^bestmove [a-j](9|10)[a-j]([1-9]|10)", bestmoves[-1])
        assert all(UCI_OUTPUT.match(line) and not ERROR_TEXT.search(line) for line in out)


# Each bug the fuzzer found, replayed from its examples (FIXED_BUGS in protocol_fuzz.py).
@pytest.mark.parametrize("bug", sorted(FIXED_BUGS))
def test_fixed_bug(bug):
    for line in FIXED_BUGS[bug].examples:
        cecp = line.split()[0] == "setboard"
        assert FIXED_BUGS[bug].hit(line)
        with (EnginePipe() if cecp else UciPipe()) as e:
            e.handshake()
            e.send("new" if cecp else "position startpos", line)
            if line.split()[0] == "isready":
                e.expect(r"^readyok$", 3)
            elif line.split()[0] == "go":
                e.sync()
                e.send("stop")
                e.expect(r"^bestmove ", 3)
            out = e.sync()
            assert all((CECP_OUTPUT if cecp else UCI_OUTPUT).match(text) for text in out), line
            assert e.close() == 0
            assert not [text for text in e.transcript + e.stderr if ERROR_TEXT.search(text)], line


def test_undo_after_overflowing_setboard():
    """The fuzzer's one crash: an undo after a setboard that failed with OverflowError."""
    with EnginePipe() as e:
        e.handshake()
        e.send("new", "force", "e2e4", "setboard 4k3/8/8/8/8/8/8/4K3 w - - 2147483648 1", "undo")
        e.sync()
        assert e.proc.poll() is None
