"""A scripted UCI engine for the match runner's tests: `python fake_uci.py MODE`.

Chess only.  `go` (not ponder) answers at once with the first legal move in sorted
order and, as its ponder move, the reply to that move chosen the same way; a `go
ponder` search answers only `ponderhit` or `stop` (with the same choice for the
pondered position).  MODE changes one thing:

* `normal`: as above;
* `early`: answers `go ponder` at once with a bestmove (UCI forbids it);
* `deaf`: never answers `stop` of a ponder search;
* `badponder`: names `a1a1` (no move) as its ponder move;
* `slow`: waits 0.3 s before it answers `go`.
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fairymax.board import Board  # noqa: E402


def choice(board) -> tuple:
    """(move, reply) texts: the first legal move in sorted order and the reply to it."""
    moves = sorted(board.legal_moves(), key=board.move_text)
    if not moves:
        return "0000", None
    board.push(moves[0])
    replies = sorted(board.legal_moves(), key=board.move_text)
    reply = board.move_text(replies[0]) if replies else None
    board.pop()
    return board.move_text(moves[0]), reply


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "normal"
    board = Board.from_name("normal")
    pondering = False

    def send(line: str) -> None:
        print(line, flush=True)

    def bestmove() -> None:
        move, reply = choice(board)
        if mode == "badponder":
            reply = "a1a1"
        send(f"bestmove {move}" + (f" ponder {reply}" if reply else ""))

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "uci":
            send("id name Fake")
            send("option name Ponder type check default false")
            send("uciok")
        elif cmd == "isready":
            send("readyok")
        elif cmd == "position":
            board = Board.from_name("normal")
            if words[1] == "fen":
                board.set_fen(" ".join(words[2:8]))
            if "moves" in words:
                for text in words[words.index("moves") + 1:]:
                    board.push(board.parse_move(text))
        elif cmd == "go" and "ponder" in words:
            pondering = True
            if mode == "early":
                bestmove()
        elif cmd == "go":
            if mode == "slow":
                time.sleep(0.3)
            bestmove()
        elif cmd == "ponderhit" and pondering:
            pondering = False
            bestmove()
        elif cmd == "stop" and pondering:
            pondering = False
            if mode != "deaf":
                bestmove()
        elif cmd == "quit":
            break


if __name__ == "__main__":
    main()
