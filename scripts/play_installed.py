#!/usr/bin/env python3
"""Play one game of an installed fairymax against itself through python-chess's CECP client.

    python scripts/play_installed.py /path/to/venv/bin/fairymax

CI runs it on the wheel installed in a fresh venv, from a directory outside the project,
so the engine must find its pieces.ini inside the installed package.  Exit status 0 when
the game reaches a result with only legal moves, 1 otherwise.
"""
import sys

import chess
import chess.engine

MOVE_TIME = 0.05
MAX_PLIES = 400


def main(argv: list) -> int:
    command = [argv[0], "xboard"] if argv else ["fairymax", "xboard"]
    board = chess.Board()
    with chess.engine.SimpleEngine.popen_xboard(command) as engine:
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            result = engine.play(board, chess.engine.Limit(time=MOVE_TIME))
            if result.move is None or result.move not in board.legal_moves:
                print(f"bad move {result.move} in {board.fen()}")
                return 1
            board.push(result.move)
    print(f"{board.ply()} plies, result {board.result(claim_draw=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
