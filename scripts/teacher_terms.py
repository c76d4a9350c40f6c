#!/usr/bin/env python3
"""Which of Fairy-Stockfish's evaluation terms go with our evaluation's errors.

For a sample of labelled positions (`tune label` output: FEN;score), the label less our
evaluation (the residual, side to move's view, in pawns) is correlated with each term of
Fairy-Stockfish's classical evaluation, as its `eval` command prints them (middle-game and
end-game parts, side to move's view).  A term that goes with the residual is one our
evaluation lacks or weighs too little.  `--undecided CP` keeps only positions whose label
is within CP of 0, where an error costs most in a logistic fit and in games.

    python scripts/teacher_terms.py --variant capablanca ~/.cache/fairymax/capa_fsfgames.lab \
        --sample 6000 --undecided 200
"""
from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"
# a row of the `eval` table: term | White MG EG | Black MG EG | Total MG EG
TERM_ROW = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?)\s*\|.*\|\s*(-?[\d.]+)\s+(-?[\d.]+)\s*$")


def teacher_terms(engine: str, variant: str, fens: list[str]) -> list[dict[str, tuple[float, float]]]:
    """Fairy-Stockfish's term totals (White's view, pawns) for each FEN."""
    from fairymax.tune import UciTeacher
    teacher = UciTeacher(engine, variant)
    rows = []
    for fen in fens:
        teacher.send(f"position fen {fen}")
        teacher.send("eval")
        terms: dict[str, tuple[float, float]] = {}
        for line in teacher.wait("Total evaluation"):
            match = TERM_ROW.match(line)
            if match and match.group(1) not in ("Term", "Total"):
                terms[match.group(1)] = (float(match.group(2)), float(match.group(3)))
        rows.append(terms)
    teacher.close()
    return rows


def correlation(xs: list[float], ys: list[float]) -> float:
    sx, sy = statistics.pstdev(xs), statistics.pstdev(ys)
    if not sx or not sy:
        return 0.0
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / len(xs) / (sx * sy)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", help="labelled positions (FEN;score per line)")
    parser.add_argument("--variant", required=True)
    parser.add_argument("--sample", type=int, default=3000, help="positions drawn at random")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--undecided", type=int, help="only labels within this many cp of 0")
    parser.add_argument("--engine", default=FAIRY_STOCKFISH)
    args = parser.parse_args()

    from fairymax import evaluate, tune
    try:
        variant = tune.load_variant(args.variant, None)
        fens, labels = tune.read_labelled([args.labels])
    except tune.UsageError as exc:
        print(f"teacher_terms: {exc}", file=sys.stderr)
        return 2
    pairs = list(zip(fens, labels))
    if args.undecided is not None:
        pairs = [(fen, cp) for fen, cp in pairs if abs(cp) < args.undecided]
    random.Random(args.seed).shuffle(pairs)
    pairs = pairs[:args.sample]
    if len(pairs) < 2:
        print("teacher_terms: fewer than two positions to compare", file=sys.stderr)
        return 2
    fens = [fen for fen, _ in pairs]
    ours = evaluate.PositionSet(variant, fens).evaluate()
    try:
        rows = teacher_terms(args.engine, args.variant, fens)
    except tune.UsageError as exc:
        print(f"teacher_terms: {exc}", file=sys.stderr)
        return 2
    sign = [1 if fen.split()[1] == "w" else -1 for fen in fens]
    residual = [(cp - own) / 100 for (_, cp), own in zip(pairs, ours)]
    print(f"{len(fens)} positions; mean |label - ours| {statistics.fmean(map(abs, residual)):.2f} pawns")
    print("term          phase  corr with residual  sd (pawns)")
    for name in rows[0]:
        for phase, label in ((0, "MG"), (1, "EG")):
            values = [row.get(name, (0.0, 0.0))[phase] * s for row, s in zip(rows, sign)]
            if statistics.pstdev(values) > 0:
                print(f"{name:13s} {label}     {correlation(values, residual):+.3f}              "
                      f"{statistics.pstdev(values):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
