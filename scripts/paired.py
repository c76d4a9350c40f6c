#!/usr/bin/env python3
"""A candidate's match against a control's, game pair by game pair, on the same openings.

scripts/match.py plays each opening twice, colours reversed (rounds 2k-1 and 2k). When a
candidate and a control each played the same opening file against the same opponent,
the difference of their points on each opening pair takes the openings' luck out of the
comparison: this prints, per PGN pair and pooled, the candidate's score less the
control's in percentage points, with its standard error over the opening pairs, and how
the two runs' points on an opening pair correlate (near 0, pairing takes out no luck).

    python scripts/paired.py --candidate results/cand_seed224.pgn results/cand_seed225.pgn \\
        --control results/ctl_seed224.pgn results/ctl_seed225.pgn

The two lists go in the same order.  Only opening pairs that both runs finished count.
An unreadable PGN, lists of different lengths, or a pair whose openings differ between
the runs is one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import match  # noqa: E402

PERCENT_PER_PAIR_POINT = 50.0   # a pair holds 2 points: one point of it is 50% of its score


class PairingError(Exception):
    """The runs cannot be paired (the message says why)."""


def pair_points(path: Path, player: str) -> dict[int, tuple[float, match.Opening]]:
    """Per opening pair (numbered from 1) that the PGN finished: the player's points
    from its two games and the opening they began with."""
    try:
        games = match.read_pgn(path) if path.is_file() else None
    except (OSError, UnicodeDecodeError) as error:
        raise PairingError(f"{path}: cannot read it ({error})") from error
    if games is None:
        raise PairingError(f"{path}: no such file")
    by_round: dict[int, tuple[float, match.Opening]] = {}
    for game in games:
        if game.white.startswith(player) == game.black.startswith(player):
            raise PairingError(f"{path}: round {game.round} has not exactly one player "
                               f"named {player!r}")
        by_round[game.round] = (match.score_of(game.result, game.white.startswith(player)),
                                game.opening)
    pairs = {}
    for round_number, (points, opening) in by_round.items():
        if round_number % 2 and round_number + 1 in by_round:
            pairs[(round_number + 1) // 2] = (points + by_round[round_number + 1][0], opening)
    return pairs


def common_pairs(candidate: Path, control: Path, player: str) -> list[tuple[float, float]]:
    """(candidate's points, control's points) per opening pair both finished."""
    ours, theirs = pair_points(candidate, player), pair_points(control, player)
    pairs = []
    for pair in sorted(ours.keys() & theirs.keys()):
        if ours[pair][1] != theirs[pair][1]:
            raise PairingError(f"{candidate} and {control}: opening pair {pair} differs")
        pairs.append((ours[pair][0], theirs[pair][0]))
    return pairs


def correlation(pairs: list[tuple[float, float]]) -> str:
    """Pearson's r of the candidate's and the control's points over the pairs, or
    'undefined' where there are fewer than two or either run's points do not vary."""
    try:
        return f"{statistics.correlation(*zip(*pairs)):+.3f}"
    except statistics.StatisticsError:
        return "undefined"


def mean_and_error(differences: list[float]) -> tuple[float, float]:
    """The mean of paired differences and its standard error (0 with one difference)."""
    spread = statistics.stdev(differences) if len(differences) > 1 else 0.0
    return statistics.mean(differences), spread / math.sqrt(len(differences))


def describe(pairs: list[tuple[float, float]]) -> str:
    """'N pairs: candidate A%, control B%, paired +X points, SE Y, correlation R' (X and
    Y in percentage points of score)."""
    if not pairs:
        return "no pairs in common"
    mean, error = mean_and_error([ours - theirs for ours, theirs in pairs])
    candidate = statistics.mean(ours for ours, _ in pairs) * PERCENT_PER_PAIR_POINT
    control = statistics.mean(theirs for _, theirs in pairs) * PERCENT_PER_PAIR_POINT
    return (f"{len(pairs)} pairs: candidate {candidate:.1f}%, control {control:.1f}%, "
            f"paired {mean * PERCENT_PER_PAIR_POINT:+.1f} points, "
            f"SE {error * PERCENT_PER_PAIR_POINT:.1f}, correlation {correlation(pairs)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", type=Path, nargs="+", required=True, help="the candidate's PGNs")
    parser.add_argument("--control", type=Path, nargs="+", required=True,
                        help="the control's PGNs, in the same order")
    parser.add_argument("--player", default="fairymax",
                        help="how the compared engine's name starts in the White/Black tags")
    args = parser.parse_args(argv)
    if len(args.candidate) != len(args.control):
        print(f"paired: {len(args.candidate)} candidate PGNs but {len(args.control)} control PGNs",
              file=sys.stderr)
        return 2
    pooled: list[tuple[float, float]] = []
    try:
        for candidate, control in zip(args.candidate, args.control):
            pairs = common_pairs(candidate, control, args.player)
            print(f"{candidate.name} against {control.name}: {describe(pairs)}")
            pooled += pairs
    except PairingError as error:
        print(f"paired: {error}", file=sys.stderr)
        return 2
    print(f"pooled: {describe(pooled)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
