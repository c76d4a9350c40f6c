#!/usr/bin/env python3
"""Quiet positions from the games of match PGNs (scripts/match.py writes them), one FEN a
line, for `python -m fairymax tune label`.

Self-play positions (`tune positions`) hold what our own engine steers into; the games
against a stronger opponent hold what we lose, e.g. its attacks on our royal.

    python scripts/game_positions.py --variant capablanca results/fsf_odds3_capablanca_*.pgn \\
        > ~/.cache/fairymax/capa_fsfgames.fen

The positions kept are those `tune positions` writes (fairymax.tune.is_sample: quiet,
past the opening), each (board, turn, castling) once.  With --results each line is
already labelled by its game's result for the side to move (`FEN;=1`, `=0.5`, `=0`), for
`tune fit` to fit the evaluation to what the games came to (Texel's method); unfinished
games are left out then.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fairymax.tune import RESULT_MARK, is_sample

sys.path.insert(0, str(Path(__file__).resolve().parent))
from match import score_of  # noqa: E402
from move_quality import games  # noqa: E402


def quiet_positions(variant: str, pgns: list[Path], results: bool = False):
    """The quiet positions' FENs of every game, each once; with `results`, labelled by
    the game's result for the side to move."""
    from fairymax.board import Board
    seen = set()
    for pgn in pgns:
        for tags, moves in games(pgn):
            result = tags.get("Result", "*")
            if results and score_of(result, True) is None:
                continue
            board = Board.from_name(variant)
            if "FEN" in tags:
                board.set_fen(tags["FEN"])
            last_was_capture = False
            for text in moves:
                move = board.parse_move(text)
                if is_sample(board, move, last_was_capture):
                    fen = board.fen()
                    position = " ".join(fen.split()[:3])
                    if position not in seen:
                        seen.add(position)
                        if results:
                            score = score_of(result, fen.split()[1] == "w")
                            yield f"{fen};{RESULT_MARK}{score:g}"
                        else:
                            yield fen
                last_was_capture = board.is_capture(move)
                board.push(move)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", required=True)
    parser.add_argument("pgn", type=Path, nargs="+")
    parser.add_argument("--results", action="store_true",
                        help="label each position by its game's result for the side to move")
    args = parser.parse_args()
    try:
        for fen in quiet_positions(args.variant, args.pgn, args.results):
            print(fen)
    except (KeyError, ValueError, OSError) as exc:
        print(f"game_positions: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
