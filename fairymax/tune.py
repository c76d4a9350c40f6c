"""Evaluation tuning: `python -m fairymax tune positions|label|fit|line|margins ...`.

1. `positions`: fast self-play games (a few thousand nodes a move, from an opening
   file, a random move now and then for variety) write quiet positions, one FEN a
   line: not in check, not just after a capture, and the move chosen in them is no
   capture or promotion.
2. `label`: a stronger UCI engine scores each position (Stockfish for chess,
   Fairy-Stockfish with UCI_Variant for its variants) at a fixed node count, with the
   halfmove clock zeroed; lines become `FEN;centipawns for the side to move`.
   With --static the label is the teacher's static evaluation instead (its `eval`
   command): its positional judgement without the tactics its search resolves.
   Resumable: labelled lines are kept.
3. `fit`: the evaluation weights are fitted to the labels by minimising the mean of
   (sigmoid(teacher) - sigmoid(eval))^2, sigmoid(x) = 1 / (1 + 10^(-x / 400)), with
   Adam over the whole set; a held-out tenth reports the error the fit did not see.
   Labels may instead be game results for the side to move (`FEN;=1`, `=0.5`, `=0`, as
   scripts/game_positions.py --results writes them): then (result - sigmoid(k * eval))^2,
   k fitted first (Texel's method).
   First (--table-epochs) the materials and piece-square tables of both phases, which
   enter the evaluation linearly, with exact gradients (PsqModel, NumPy: the `tune`
   extra); then the other weights (evaluate.WEIGHT_NAMES but the margins and the
   search's selectivity, evaluate.SEARCH_WEIGHTS, which matches set; and the variant's per-type
   king_zone_X and mobility_X) with gradients by finite differences
   (evaluate.PositionSet scores every position in C).  The result is a weights file
   for the variant.
4. `line`: the same error for each of a few values of one weight, the others as they
   are: a cheap first look at a new term before a match decides (the labels' best need
   not be the games' best).
5. `margins`: the lazy evaluation's two margins (evaluate.MARGIN_WEIGHTS) are not
   fitted but measured: each is set near the 99th percentile of what its lazy exit
   would skip over a set of positions (FEN lines, labelled or not), and written into
   the variant's weights file.  `fit` measures them on its positions after fitting.

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
RESULT_MARK = "="           # a label `=1`, `=0.5`, `=0`: the game's result for the side to move
OPENING_PLY_MIN = 8         # positions before this ply are not written
RANDOM_MOVE_CHANCE = 0.08   # self-play variety
MAX_GAME_PLIES = 240
MARGIN_PERCENTILE = 99.0    # of the terms a lazy exit skips: the margin that covers them
MARGIN_ROUNDING = 10        # margins are written rounded up to this many centipawns
MARGINS_HEADER = "lazy margins measured by: python -m fairymax tune margins"


class UsageError(Exception):
    """Bad input: reported as one line, exit status 2."""


def weights_path(variant: str) -> Path:
    """The committed weights file of a variant (may not exist)."""
    return Path(__file__).resolve().parent / "weights" / f"{variant.replace('/', '_')}.txt"


def read_weights(path: Path) -> dict:
    """`name value` lines (# comments) -> {name: value}; a table is `name v1 v2 ...`, and
    may continue on following lines that hold numbers only."""
    weights = {}
    name = None
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split("#", 1)[0].split()
        if not parts:
            continue
        if not parts[0].lstrip("-").isdigit():
            name, parts = parts[0], parts[1:]
            weights[name] = []
        if name is None or not all(word.lstrip("-").isdigit() for word in parts):
            raise UsageError(f"{path}:{lineno}: expected 'name value', or a table's numbers")
        weights[name] += [int(word) for word in parts]
    for name, values in weights.items():
        if not values:
            raise UsageError(f"{path}: {name} has no value")
    return {name: values[0] if len(values) == 1 else values for name, values in weights.items()}


def write_weights(path: Path, weights: dict, header: list, row: int = 8) -> None:
    """The weights file: `name value` lines; a table's numbers `row` to a line below its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# {text}" for text in header]
    for name, value in weights.items():
        if isinstance(value, list):
            lines.append(name)
            lines += [" ".join(f"{v:5d}" for v in value[i:i + row]) for i in range(0, len(value), row)]
        else:
            lines.append(f"{name} {value}")
    path.write_text("\n".join(lines) + "\n")


def load_variant(name: str, ini: str | None):
    from fairymax import loader
    from fairymax.variant import Variant
    specs = loader.load_file(ini) if ini else loader.load_default()
    if name not in specs:
        raise UsageError(f"unknown variant {name}")
    return Variant(specs[name])


# ---------------------------------------------------------------- positions
def is_sample(board, move: int, last_was_capture: bool) -> bool:
    """Is the position before `move` one to label: quiet (the move is no capture or
    promotion, the one before it was no capture, no check) and past the opening?"""
    return (not (board.is_capture(move) or board.is_promotion(move)) and not last_was_capture
            and not board.in_check() and len(board.history) >= OPENING_PLY_MIN)


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
                if is_sample(board, move, last_was_capture):
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

    def read_line(self) -> str:
        line = self.proc.stdout.readline()
        if not line:
            raise UsageError("the teacher engine quit")
        return line.strip()

    def wait(self, word: str) -> list:
        lines = []
        while True:
            lines.append(self.read_line())
            if lines[-1].startswith(word):
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
        return None if score is None else clamped_label(score)

    def static_score(self, fen: str) -> int | None:
        """The teacher's static evaluation, in centipawns for the side to move: the
        `eval` command of the Stockfish family, whose last line gives it in pawns from
        White's side (Fairy-Stockfish 11: `Total evaluation: 0.27 (white side)`,
        Stockfish 15 and later: `Final evaluation       +0.25 (white side) ...`);
        None in check (`none (in check)`)."""
        self.send(f"position fen {fen}")
        self.send("eval")
        words: list = []
        while words[:1] not in (["Total"], ["Final"]) or words[1:2] != ["evaluation"]:
            words = self.read_line().replace(":", " ").split()
        try:
            white_cp = round(float(words[2]) * 100)
        except (IndexError, ValueError):
            return None
        return clamped_label(white_cp if fen.split()[1] == "w" else -white_cp)

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=10)


def clamped_label(cp: int) -> int:
    return max(-MATE_LABEL, min(MATE_LABEL, cp))


def without_halfmove_clock(fen: str) -> str:
    """The FEN with its halfmove clock zeroed.

    Teachers of the Stockfish family shrink their scores as the clock grows
    (measured: 496 cp at 0, 302 at 60, 93 at 120 in one ending), and our
    evaluation has no clock term, so a label must not depend on it."""
    fields = fen.split()
    if len(fields) >= 6 and fields[-2].isdigit():
        fields[-2] = "0"
    return " ".join(fields)


def label_file(src: Path, dst: Path, teacher: UciTeacher, nodes: int, static: bool = False) -> int:
    """Label the positions of src into dst (appending after those already there): by a
    search of `nodes`, or with `static` by the teacher's static evaluation."""
    done = len(dst.read_text().splitlines()) if dst.exists() else 0
    fens = src.read_text().splitlines()
    with dst.open("a") as out:
        for fen in fens[done:]:
            fen = without_halfmove_clock(fen)
            score = teacher.static_score(fen) if static else teacher.score(fen, nodes)
            out.write(f"{fen};{score if score is not None else 'none'}\n")
            out.flush()
    return len(fens) - done


# ---------------------------------------------------------------- fit
def sigmoid(cp: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-cp / SIGMOID_SCALE))


def load_labels(path: Path) -> tuple:
    """(FENs, labels) of a labelled file (lines without a score are skipped): teacher
    centipawns (floats), or game results for the side to move (RESULT_MARK then 1, 0.5
    or 0: ResultLabel)."""
    fens, scores = [], []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        fen, _, score = line.rpartition(";")
        if not fen or score == "none":
            continue
        try:
            if score.startswith(RESULT_MARK):
                scores.append(ResultLabel(score[len(RESULT_MARK):]))
            else:
                scores.append(float(score))
        except ValueError:
            raise UsageError(f"{path}:{lineno}: bad score '{score}'")
        fens.append(fen)
    return fens, scores


class ResultLabel(float):
    """A game's result for the side to move (1, 0.5 or 0), not a teacher's score."""

    def __new__(cls, text: str):
        value = float(text)
        if value not in (0.0, 0.5, 1.0):
            raise ValueError(text)
        return super().__new__(cls, value)


def label_scale(positions, labels: list) -> tuple:
    """(k, K): sigmoid(k * eval) is fitted to the labels' targets (label_targets).
    Teacher scores are rescaled by K (fit_scale), so that the weights keep the ini's
    scale (k = 1); game results are matched as they are, k the factor that best matches
    our evaluation to them (Texel's), K None."""
    if all(isinstance(label, ResultLabel) for label in labels):
        return fit_scale(positions, label_targets(labels, None)), None
    if any(isinstance(label, ResultLabel) for label in labels):
        raise UsageError("labels mix game results and teacher scores")
    return 1.0, fit_scale(positions, label_targets(labels, 1.0))


def label_targets(labels: list, teacher_scale) -> list:
    """The win chances the fit aims at: sigmoid(cp / K) of teacher scores, results as they are."""
    if teacher_scale is None:
        return [float(result) for result in labels]
    return [sigmoid(cp / teacher_scale) for cp in labels]


def describe_scale(k: float, teacher_scale) -> str:
    if teacher_scale is None:
        return f"game results: sigmoid({k:.3f} * eval) matches them best"
    return f"teacher scale: sigmoid({teacher_scale:.3f} * eval) matches the teacher best"


def position_set(variant, fens: list, source: str):
    """The positions packed for evaluation; a bad FEN is a UsageError naming `source`."""
    from fairymax.evaluate import PositionSet
    try:
        return PositionSet(variant, fens)
    except ValueError as exc:
        raise UsageError(f"{source}: {exc}")


def squared_error(scores: list, targets: list, k: float = 1.0) -> float:
    """The mean of (target - sigmoid(k * score))^2."""
    return sum((t - sigmoid(k * s)) ** 2 for s, t in zip(scores, targets)) / max(len(targets), 1)


def mean_error(positions, targets: list, k: float = 1.0) -> float:
    return squared_error(positions.evaluate(), targets, k)


def fit_scale(positions, targets: list) -> float:
    """The factor K that best matches sigmoid(K * eval) to the targets (win chances): a
    teacher counts in its own centipawns, and the fit must not rescale every weight."""
    scores = positions.evaluate()

    def error(k: float) -> float:
        return squared_error(scores, targets, k)
    low, high = 0.2, 5.0
    for _ in range(40):         # golden-section search; the error is unimodal in K
        a = high - (high - low) / 1.618
        b = low + (high - low) / 1.618
        if error(a) < error(b):
            high = b
        else:
            low = a
    return (low + high) / 2


class Adam:
    """Adam steps on a NumPy array of weights."""

    def __init__(self, step: float, beta1: float = 0.9, beta2: float = 0.999):
        self.step, self.beta1, self.beta2 = step, beta1, beta2
        self.m = self.v = 0.0
        self.rounds = 0

    def delta(self, grad):
        """The change to apply for this gradient."""
        self.rounds += 1
        self.m = self.beta1 * self.m + (1 - self.beta1) * grad
        self.v = self.beta2 * self.v + (1 - self.beta2) * grad * grad
        m_hat = self.m / (1 - self.beta1 ** self.rounds)
        v_hat = self.v / (1 - self.beta2 ** self.rounds)
        return -self.step * m_hat / (v_hat ** 0.5 + 1e-12)


class PsqModel:
    """The material and piece-square part of the evaluation as a linear model, for a
    fit by exact gradients: every type letter has a material value (non-royal types)
    and a table in each phase; a position's score is the rest of its evaluation, held
    fixed, plus its pieces' entries blended by its game phase.  (The rest is not quite
    fixed in the few pawnless endings that the drawish scale divides by 4.)

    A table is made of parameters: one per square (shape "full"), or one per rank plus
    one per file ("ranks-files": fewer to fit, so less noise); with `symmetric` a file
    and its mirror image across the middle file share theirs.  Shape "material" fits
    the materials alone: the tables stay as they are (data-derived where the variant
    has none fitted)."""

    SHAPES = ("full", "ranks-files", "material")

    def __init__(self, variant, positions, symmetric: bool = False, shape: str = "full"):
        import numpy as np
        from fairymax import evaluate
        self.np, self.variant = np, variant
        self.tables_fixed = shape == "material"
        weights, tables = evaluate.get_weights(variant), evaluate.psq_tables(variant)
        letters = evaluate.type_letters(variant)
        self.letters = list(dict.fromkeys(letters.values()))
        width, height = variant.spec.width, variant.spec.height
        rank, file = np.divmod(np.arange(width * height), width)
        if symmetric:
            file = np.minimum(file, width - 1 - file)
        # slots[square]: the parameters (within a letter's block) that add up to its entry
        if shape != "ranks-files":
            self.slots, self.block = (rank * width + file)[:, None], width * height
        else:
            self.slots, self.block = np.stack([rank, height + file], axis=1), height + width
        design = np.zeros((width * height, self.block))
        for column in self.slots.T:
            design[np.arange(width * height), column] = 1
        count = len(self.letters)
        self.count = count
        # parameters per phase: the tables (letter-major), the materials, a fixed 0
        self.params = np.zeros((2, count * self.block + count + 1))
        self.valued = {letter: False for letter in self.letters}
        for t, letter in letters.items():
            i = self.letters.index(letter)
            for k, phase in enumerate(evaluate.PHASES):
                table = np.asarray(tables[evaluate.table_name(variant, t, phase)], dtype=float)
                self.params[k, i * self.block:(i + 1) * self.block] = np.linalg.lstsq(design, table, rcond=None)[0]
                name = evaluate.material_name(variant, t, phase)
                if name in weights:
                    self.params[k, count * self.block + i] = weights[name]
                    self.valued[letter] = True
        phases, offsets, types, squares, signs = positions.psq_features()
        types, squares = np.asarray(types), np.asarray(squares)
        lookup = np.array([0] + [self.letters.index(letters[t]) for t in sorted(letters)])
        ids = lookup[types]
        fixed = self.params.shape[1] - 1
        on_board = squares >= 0
        self.indices = [np.where(on_board, ids * self.block + column[np.maximum(squares, 0)], fixed)
                        for column in self.slots.T]
        valued = np.array([self.valued[letter] for letter in self.letters])
        self.indices.append(np.where(valued[ids], count * self.block + ids, fixed))
        self.positions = len(positions)
        self.position = np.repeat(np.arange(len(positions)), np.diff(np.asarray(offsets)))
        self.mg_share = (np.asarray(phases) / 256.0)[self.position]
        self.signs = np.asarray(signs, dtype=float)
        self.rest = np.asarray(positions.evaluate(), dtype=float) - self.psq_scores(self.params)

    def psq_scores(self, params):
        """The pieces' part of each position's score (side to move's view)."""
        np = self.np
        values = sum(self.mg_share * params[0, index] + (1 - self.mg_share) * params[1, index]
                     for index in self.indices)
        return np.bincount(self.position, weights=self.signs * values, minlength=self.positions)

    def scores(self, params):
        return self.rest + self.psq_scores(params)

    def gradient(self, params, targets, k: float = 1.0):
        """The mean squared error of sigmoid(k * score) against targets, and its gradient."""
        np = self.np
        predicted = 1 / (1 + 10 ** (-k * self.scores(params) / SIGMOID_SCALE))
        error = predicted - targets
        d_score = 2 * error * predicted * (1 - predicted) * math.log(10) * k / SIGMOID_SCALE / len(targets)
        per_entry = d_score[self.position] * self.signs
        grad = np.zeros_like(params)
        for phase, share in enumerate((self.mg_share, 1 - self.mg_share)):
            for index in self.indices:
                grad[phase] += np.bincount(index, weights=per_entry * share, minlength=params.shape[1])
        grad[:, -1] = 0
        if self.tables_fixed:
            grad[:, :self.count * self.block] = 0
        return float(np.mean(error ** 2)), grad

    def weights(self, params) -> dict:
        """params as weights: materials and tables by name, rounded."""
        from fairymax import evaluate
        result = {}
        for i, letter in enumerate(self.letters):
            for k, phase in enumerate(evaluate.PHASES):
                if self.valued[letter]:
                    result[f"material_{phase}_{letter}"] = int(round(params[k, self.count * self.block + i]))
                if not self.tables_fixed:
                    table = params[k, i * self.block + self.slots].sum(axis=1)
                    result[f"psq_{phase}_{letter}"] = [int(round(v)) for v in table]
        return result


def fit_tables(variant, train, test, train_targets, test_targets, epochs: int, step: float,
               regularisation: float, symmetric: bool, shape: str, log, k: float = 1.0) -> dict:
    """Adam on the materials and tables (PsqModel) over the training positions, pulled
    toward their start values by regularisation x (change / 100 cp)^2 per parameter;
    returns the fitted weights, set for the variant."""
    import numpy as np
    from fairymax import evaluate
    model, held = PsqModel(variant, train, symmetric, shape), PsqModel(variant, test, symmetric, shape)
    train_targets, test_targets = np.asarray(train_targets), np.asarray(test_targets)
    params, adam = model.params.copy(), Adam(step)
    for epoch in range(1, epochs + 1):
        error, grad = model.gradient(params, train_targets, k)
        grad += 2 * regularisation * (params - model.params) / 100 ** 2
        params += adam.delta(grad)
        if epoch % 50 == 0 or epoch == epochs:
            log(f"tables epoch {epoch}: train {error:.7f} "
                f"held-out {held.gradient(params, test_targets, k)[0]:.7f}")
    weights = model.weights(params)
    evaluate.set_weights(variant, weights)
    return weights


def fit(variant, fens: list, teacher_cp: list, rounds: int, step: float, log,
        source: str = "positions", table_epochs: int = 0, table_step: float = 1.0,
        table_regularisation: float = 0.0, symmetric: bool = False, table_shape: str = "full") -> dict:
    """Fit the weights to the teacher's scores, a tenth of the positions held out: first
    the materials and piece-square tables (table_epochs rounds of fit_tables), then the
    other weights by Adam with gradients by central differences (rounds)."""
    import numpy as np
    from fairymax import evaluate
    held = len(fens) // 10
    train_b = position_set(variant, fens[held:], source)
    test_b = position_set(variant, fens[:held], source)
    k, teacher_scale = label_scale(train_b, teacher_cp[held:])
    log(describe_scale(k, teacher_scale))
    train_t = label_targets(teacher_cp[held:], teacher_scale)
    test_t = label_targets(teacher_cp[:held], teacher_scale)
    weights = evaluate.get_weights(variant)

    def error_with(changes: dict, positions, ts: list) -> float:
        evaluate.set_weights(variant, {**weights, **changes})
        return mean_error(positions, ts, k)

    log(f"start: train {error_with({}, train_b, train_t):.7f} held-out {error_with({}, test_b, test_t):.7f}")
    if table_epochs:
        weights.update(fit_tables(variant, train_b, test_b, train_t, test_t, table_epochs, table_step,
                                  table_regularisation, symmetric, table_shape, log, k))
        log(f"tables set: train {error_with({}, train_b, train_t):.7f} "
            f"held-out {error_with({}, test_b, test_t):.7f}")
    names = [n for n in evaluate.WEIGHT_NAMES if n not in evaluate.UNFITTED_WEIGHTS
             and not (n in evaluate.TABLE_DEFAULT_WEIGHTS and any(isinstance(v, list) for v in weights.values()))]
    names += evaluate.type_weight_names(variant)
    exact = np.array([float(weights[n]) for n in names])
    adam = Adam(step)
    for rnd in range(1, rounds + 1):
        grads = np.zeros(len(names))
        for i, n in enumerate(names):
            delta = max(1, abs(weights[n]) // 20)
            up = error_with({n: weights[n] + delta}, train_b, train_t)
            down = error_with({n: weights[n] - delta}, train_b, train_t)
            grads[i] = (up - down) / (2 * delta)
        exact += adam.delta(grads)
        for i, n in enumerate(names):
            weights[n] = int(round(exact[i]))
        log(f"round {rnd}: train {error_with({}, train_b, train_t):.7f} "
            f"held-out {error_with({}, test_b, test_t):.7f}")
    evaluate.set_weights(variant, weights)
    weights.update(measured_margins(variant, position_set(variant, fens, source)))
    evaluate.set_weights(variant, weights)
    return weights


def percentile(values: list, q: float) -> int:
    """The q-th percentile (nearest rank) of the values' magnitudes; 0 if there are none."""
    if not values:
        return 0
    ranked = sorted(abs(v) for v in values)
    return ranked[max(0, math.ceil(q / 100.0 * len(ranked)) - 1)]


def measured_margins(variant, positions, q: float = MARGIN_PERCENTILE) -> dict:
    """The lazy margins that cover the q-th percentile of what each lazy exit skips over
    the positions, with the variant's weights in use (a margin of 0 would make
    evaluate ignore those terms wherever the window allows, so each is at least
    MARGIN_ROUNDING)."""
    from fairymax import evaluate
    all_terms, piece_terms = positions.skipped_terms()
    measured = dict(zip(evaluate.MARGIN_WEIGHTS, (percentile(all_terms, q), percentile(piece_terms, q))))
    return {name: max(MARGIN_ROUNDING, -(-value // MARGIN_ROUNDING) * MARGIN_ROUNDING)
            for name, value in measured.items()}


def line_search(variant, fens: list, teacher_cp: list, name: str, values: list,
                source: str = "positions") -> tuple:
    """(how the labels are scaled, as describe_scale says it, [error for each value of
    weight `name`]), the other weights as they are; the scale is fitted once, at the
    weights in use."""
    from fairymax import evaluate
    weights = evaluate.get_weights(variant)
    if name not in weights or not isinstance(weights[name], int):
        raise UsageError(f"{name} is not a single weight of {variant.spec.name}")
    positions = position_set(variant, fens, source)
    k, teacher_scale = label_scale(positions, teacher_cp)
    targets = label_targets(teacher_cp, teacher_scale)
    errors = []
    try:
        for value in values:
            evaluate.set_weights(variant, {name: value})
            errors.append(mean_error(positions, targets, k))
    finally:
        evaluate.set_weights(variant, weights)
    return describe_scale(k, teacher_scale), errors


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
    lab.add_argument("--static", action="store_true",
                     help="the teacher's static evaluation (`eval`) instead of a search")
    fitp = sub.add_parser("fit", help="fit the evaluation weights to labelled positions")
    fitp.add_argument("labels", nargs="+", help="labelled position files")
    fitp.add_argument("--variant", default="normal")
    fitp.add_argument("--ini")
    fitp.add_argument("--rounds", type=int, default=40)
    fitp.add_argument("--step", type=float, default=2.0, help="Adam step, in weight units")
    fitp.add_argument("--table-epochs", type=int, default=0,
                      help="rounds of the exact fit of materials and piece-square tables, first")
    fitp.add_argument("--table-step", type=float, default=1.0, help="its Adam step, in centipawns")
    fitp.add_argument("--table-regularisation", type=float, default=0.0,
                      help="pull toward the start values: this x (change / 100 cp)^2 per parameter")
    fitp.add_argument("--table-shape", choices=PsqModel.SHAPES, default="full",
                      help="a parameter per square, one per rank plus one per file, or "
                           "the materials alone (tables unchanged)")
    fitp.add_argument("--symmetric", action="store_true",
                      help="tables the same on a square and its mirror image across the middle file")
    fitp.add_argument("--out", help="weights file (default: the variant's in the package)")
    linep = sub.add_parser("line", help="the labels' error at several values of one weight")
    linep.add_argument("labels", nargs="+", help="labelled position files")
    linep.add_argument("--variant", default="normal")
    linep.add_argument("--ini")
    linep.add_argument("--weight", required=True, help="the weight's name (evaluate.WEIGHT_NAMES, "
                       "material_X, mobility_X, king_zone_X)")
    linep.add_argument("--values", required=True, help="comma-separated values to try")
    marginp = sub.add_parser("margins", help="measure the lazy evaluation's margins into the weights file")
    marginp.add_argument("positions", nargs="+", help="position files: a FEN a line, labelled or not")
    marginp.add_argument("--variant", default="normal")
    marginp.add_argument("--ini")
    marginp.add_argument("--percentile", type=float, default=MARGIN_PERCENTILE,
                         help="of the terms each exit skips, that the margin covers")
    marginp.add_argument("--out", help="weights file to update (default: the variant's in the package)")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except UsageError as exc:
        print(f"fairymax tune: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"fairymax tune: {exc}", file=sys.stderr)
        return 2


def read_labelled(names: list) -> tuple:
    """(FENs, labels) of labelled files (load_labels), at least 100 positions."""
    fens, teacher_cp = [], []
    for path in map(Path, names):
        if not path.is_file():
            raise UsageError(f"cannot read {path}")
        more_fens, more_cp = load_labels(path)
        fens += more_fens
        teacher_cp += more_cp
    if len(fens) < 100:
        raise UsageError(f"{' '.join(names)}: {len(fens)} labelled positions; at least 100 needed")
    return fens, teacher_cp


def read_positions(names: list) -> list:
    """The FENs of position files (a FEN a line; `;score` and # lines ignored), at least 100."""
    fens = []
    for path in map(Path, names):
        if not path.is_file():
            raise UsageError(f"cannot read {path}")
        fens += [line.split(";")[0].strip() for line in path.read_text().splitlines()
                 if line.strip() and not line.startswith("#")]
    if len(fens) < 100:
        raise UsageError(f"{' '.join(names)}: {len(fens)} positions; at least 100 needed")
    return fens


def update_margins(path: Path, margins: dict, command: str, row: int) -> None:
    """Write the margins into a weights file, its other weights and header kept (a
    previous margins line of the header replaced)."""
    weights = read_weights(path) if path.is_file() else {}
    header = []
    if path.is_file():
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                break
            text = line[1:].strip()
            if not text.startswith(MARGINS_HEADER):
                header.append(text)
    write_weights(path, {**weights, **margins}, header + [command], row)


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
        count = label_file(Path(args.positions), Path(args.out), teacher, args.nodes, args.static)
        teacher.close()
        log(f"{count} positions labelled in {time.monotonic() - start:.0f} s -> {args.out}")
    elif args.command == "line":
        variant = load_variant(args.variant, args.ini)
        try:
            values = [int(value) for value in args.values.split(",")]
        except ValueError:
            raise UsageError(f"--values {args.values}: integers separated by commas, please")
        fens, teacher_cp = read_labelled(args.labels)
        scale, errors = line_search(variant, fens, teacher_cp, args.weight, values, " ".join(args.labels))
        print(f"{len(fens)} positions, {scale}")
        for value, error in zip(values, errors):
            print(f"{args.weight} {value}: {error:.7f}")
    elif args.command == "margins":
        if not 0 < args.percentile <= 100:
            raise UsageError(f"--percentile {args.percentile}: between 0 and 100, please")
        variant = load_variant(args.variant, args.ini)
        fens = read_positions(args.positions)
        margins = measured_margins(variant, position_set(variant, fens, " ".join(args.positions)),
                                   args.percentile)
        out = Path(args.out) if args.out else weights_path(args.variant)
        update_margins(out, margins, f"{MARGINS_HEADER} {' '.join(Path(name).name for name in args.positions)} "
                       f"--variant {args.variant} --percentile {args.percentile:g} "
                       f"({len(fens)} positions)", variant.spec.width)
        print(" ".join(f"{name} {value}" for name, value in margins.items()) + f" -> {out}")
    else:
        variant = load_variant(args.variant, args.ini)
        fens, teacher_cp = read_labelled(args.labels)
        weights = fit(variant, fens, teacher_cp, args.rounds, args.step, log, " ".join(args.labels),
                      args.table_epochs, args.table_step, args.table_regularisation, args.symmetric,
                      args.table_shape)
        out = Path(args.out) if args.out else weights_path(args.variant)
        write_weights(out, weights, [
            f"evaluation weights for {args.variant}, fitted by: python -m fairymax tune fit "
            f"{' '.join(Path(name).name for name in args.labels)} --variant {args.variant} "
            f"--table-epochs {args.table_epochs} --table-step {args.table_step} "
            f"--table-regularisation {args.table_regularisation} --table-shape {args.table_shape}"
            f"{' --symmetric' if args.symmetric else ''} "
            f"--rounds {args.rounds} --step {args.step}",
            f"{len(fens)} positions labelled by a teacher engine"], row=variant.spec.width)
        log(f"weights -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
