"""Evaluation tuning: `python -m fairymax tune positions|label|fit ...`.

1. `positions`: fast self-play games (a few thousand nodes a move, from an opening
   file, a random move now and then for variety) write quiet positions, one FEN a
   line: not in check, not just after a capture, and the move chosen in them is no
   capture or promotion.
2. `label`: a stronger UCI engine scores each position (Stockfish for chess,
   Fairy-Stockfish with UCI_Variant for its variants) at a fixed node count; lines
   become `FEN;centipawns for the side to move`.  Resumable: labelled lines are kept.
3. `fit`: the evaluation weights (evaluate.weight_names) are fitted to the labels by
   minimising the mean of (sigmoid(teacher) - sigmoid(eval))^2, sigmoid(x) = 1 / (1 +
   10^(-x / 400)), by gradient descent with finite differences over the whole set
   (evaluate.PositionSet scores every position in C); a held-out tenth reports the
   error the fit did not see.  The result is a weights file for the variant.

Large position files belong outside the repository (e.g. ~/.cache/fairymax/).
"""
from __future__ import annotations

import argparse
import math
import random
import subprocess
import sys
import time
from pathlib import Path

SIGMOID_SCALE = 400.0
MATE_LABEL = 2000           # teacher mate scores are clamped to this
OPENING_PLY_MIN = 8         # positions before this ply are not written
RANDOM_MOVE_CHANCE = 0.08   # self-play variety
MAX_GAME_PLIES = 240


class UsageError(Exception):
    """Bad input: reported as one line, exit status 2."""


def weights_path(variant: str) -> Path:
    """The committed weights file of a variant (may not exist)."""
    return Path(__file__).resolve().parent / "weights" / f"{variant.replace('/', '_')}.txt"


def read_weights(path: Path) -> dict:
    """`name value` lines (# comments) -> {name: value}."""
    weights = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 2 or not parts[1].lstrip("-").isdigit():
            raise UsageError(f"{path}:{lineno}: expected 'name value'")
        weights[parts[0]] = int(parts[1])
    return weights


def write_weights(path: Path, weights: dict, header: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# {text}" for text in header] + [f"{name} {value}" for name, value in weights.items()]
    path.write_text("\n".join(lines) + "\n")


def load_variant(name: str, ini: str | None):
    from fairymax import loader
    from fairymax.variant import Variant
    specs = loader.load_file(ini) if ini else loader.load_default()
    if name not in specs:
        raise UsageError(f"unknown variant {name}")
    return Variant(specs[name])


# ---------------------------------------------------------------- positions
def self_play_positions(variant, openings: list, games: int, nodes: int, seed: int, out) -> int:
    """Play `games` self-play games; write their quiet positions to `out`; return the count."""
    from fairymax.board import Board
    from fairymax.search import Searcher
    rng = random.Random(seed)
    searcher = Searcher(hash_mb=16)
    written = 0
    for game in range(games):
        board = Board(variant)
        for text in (openings[game % len(openings)] if openings else []):
            board.push(board.parse_move(text))
        last_was_capture = False
        while len(board.history) < MAX_GAME_PLIES and board.outcome() is None:
            legal = board.legal_moves()
            if rng.random() < RANDOM_MOVE_CHANCE:
                move = rng.choice(legal)
            else:
                info = None
                for info in searcher.iterate(board, max_nodes=nodes):
                    pass
                move = info.pv[0] if info is not None and info.pv else rng.choice(legal)
                quiet = not (board.is_capture(move) or board.is_promotion(move))
                if (quiet and not last_was_capture and not board.in_check()
                        and len(board.history) >= OPENING_PLY_MIN):
                    out.write(board.fen() + "\n")
                    written += 1
            last_was_capture = board.is_capture(move)
            board.push(move)
        searcher.clear()
    return written


# ---------------------------------------------------------------- labels
class UciTeacher:
    """A UCI engine that scores positions at a fixed node count."""

    def __init__(self, command: str, variant: str | None):
        try:
            self.proc = subprocess.Popen(command.split(), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, bufsize=1)
        except OSError as exc:
            raise UsageError(f"cannot start {command}: {exc}")
        self.send("uci")
        self.wait("uciok")
        if variant:
            self.send(f"setoption name UCI_Variant value {variant}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, word: str) -> list:
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise UsageError("the teacher engine quit")
            lines.append(line.strip())
            if line.startswith(word):
                return lines

    def score(self, fen: str, nodes: int) -> int | None:
        """Centipawns for the side to move, mates clamped; None if no score came."""
        self.send(f"position fen {fen}")
        self.send(f"go nodes {nodes}")
        score = None
        for line in self.wait("bestmove"):
            words = line.split()
            if "score" in words:
                i = words.index("score")
                kind, value = words[i + 1], int(words[i + 2])
                score = value if kind == "cp" else (MATE_LABEL if value > 0 else -MATE_LABEL)
        return None if score is None else max(-MATE_LABEL, min(MATE_LABEL, score))

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=10)


def label_file(src: Path, dst: Path, teacher: UciTeacher, nodes: int) -> int:
    """Label the positions of src into dst (appending after those already there)."""
    done = len(dst.read_text().splitlines()) if dst.exists() else 0
    fens = src.read_text().splitlines()
    with dst.open("a") as out:
        for fen in fens[done:]:
            score = teacher.score(fen, nodes)
            out.write(f"{fen};{score if score is not None else 'none'}\n")
            out.flush()
    return len(fens) - done


# ---------------------------------------------------------------- fit
def sigmoid(cp: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-cp / SIGMOID_SCALE))


def load_labels(path: Path) -> tuple:
    """(FENs, teacher centipawns) of a labelled file (lines without a score are skipped)."""
    fens, scores = [], []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        fen, _, score = line.rpartition(";")
        if not fen or score == "none":
            continue
        try:
            scores.append(float(score))
        except ValueError:
            raise UsageError(f"{path}:{lineno}: bad score '{score}'")
        fens.append(fen)
    return fens, scores


def position_set(variant, fens: list, path: Path):
    from fairymax.evaluate import PositionSet
    try:
        return PositionSet(variant, fens)
    except ValueError as exc:
        raise UsageError(f"{path}: {exc}")


def mean_error(positions, targets: list) -> float:
    scores = positions.evaluate()
    return sum((t - sigmoid(s)) ** 2 for s, t in zip(scores, targets)) / max(len(targets), 1)


def fit_scale(positions, teacher_cp: list) -> float:
    """The factor K that best matches sigmoid(K * eval) to sigmoid(teacher): the teacher
    counts in its own centipawns, and the fit must not rescale every weight."""
    scores = positions.evaluate()
    teacher = [sigmoid(cp) for cp in teacher_cp]

    def error(k: float) -> float:
        return sum((t - sigmoid(k * s)) ** 2 for s, t in zip(scores, teacher)) / len(scores)
    low, high = 0.2, 5.0
    for _ in range(40):         # golden-section search; the error is unimodal in K
        a = high - (high - low) / 1.618
        b = low + (high - low) / 1.618
        if error(a) < error(b):
            high = b
        else:
            low = a
    return (low + high) / 2


def fit(variant, fens: list, teacher_cp: list, rounds: int, step: float, log,
        path: Path = Path("positions")) -> dict:
    """Gradient descent (Adam) on the weights, gradients by central differences; a tenth
    of the positions is held out."""
    from fairymax import evaluate
    weights = evaluate.get_weights(variant)
    names = list(weights)
    held = len(fens) // 10
    train_b, test_b = position_set(variant, fens[held:], path), position_set(variant, fens[:held], path)
    scale = fit_scale(train_b, teacher_cp[held:])
    log(f"teacher scale: sigmoid({scale:.3f} * eval) matches the teacher best")
    targets = [sigmoid(cp / scale) for cp in teacher_cp]
    train_t, test_t = targets[held:], targets[:held]
    m = {n: 0.0 for n in names}
    v = {n: 0.0 for n in names}
    exact = {n: float(weights[n]) for n in names}

    def error_with(changes: dict, positions, ts: list) -> float:
        evaluate.set_weights(variant, {**weights, **changes})
        return mean_error(positions, ts)

    log(f"start: train {error_with({}, train_b, train_t):.6f} held-out {error_with({}, test_b, test_t):.6f}")
    for rnd in range(1, rounds + 1):
        grads = {}
        for n in names:
            delta = max(1, abs(weights[n]) // 20)
            up = error_with({n: weights[n] + delta}, train_b, train_t)
            down = error_with({n: weights[n] - delta}, train_b, train_t)
            grads[n] = (up - down) / (2 * delta)
        for n in names:
            m[n] = 0.9 * m[n] + 0.1 * grads[n]
            v[n] = 0.999 * v[n] + 0.001 * grads[n] ** 2
            m_hat = m[n] / (1 - 0.9 ** rnd)
            v_hat = v[n] / (1 - 0.999 ** rnd)
            exact[n] -= step * m_hat / (math.sqrt(v_hat) + 1e-12)
            weights[n] = int(round(exact[n]))
        log(f"round {rnd}: train {error_with({}, train_b, train_t):.6f} "
            f"held-out {error_with({}, test_b, test_t):.6f}")
    evaluate.set_weights(variant, weights)
    return weights


# ---------------------------------------------------------------- command line
def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fairymax tune", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    pos = sub.add_parser("positions", help="self-play quiet positions to a file")
    pos.add_argument("out")
    pos.add_argument("--variant", default="normal")
    pos.add_argument("--ini")
    pos.add_argument("--openings", help="opening file (XBoard moves a line, # comments)")
    pos.add_argument("--games", type=int, default=100)
    pos.add_argument("--nodes", type=int, default=4000, help="search nodes a move")
    pos.add_argument("--seed", type=int, default=1)
    lab = sub.add_parser("label", help="score positions with a UCI teacher engine")
    lab.add_argument("positions")
    lab.add_argument("out")
    lab.add_argument("--engine", default="/usr/games/stockfish")
    lab.add_argument("--uci-variant", help="UCI_Variant for the teacher (Fairy-Stockfish)")
    lab.add_argument("--nodes", type=int, default=5000)
    fitp = sub.add_parser("fit", help="fit the evaluation weights to labelled positions")
    fitp.add_argument("labels")
    fitp.add_argument("--variant", default="normal")
    fitp.add_argument("--ini")
    fitp.add_argument("--rounds", type=int, default=40)
    fitp.add_argument("--step", type=float, default=2.0, help="Adam step, in weight units")
    fitp.add_argument("--out", help="weights file (default: the variant's in the package)")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except UsageError as exc:
        print(f"fairymax tune: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"fairymax tune: {exc}", file=sys.stderr)
        return 2


def read_openings(path: str) -> list:
    lines = Path(path).read_text().splitlines()
    return [line.split() for line in lines if line.strip() and not line.startswith("#")]


def run(args) -> int:
    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    if args.command == "positions":
        variant = load_variant(args.variant, args.ini)
        openings = read_openings(args.openings) if args.openings else []
        with open(args.out, "a") as out:
            count = self_play_positions(variant, openings, args.games, args.nodes, args.seed, out)
        log(f"{count} positions from {args.games} games -> {args.out}")
    elif args.command == "label":
        teacher = UciTeacher(args.engine, args.uci_variant)
        start = time.monotonic()
        count = label_file(Path(args.positions), Path(args.out), teacher, args.nodes)
        teacher.close()
        log(f"{count} positions labelled in {time.monotonic() - start:.0f} s -> {args.out}")
    else:
        variant = load_variant(args.variant, args.ini)
        path = Path(args.labels)
        if not path.is_file():
            raise UsageError(f"cannot read {path}")
        fens, teacher_cp = load_labels(path)
        if len(fens) < 100:
            raise UsageError(f"{path}: {len(fens)} labelled positions; at least 100 needed")
        weights = fit(variant, fens, teacher_cp, args.rounds, args.step, log, path)
        out = Path(args.out) if args.out else weights_path(args.variant)
        write_weights(out, weights, [
            f"evaluation weights for {args.variant}, fitted by: python -m fairymax tune fit "
            f"{path.name} --variant {args.variant} --rounds {args.rounds} --step {args.step}",
            f"{len(fens)} positions labelled by a teacher engine"])
        log(f"weights -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
