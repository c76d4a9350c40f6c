#!/usr/bin/env python3
"""Quiet positions from the games of match PGNs (scripts/match.py writes them), one FEN a
line, for `python -m fairymax tune label`.

Self-play positions (`tune positions`) hold what our own engine steers into; the games
against a stronger opponent hold what we lose, e.g. its attacks on our royal.

    python scripts/game_positions.py --variant capablanca results/fsf_odds3_capablanca_*.pgn \\
        > ~/.cache/fairymax/capa_fsfgames.fen

A position is kept when the move played from it is no capture or promotion, the move
before it was no capture, the side to move is not in check, and it comes after the
first OPENING_PLIES plies; each position (board, turn, castling) once.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from move_quality import games  # noqa: E402

OPENING_PLIES = 8       # as `tune positions`: the opening's positions say little


def quiet_positions(variant: str, pgns: list[Path]):
    """The quiet positions' FENs of every game, each once."""
    from fairymax.board import Board
    seen = set()
    for pgn in pgns:
        for tags, moves in games(pgn):
            board = Board.from_name(variant)
            if "FEN" in tags:
                board.set_fen(tags["FEN"])
            last_was_capture = False
            for ply, text in enumerate(moves):
                move = board.parse_move(text)
                quiet = not (board.is_capture(move) or board.is_promotion(move))
                if ply >= OPENING_PLIES and quiet and not last_was_capture and not board.in_check():
                    fen = board.fen()
                    position = " ".join(fen.split()[:3])
                    if position not in seen:
                        seen.add(position)
                        yield fen
                last_was_capture = board.is_capture(move)
                board.push(move)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", required=True)
    parser.add_argument("pgn", type=Path, nargs="+")
    args = parser.parse_args()
    try:
        for fen in quiet_positions(args.variant, args.pgn):
            print(fen)
    except (KeyError, ValueError, OSError) as exc:
        print(f"game_positions: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
