#!/usr/bin/env python3
"""How good are an engine's moves by a stronger engine's judgement, and how much does
more time per move help?

Positions are drawn from the games of a match PGN (scripts/match.py writes them) where
the player named by --player was to move and the position was still open.  The engine
picks a move in each with each of the given times per move (CECP `st`), and
Fairy-Stockfish scores every picked move and its own best at a fixed depth (UCI
`searchmoves`).  The loss of a move is the judge's best score less the move's score.

    python scripts/move_quality.py results/fsf_odds3_capablanca_zone_10+0.1.pgn \
        --variant capablanca --times 0.3,3 --positions 40

The judge's scores of two moves come from two searches, so even its own moves lose
something by this count: measure the teacher the same way (`--engine
uci:/usr/games/fairy-stockfish`) for the floor to compare with.  A
loss that falls with more time is the search's share.

Given several engines (`--engine A B`, a candidate's build beside the engine in use),
each moves in the same positions, and every engine after the first gets its mean loss
less the first one's at the same time, with the standard error of that difference over
the positions; with one engine, every time after the first is compared with the first.
"""
from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pyffish

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import match  # noqa: E402
import paired  # noqa: E402

JUDGE = "/usr/games/fairy-stockfish"
MATE_SCORE = 3000           # a mate, in the judge's centipawns


def games(path: Path) -> list[tuple[dict, list[str]]]:
    """(tags, coordinate moves) of each game in a PGN that scripts/match.py wrote."""
    return [(tags, [token for token in match.move_tokens(movetext) if not token.startswith("{")])
            for tags, movetext in match.split_pgn(path.read_text())]


class Judge:
    """Fairy-Stockfish over UCI, scoring moves at a fixed depth."""

    def __init__(self, variant: str, depth: int):
        self.depth = depth
        self.proc = subprocess.Popen([JUDGE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.send(f"uci\nsetoption name UCI_Variant value {variant}\n"
                  "setoption name Hash value 128\nisready")
        while self.proc.stdout.readline().strip() != "readyok":
            pass

    def send(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def score(self, fen: str, moves: list[str]) -> int:
        """The judge's score, for the side to move, of its best among `moves`."""
        self.send(f"position fen {fen}\ngo depth {self.depth} searchmoves {' '.join(moves)}")
        score = 0
        for line in self.proc.stdout:
            found = re.search(r"score (cp|mate) (-?\d+)", line)
            if found:
                value = int(found.group(2))
                score = value if found.group(1) == "cp" else (MATE_SCORE if value > 0 else -MATE_SCORE)
            if line.startswith("bestmove"):
                return score
        raise RuntimeError("the judge stopped")

    def close(self) -> None:
        self.proc.kill()


def engine_move(command: str, variant: str, fen: str, seconds: float) -> str:
    """The engine's move in `fen` given `seconds` (a fresh process: nothing carries over).
    A CECP engine is told `st` (fractional seconds, which our engine takes), a UCI one
    (command prefixed `uci:`, as in scripts/match.py) `go movetime`.  RuntimeError if
    the engine refuses the position or reports a fault (a line scripts/match.py counts as a
    CECP error: Fairy-Stockfish writes makruk FENs with its counting fields, which our
    engine does not take) or gives no move."""
    uci = command.startswith(match.UCI_PREFIX)
    proc = subprocess.Popen(command.removeprefix(match.UCI_PREFIX).split(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    if uci:
        proc.stdin.write(f"uci\nsetoption name UCI_Variant value {variant}\nposition fen {fen}\n"
                         f"go movetime {round(seconds * 1000)}\n")
    else:
        proc.stdin.write(f"xboard\nprotover 2\nnew\nvariant {variant}\nforce\nsetboard {fen}\n"
                         f"st {seconds}\ngo\n")
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            if line.startswith("bestmove " if uci else "move "):
                return line.split()[1]
            if not uci and match.CECP_ERROR_LINE.match(line):
                raise RuntimeError(f"{command} refused {fen}: {line.strip()}")
    finally:
        proc.kill()
    raise RuntimeError(f"{command} gave no move for {fen}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path)
    parser.add_argument("--variant", required=True)
    parser.add_argument("--engine", nargs="+", default=[f"python {ROOT / 'xboard.py'}"],
                        help="engine commands; each after the first is compared with the first")
    parser.add_argument("--player", default="fairymax", help="whose turns to sample (in White/Black)")
    parser.add_argument("--times", default="0.3,3", help="seconds per move, comma-separated")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--plies", default="10,44", help="the game plies to sample from")
    parser.add_argument("--max-eval", type=int, default=300, help="skip positions the judge puts beyond this")
    parser.add_argument("--depth", type=int, default=14, help="the judge's depth")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start-fen", help="the games' start where the PGN has no FEN and ours differs "
                        "from Fairy-Stockfish's (courier)")
    args = parser.parse_args()
    try:
        times = [float(t) for t in args.times.split(",")]
        first, last = (int(x) for x in args.plies.split(","))
        played = games(args.pgn)
    except (ValueError, OSError) as exc:
        print(f"move_quality: {exc}", file=sys.stderr)
        return 2

    start = args.start_fen or pyffish.start_fen(args.variant)
    candidates = []
    for headers, moves in played:
        ours_white = args.player in headers.get("White", "")
        fen = headers.get("FEN", start)
        white_first = fen.split()[1] == "w"
        for ply in range(first, min(last, len(moves))):
            if (ply % 2 == 0) == (ours_white == white_first):
                candidates.append(pyffish.get_fen(args.variant, fen, moves[:ply]))
    random.Random(args.seed).shuffle(candidates)

    runs = [(index, t) for index in range(len(args.engine)) for t in times]
    judge = Judge(args.variant, args.depth)
    losses: dict[tuple[int, float], list[int]] = {run: [] for run in runs}
    for fen in candidates:
        if len(losses[runs[0]]) == args.positions:
            break
        best = judge.score(fen, pyffish.legal_moves(args.variant, fen, []))
        if abs(best) > args.max_eval:
            continue
        try:
            picks = {run: engine_move(args.engine[run[0]], args.variant, fen, run[1]) for run in runs}
        except RuntimeError as exc:
            print(f"move_quality: position skipped: {exc}", file=sys.stderr)
            continue
        scores = {move: judge.score(fen, [move]) for move in set(picks.values())}
        for run in runs:
            losses[run].append(max(0, best - scores[picks[run]]))
        print(f"{fen}  best {best}  " + "  ".join(f"{label(run, args.engine)} {picks[run]} "
                                                   f"{scores[picks[run]]}" for run in runs),
              flush=True)
    judge.close()
    for run in runs:
        values = losses[run]
        print(f"{label(run, args.engine)} a move: {len(values)} positions, mean loss "
              f"{statistics.mean(values):.1f} cp, median {statistics.median(values)}, "
              f"losing > 50 cp: {sum(v > 50 for v in values)}")
    for run in runs[1:]:
        index, t = run
        reference = (0, t) if index else runs[0]
        print(f"{label(run, args.engine)} against {label(reference, args.engine)}: "
              f"{paired_difference(losses[run], losses[reference])}")
    return 0


def label(run: tuple[int, float], engines: list[str]) -> str:
    """'0.3 s', or 'engine 2 0.3 s' where several engines move."""
    index, seconds = run
    return f"{seconds} s" if len(engines) == 1 else f"engine {index + 1} {seconds} s"


def paired_difference(candidate: list[int], control: list[int]) -> str:
    """The candidate's mean loss less the control's over the same positions, with the
    standard error of that mean difference."""
    mean, error = paired.mean_and_error([ours - theirs for ours, theirs in zip(candidate, control)])
    return f"mean loss {mean:+.1f} cp, SE {error:.1f}"


if __name__ == "__main__":
    sys.exit(main())
