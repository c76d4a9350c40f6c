"""What the protocol front ends share, and the program that serves a GUI.

main() (`python xboard.py [--ini FILE] [--hash MB]`) reads stdin on a reader thread
and picks the protocol from the first line: `uci` starts the UCI front end (uci.py),
anything else the CECP one (cecp.py), so one command line serves every GUI.  The
reader answers `protover` with `feature done=0` at once, so that an XBoard GUI waits
for the engine to start up.

A front end runs on the command thread: it takes the lines the reader queued, one at
a time, and turns them into session calls; it also takes from the same queue the
searches that ended (put there by the search thread), so that everything the session
does happens on this one thread.
"""
from __future__ import annotations

import argparse
import os
import queue
import signal
import sys
import threading
import traceback
from typing import Optional

from fairymax.session import DEFAULT_HASH_MB, Listener, SearchJob, Session

ENGINE_NAME = "fairymax"


class Connection:
    """The GUI at the other end of a pair of streams.  Lines come in through `inbox`
    (None: end of input; a SearchJob: a search that ended), lines go out flushed and
    whole, from any thread."""

    def __init__(self, out=None):
        self.out = out if out is not None else sys.stdout
        self.lock = threading.Lock()
        self.inbox: "queue.Queue[object]" = queue.Queue()

    def send(self, line: str) -> None:
        """Write one protocol line and flush it."""
        with self.lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                os._exit(0)         # the GUI is gone

    def start_reader(self, stream) -> None:
        threading.Thread(target=self.read, args=(stream,), daemon=True).start()

    def read(self, stream) -> None:
        """Reader thread: input lines -> inbox; under CECP (any first line but `uci`)
        `protover` gets `feature done=0` at once."""
        cecp = None
        try:
            for raw in stream:
                line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
                line = line.strip()
                if cecp is None and line:
                    cecp = line.split()[0] != "uci"
                if cecp and line.startswith("protover"):
                    self.send("feature done=0")
                self.inbox.put(line)
        except Exception:
            pass
        self.inbox.put(None)


class FrontEnd(Listener):
    """A protocol spoken over a connection for a session (which it listens to)."""

    def __init__(self, session: Session, connection: Connection):
        self.session = session
        self.connection = connection
        self.quitting = False
        session.listener = self

    def send(self, line: str) -> None:
        self.connection.send(line)

    def on_search_end(self, job: SearchJob) -> None:
        self.connection.inbox.put(job)

    def run(self, first_line: Optional[str] = None) -> int:
        """Serve commands until `quit` or end of input (first_line: one already read)."""
        if first_line is not None:
            self.serve(first_line)
        while not self.quitting:
            item = self.connection.inbox.get()
            if item is None:
                break
            if isinstance(item, SearchJob):
                self.search_ended(item)
            else:
                self.serve(item)
        self.session.stop_job()
        return 0

    def serve(self, line: str) -> None:
        try:
            self.handle_line(line)
        except Exception:
            self.on_message("internal error on %r: %s" % (line, traceback.format_exc()))

    def handle_line(self, line: str) -> None:
        raise NotImplementedError

    def search_ended(self, job: SearchJob) -> None:
        self.session.search_ended(job)


def main(argv: Optional[list] = None) -> int:
    """Serve a GUI on stdin/stdout in the protocol its first line asks for."""
    parser = argparse.ArgumentParser(
        prog="fairymax xboard",
        description="the engine, speaking CECP (XBoard) or UCI (if the first line is `uci`)")
    parser.add_argument("--ini", help="piece/variant definition file (default: the bundled pieces.ini)")
    parser.add_argument("--hash", type=int, default=DEFAULT_HASH_MB, help="hash table size in MB")
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    for sig in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
        if sig is not None:
            try:
                signal.signal(sig, signal.SIG_IGN)
            except (ValueError, OSError):
                pass
    connection = Connection()
    connection.start_reader(sys.stdin.buffer)
    first = ""
    while not first:
        first = connection.inbox.get()
        if first is None:
            return 0
    uci = first.split()[0] == "uci"
    try:
        session = Session(ini=args.ini, hash_mb=args.hash)
    except Exception as exc:
        connection.send(f"{'info string' if uci else 'tellusererror'} fairymax: {exc}")
        return 1
    if uci:
        from fairymax.uci import UciFrontEnd
        front: FrontEnd = UciFrontEnd(session, connection)
    else:
        from fairymax.cecp import CecpFrontEnd
        front = CecpFrontEnd(session, connection)
    rc = front.run(first)
    try:
        sys.stdout.flush()
    except Exception:
        pass
    os._exit(rc)        # the reader thread may sit in a blocking read: do not wait for it
