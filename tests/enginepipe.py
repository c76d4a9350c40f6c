"""Test helper: drive an engine process over pipes with transcript-style expectations.

    with EnginePipe() as e:          # spawns [sys.executable, "xboard.py"]
        e.handshake()
        e.send("new", "usermove e2e4")
        e.expect(r"^move ")

    with UciPipe() as e:             # the same program, first line `uci`
        e.handshake()
        e.send("position startpos", "go depth 2")
        e.bestmove()

"""
from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def engine_command(args=()) -> list:
    return [sys.executable, str(ROOT / "xboard.py"), *args]


class EnginePipe:
    def __init__(self, args=(), command=None):
        self.command = command or engine_command(args)
        self.proc = subprocess.Popen(self.command, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1, encoding="utf-8",
                                     errors="surrogateescape")   # any bytes, both ways
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        self.transcript: list[str] = []
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        self._ping = 1000

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _read_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, *lines: str) -> None:
        for line in lines:
            self.transcript.append("> " + line)
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def fail(self, message: str):
        tail = "\n".join(self.transcript[-60:])
        err = "".join(self.stderr[-20:])
        raise AssertionError(f"{message}\n--- transcript ---\n{tail}\n--- stderr ---\n{err}")

    def readline(self, timeout: float) -> str | None:
        try:
            line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if line is None:
            self.fail("engine closed its output")
        self.transcript.append("< " + line)
        return line

    def expect(self, pattern: str, timeout: float = 5.0, forbid: str | None = None) -> list[str]:
        """Lines up to and including the first matching pattern (a regex, searched)."""
        end = time.monotonic() + timeout
        seen = []
        while True:
            line = self.readline(end - time.monotonic())
            if line is None:
                self.fail(f"timeout waiting for {pattern!r}")
            seen.append(line)
            if forbid and re.search(forbid, line):
                self.fail(f"forbidden line {line!r} while waiting for {pattern!r}")
            if re.search(pattern, line):
                return seen

    def silent(self, seconds: float, allow: str = r"^#") -> list[str]:
        """Assert that nothing but lines matching allow arrives for a while."""
        end = time.monotonic() + seconds
        seen = []
        while True:
            line = self.readline(end - time.monotonic())
            if line is None:
                return seen
            if not re.search(allow, line):
                self.fail(f"unexpected line {line!r}")
            seen.append(line)

    def sync(self, timeout: float = 10.0) -> list[str]:
        """ping; return the lines before the pong."""
        self._ping += 1
        self.send(f"ping {self._ping}")
        return self.expect(rf"^pong {self._ping}$", timeout)[:-1]

    def handshake(self) -> list[str]:
        self.send("xboard", "protover 2")
        return self.expect(r"^feature .*done=1", 10)

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except (BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


class UciPipe(EnginePipe):
    """The same engine speaking UCI: handshake with `uci`, sync with `isready`."""

    def handshake(self) -> list:
        self.send("uci")
        return self.expect(r"^uciok$", 10)

    def sync(self, timeout: float = 10.0) -> list:
        """isready; return the lines before the readyok."""
        self.send("isready")
        return self.expect(r"^readyok$", timeout)[:-1]

    def bestmove(self, timeout: float = 10.0) -> tuple:
        """(the info lines, the move) of the next bestmove."""
        lines = self.expect(r"^bestmove ", timeout)
        return lines[:-1], lines[-1].split()[1]


def moves_of(lines) -> list:
    return [line.split()[1] for line in lines if line.startswith("move ")]
