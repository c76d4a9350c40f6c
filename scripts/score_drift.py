#!/usr/bin/env python3
"""How a player's position drifts over the games of a match, by a stronger engine's
judgement: Fairy-Stockfish scores every position of the first plies of each game of a
match PGN (scripts/match.py writes them) at a fixed depth, from the player's side.

    python scripts/score_drift.py results/fsf_odds3_capablanca_lowmob_10+0.1.pgn \\
        --variant capablanca --depth 11 --plies 40

Prints each game's scores every second ply from its start, the mean and median over
the games every fourth ply, and the moves of the player that lost the most by this
count.  A steady fall says the games are lost by judgement, a few large drops by
blunders.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import pyffish

sys.path.insert(0, str(Path(__file__).resolve().parent))
from move_quality import Judge, games  # noqa: E402

SUMMARY_EVERY = 4       # plies between the summary rows
WORST_MOVES = 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path)
    parser.add_argument("--variant", required=True)
    parser.add_argument("--player", default="fairymax", help="whose side (in White/Black)")
    parser.add_argument("--depth", type=int, default=11, help="the judge's depth")
    parser.add_argument("--plies", type=int, default=40, help="the plies of each game to score")
    args = parser.parse_args()
    try:
        played = games(args.pgn)
    except (ValueError, OSError) as exc:
        print(f"score_drift: {exc}", file=sys.stderr)
        return 2

    judge = Judge(args.variant, args.depth)
    start = pyffish.start_fen(args.variant)
    by_ply: dict[int, list[int]] = {ply: [] for ply in range(0, args.plies + 1, SUMMARY_EVERY)}
    drops = []
    for tags, moves in played:
        player_white = args.player in tags.get("White", "")
        first = tags.get("FEN", start)
        scores = []
        for ply in range(min(args.plies, len(moves)) + 1):
            fen = pyffish.get_fen(args.variant, first, moves[:ply])
            legal = pyffish.legal_moves(args.variant, fen, [])
            if not legal:
                break
            player_to_move = (fen.split()[1] == "w") == player_white
            ours = judge.score(fen, legal) * (1 if player_to_move else -1)
            if ply in by_ply:
                by_ply[ply].append(ours)
            if scores and not player_to_move:           # the player made the last move
                drops.append((scores[-1] - ours, tags.get("Round"), ply, moves[ply - 1]))
            scores.append(ours)
        print(f"game {tags.get('Round')} {tags.get('Result')} {'White' if player_white else 'Black'}: "
              + " ".join(str(s) for s in scores[::2]), flush=True)
    judge.close()
    for ply, values in by_ply.items():
        if values:
            print(f"ply {ply}: mean {statistics.mean(values):.0f} median {statistics.median(values):.0f} "
                  f"over {len(values)} games")
    for loss, game, ply, move in sorted(drops, reverse=True)[:WORST_MOVES]:
        print(f"lost {loss} cp: game {game}, ply {ply}, {move}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
