#!/usr/bin/env python3
"""Where our engine's lost games went wrong, in material: a PGN's view for engine tuning.

For every game of the PGNs (written by scripts/match.py) that our engine lost, the moves
are replayed on our Board (the game's Variant tag, from its FEN tag if it has one) and the
material balance (ini values, royals left out) is
followed from our side.  A balance counts as held when it stays so for HELD_PLIES
plies, so that the middle of an exchange is not taken for a lost piece.  Printed: how many
losses fell a margin behind (held), at which ply that first happened (quartiles), how
many pieces stood on the board then, and how many of those losses had first been the
margin ahead (held).

    python scripts/material_swings.py results/fsf_odds3_capablanca_m43_seed22*_10+0.1.pgn

A file that cannot be read, or a game that cannot be replayed, is one line on stderr and
exit status 2.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import match  # noqa: E402
from fairymax.board import Board  # noqa: E402

HELD_PLIES = 6
PIECE_BUCKET = 6            # pieces on the board are counted in bands this wide
OURS = "fairymax"           # the White/Black tag of our engine starts so


def balances(variant: str, movetext: str, our_side: int,
             fen: str | None = None) -> tuple[list[int], list[int]]:
    """After each ply of the game: our material minus the opponent's, and the pieces on
    the board.  KeyError (unknown variant) or ValueError (bad FEN or move) if the game
    cannot be replayed."""
    board = Board.from_name(variant)
    if fen:
        board.set_fen(fen)
    value = board.variant.value

    def material(side_pieces) -> int:       # royals (negative values) left out
        return sum(max(0, value(t)) for _, t in side_pieces)

    balance, pieces = [], []
    for text in match.move_tokens(movetext):
        if text.startswith("{"):
            continue
        board.push(board.parse_move(text))
        mine, theirs = board.pieces(our_side), board.pieces(1 - our_side)
        balance.append(material(mine) - material(theirs))
        pieces.append(len(mine) + len(theirs))
    return balance, pieces


def first_held(balance: list[int], test, start: int) -> int | None:
    """The first ply from `start` on that ends HELD_PLIES plies all passing `test`."""
    for ply in range(max(start, HELD_PLIES), len(balance) + 1):
        if all(test(b) for b in balance[ply - HELD_PLIES:ply]):
            return ply
    return None


def quartiles(values: list[int]) -> str:
    values = sorted(values)
    n = len(values)
    return f"{values[n // 4]}, {values[n // 2]}, {values[3 * n // 4]}" if n else "none"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgns", nargs="+", type=Path)
    parser.add_argument("--margin", type=int, default=300, help="centipawns behind (ahead) that count")
    parser.add_argument("--from-ply", type=int, default=30, help="ignore the plies before this one")
    args = parser.parse_args(argv)
    losses = behind = ahead_first = 0
    plies, pieces = [], collections.Counter()
    for path in args.pgns:
        try:
            text = path.read_text()
        except OSError as error:
            print(f"material_swings: {error}", file=sys.stderr)
            return 2
        for tags, movetext in match.split_pgn(text):
            ours_white = tags.get("White", "").startswith(OURS)
            if match.score_of(tags.get("Result", "*"), ours_white) != 0.0:
                continue
            losses += 1
            try:
                balance, on_board = balances(tags.get("Variant", "normal"), movetext,
                                             0 if ours_white else 1, tags.get("FEN"))
            except (KeyError, ValueError) as error:
                print(f"material_swings: {path}, round {tags.get('Round', '?')}: {error}", file=sys.stderr)
                return 2
            fell = first_held(balance, lambda b: b <= -args.margin, args.from_ply)
            if fell is None:
                continue
            behind += 1
            plies.append(fell)
            ahead_first += first_held(balance[:fell], lambda b: b >= args.margin, args.from_ply) is not None
            pieces[on_board[fell - 1] // PIECE_BUCKET * PIECE_BUCKET] += 1
    print(f"losses {losses}: {behind} fell {args.margin} cp behind (held {HELD_PLIES} plies) "
          f"after ply {args.from_ply}, first at ply {quartiles(plies)} (quartiles); "
          f"{ahead_first} of them had been {args.margin} cp ahead before")
    print("pieces on the board then: "
          + ", ".join(f"{k}-{k + PIECE_BUCKET - 1}: {n}" for k, n in sorted(pieces.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
