"""Test-only stand-in for the Searcher (the real Board does the rules).

It lets the protocol tests exercise the driver's state machine with a searcher
whose timing is predictable: every iteration of depth d sleeps 2**d ms (checking
stop() every millisecond), so a search without limits runs "forever".
Run an engine on them with `python tests/standin_engine.py`.  Never shipped.
"""
import threading
import time
from collections import namedtuple

SearchInfo = namedtuple("SearchInfo", "depth score nodes time_ms pv")
MATE = 30000


class Searcher:
    def __init__(self, hash_mb=64):
        self.hash_mb = hash_mb
        self._stop = threading.Event()

    def resize(self, mb):
        self.hash_mb = mb

    def clear(self):
        pass

    def stop(self):
        self._stop.set()

    def _score(self, b):
        """Material from the side to move's view."""
        v = b.variant
        total = 0
        for side in (0, 1):
            sign = 1 if side == b.side_to_move else -1
            total += sign * sum(max(v.value(t), 0) for _, t in b.pieces(side))
        return total

    def iterate(self, board, max_depth=None, max_nodes=None, hard_ms=None, exclude=(), multipv=1):
        self._stop.clear()
        start = time.monotonic()
        b = board
        moves = [m for m in b.legal_moves() if m not in set(exclude)]
        if not moves:
            return
        nodes = 0
        depth = 0
        while max_depth is None or depth < max_depth:
            depth += 1
            wait = 2 ** min(depth, 20) / 1000.0
            end = time.monotonic() + wait
            while time.monotonic() < end:
                if self._stop.is_set():
                    return
                if hard_ms is not None and (time.monotonic() - start) * 1000 > hard_ms:
                    return
                time.sleep(0.001)
                nodes += 100
                if max_nodes is not None and nodes >= max_nodes:
                    return
            scored = []
            for m in moves:
                b.push(m)
                over = b.outcome()
                if over is not None and over[0] != "1/2-1/2":
                    s = MATE - 1
                else:
                    s = -self._score(b)
                b.pop()
                scored.append((s, b.move_text(m), m))
            scored.sort(key=lambda t: (-t[0], t[1]))
            for s, _, m in scored[:multipv]:
                pv = [m]
                b.push(m)
                replies = b.legal_moves()
                if replies:
                    pv.append(replies[0])
                b.pop()
                yield SearchInfo(depth, s, nodes, int((time.monotonic() - start) * 1000), pv)


def install():
    """Put the stand-in in place of fairymax.search."""
    import sys
    import types
    module = types.ModuleType("fairymax.search")
    module.__dict__.update({"Searcher": Searcher, "SearchInfo": SearchInfo, "MATE": MATE})
    sys.modules["fairymax.search"] = module
