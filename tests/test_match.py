"""scripts/match.py as the strength rig: SPRT maths, PGN resume, openings, bad input, real games."""
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from enginepipe import ROOT, engine_command
from fairymax.board import Board

sys.path.insert(0, str(ROOT / "scripts"))
import match  # noqa: E402

STOCKFISH = "/usr/games/stockfish"
OURS = " ".join(engine_command())


def run_match(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "match.py"), *args],
                          capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------- statistics
def test_pentanomial_counts_and_pair_stats():
    assert match.pentanomial([0, 0.5, 1, 1, 1.5, 2, 2]) == [1, 1, 2, 1, 2]
    n, mean, var = match.penta_stats([1, 2, 3, 2, 1])
    # pair scores 0, 1/4, 1/2, 3/4, 1 around 1/2: (2 (1/2)^2 + 4 (1/4)^2) / 9
    assert (n, mean) == (9, 0.5) and var == pytest.approx((2 * 0.5 ** 2 + 4 * 0.25 ** 2) / 9)
    text = match.penta_summary([0, 1, 2, 1, 0])
    assert text.startswith("pairs 4: [0, 1, 2, 1, 0]  score 50.0%  Elo +0 [")


def test_llr_against_the_gsprt_formula_for_many_pairs():
    counts = [100, 400, 1000, 450, 120]
    # by hand: mean and variance of the pair score scaled to 0..1, then the GSPRT formula
    n = sum(counts)
    mean = (400 * 0.25 + 1000 * 0.5 + 450 * 0.75 + 120 * 1.0) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, (0, 0.25, 0.5, 0.75, 1.0))) / n
    s0, s1 = 0.5, 1 / (1 + 10 ** (-5 / 400))
    approx = 0.5 * n * (s1 - s0) * (2 * mean - s0 - s1) / var
    assert approx == pytest.approx(2.078, abs=0.001)
    assert match.sprt_llr(counts, 0, 5) == pytest.approx(approx, rel=0.005)
    assert match.sprt_llr(counts, 0, 5) == pytest.approx(2.075, abs=0.001)


def test_llr_small_samples_symmetry_and_bounds():
    # the exact GLR (checked against an independent implementation): a few lopsided
    # pairs stay far from the bound where the regularised approximation would pass it
    assert match.sprt_llr([0, 0, 0, 0, 1], 0, 300) == pytest.approx(0.530, abs=0.001)
    assert match.sprt_llr([0, 0, 0, 0, 2], 0, 5) == pytest.approx(0.029, abs=0.001)
    assert match.sprt_llr([0, 0, 0, 0, 0], 0, 5) == 0
    counts = [3, 11, 25, 14, 4]
    assert match.sprt_llr(counts, 0, 10) == pytest.approx(-match.sprt_llr(counts, 10, 0))
    assert match.sprt_llr([2, 5, 9, 5, 2], -10, 10) == pytest.approx(0, abs=1e-9)
    sprt = match.Sprt(0, 5)
    lower, upper = sprt.bounds()
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    assert upper == pytest.approx(2.944, abs=0.001)
    assert sprt.verdict(3.0) == "H1 accepted" and sprt.verdict(-3.0) == "H0 accepted"
    assert sprt.verdict(0.0) is None


def test_sprt_line_has_every_figure():
    results = match.Results()
    for round_number, score in enumerate([1, 0.5, 0, 0, 1, 1, 0.5], 1):
        results.add(round_number, score)
    assert results.pair_scores() == [1.5, 0, 2]
    assert results.pair_complete(6) and not results.pair_complete(7)
    line = match.sprt_line(results, match.Sprt(0, 10))
    assert re.fullmatch(r"pairs 3  \+3 -2 =2  penta \[1, 0, 0, 1, 1\]  score 58\.3%  Elo \+58\.5 "
                        r"\+- \d+\.\d  LLR [+-]\d\.\d\d \(-2\.94, \+2\.94\)", line), line


# ---------------------------------------------------------------- PGN resume
def record(round_number: int, result: str, book: list, tag: str = "", moves=()) -> str:
    settings = match.Settings(variant="normal")
    rec = match.GameRecord(round_number, "A", "B", result=result, reason="test",
                           moves=list(book) + list(moves), book=len(book), round_tag=tag)
    return match.pgn_text(rec, settings)


def test_resume_rebuilds_pairs_from_round_tags(tmp_path):
    book = ["e2e4", "e7e5", "g1f3", "b8c6"]
    other = ["d2d4", "d7d5"]
    pgn = tmp_path / "m.pgn"
    pgn.write_text(record(2, "1/2-1/2", book, moves=["f1b5"])   # pair 1 written out of order
                   + record(1, "1-0", book)
                   + record(4, "0-1", other)                   # pair 2 lacks round 3
                   + record(5, "*", other)                     # unfinished: not a result
                   + record(1, "0-1", book)                    # a second round 1 is ignored
                   + record(1, "1-0", other, tag="2.1")        # another opponent's round 1
                   + '[Event "cut off"]\n[Round "6"]\n')       # a truncated last record
    games = match.read_pgn(pgn)
    assert [(g.opponent, g.round, g.result) for g in games] == \
        [(1, 2, "1/2-1/2"), (1, 1, "1-0"), (1, 4, "0-1"), (2, 1, "1-0")]
    assert games[0].opening.moves == book and games[2].opening.moves == other
    results = match.Results()
    for game in games[:3]:
        results.add(game.round, match.score_of(game.result, game.round % 2 == 1))
    # round 1: engine 1 wins as White; round 2: a draw; round 4: engine 1 wins as Black
    assert results.pair_scores() == [1.5]
    assert results.games() == [1.0, 0.5, 1.0]
    opponents = [match.Opponent(1, "x"), match.Opponent(2, "y")]
    scheduler = match.Scheduler(opponents, 4, {1: {1, 2, 4}, 2: {1}})
    assert [scheduler.next_task()[1] for _ in range(4)] == [3, 2, 3, 4]
    assert scheduler.next_task() is None


def test_pgn_names_the_machine_it_was_played_on():
    """A score at fixed time odds moved with the session's machine: every game says its
    processor."""
    text = record(1, "1-0", ["e2e4"])
    tag = re.search(r'\[Machine "(.+), (\d+) cores"\]', text)
    assert tag and tag.group(1) and int(tag.group(2)) == os.cpu_count()
    cpuinfo = Path("/proc/cpuinfo")
    family = re.search(r"^cpu family\s*: (\d+)", cpuinfo.read_text(), re.M) if cpuinfo.exists() else None
    if family:      # chips of one model name differ: the family says which it was
        assert f"family {family.group(1)}" in tag.group(1)


# ---------------------------------------------------------------- openings, engines, input
def test_opening_file_lines_and_generated_balanced_openings():
    settings = match.Settings(variant="normal", opening_plies=4, seed=5, balanced=40,
                              balanced_depth=4)
    assert match.parse_opening(settings, "1. e2e4 e7e5 2. g1f3").moves == ["e2e4", "e7e5", "g1f3"]
    fen = match.parse_opening(settings, "8/8/8/8/8/8/4k3/K6R b - - bm Kd3;").fen
    assert fen == "8/8/8/8/8/8/4k3/K6R b - - 0 1"
    with pytest.raises(ValueError):
        match.parse_opening(settings, "e2e4 e2e4")
    moves = match.balanced_opening(settings, 0)
    assert len(moves) == 4 and abs(match.opening_score(settings, moves)) <= 40
    assert match.balanced_opening(settings, 0) == moves
    committed = match.load_openings(settings, str(ROOT / "scripts/openings/chess_balanced.txt"))
    assert len(committed) == 100 and all(len(o.moves) == 8 for o in committed)


def test_uci_ranks_and_engine_specs():
    assert match.to_uci("a9a10q", 12) == "a9a10q" and match.to_uci("e7e8q", 8) == "e7e8q"
    assert match.to_uci("b0c1", 10) == "b1c2" and match.to_uci("a8a9c", 10) == "a9a10c"
    assert match.from_uci("a9a10c", 10) == "a8a9c" and match.from_uci("e1g1", 8) == "e1g1"
    spec = match.parse_opponent("uci:/usr/games/fairy-stockfish @odds=3", 2, 1.0)
    assert (spec.command, spec.odds, spec.index) == ("uci:/usr/games/fairy-stockfish", 3.0, 2)
    assert match.parse_opponent("/usr/games/fairymax", 1, 2.0).odds == 2.0
    with pytest.raises(match.BadInput):
        match.parse_opponent("x@odds=0", 1, 1.0)
    half = match.TimeControl(10, 0.1).with_odds(2)
    assert (half.base, half.inc, half.pgn()) == (5, 0.05, "5+0.05")


@pytest.mark.parametrize("args, says", [
    (["--engine2", "/nonexistent/engine"], "cannot start engine '/nonexistent/engine'"),
    (["--variant", "no-such-variant"], "unknown variant no-such-variant"),
    (["--openings", "/nonexistent/openings.txt"], "cannot read openings file"),
])
def test_bad_input_exits_2_with_one_line(args, says, tmp_path):
    out = run_match(*args, "--pgn", str(tmp_path / "m.pgn"))
    assert out.returncode == 2
    assert len(out.stderr.splitlines()) == 1 and says in out.stderr, out.stderr


# ---------------------------------------------------------------- real games
def test_self_play_pair_with_sprt_and_resume(tmp_path):
    pgn = tmp_path / "self.pgn"
    common = ["--engine1", OURS, "--engine2", OURS, "--st", "0.03", "--max-plies", "16",
              "--opening-plies", "4", "--pgn", str(pgn), "--games", "2", "--sprt", "0,50"]
    out = run_match(*common, "--seed", "7")
    assert out.returncode == 0, out.stderr
    assert re.search(r"^pairs 1  \+\d+ -\d+ =\d+  penta \[.*\]  .* LLR [+-]\d\.\d\d "
                     r"\(-2\.94, \+2\.94\)$", out.stdout, re.M), out.stdout
    assert re.search(r"^games 2: .*\n^pairs 1: ", out.stdout, re.M)
    games = match.read_pgn(pgn)
    assert sorted(g.round for g in games) == [1, 2] and games[0].opening == games[1].opening
    # drop round 1: the resumed run replays it from round 2's recorded opening, not the seed's
    records = re.split(r"(?=^\[Event )", pgn.read_text(), flags=re.M)
    pgn.write_text("".join(r for r in records if '[Round "1"]' not in r))
    out = run_match(*common, "--seed", "8", "--resume")
    assert out.returncode == 0, out.stderr
    replayed = {g.round: g.opening for g in match.read_pgn(pgn)}
    assert sorted(replayed) == [1, 2] and replayed[1] == replayed[2]
    assert "game 1: " in out.stdout and "game 2: " not in out.stdout


@pytest.mark.skipif(not Path(STOCKFISH).exists(), reason="needs /usr/games/stockfish")
def test_game_against_uci_stockfish(tmp_path):
    pgn = tmp_path / "sf.pgn"
    out = run_match("--engine1", OURS, "--engine2", f"uci:{STOCKFISH}", "--st", "0.03",
                    "--games", "1", "--max-plies", "20", "--pgn", str(pgn))
    assert out.returncode == 0, out.stderr
    assert re.search(r"^game 1: fairymax .* - Stockfish", out.stdout, re.M), out.stdout
    termination = re.search(r'^\[Termination "([^"]*)"\]', pgn.read_text(), re.M).group(1)
    assert not re.search(r"illegal|false|crash|died|time|no move", termination, re.I), termination


@pytest.mark.parametrize("fen, dead", [
    ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", True),
    ("8/8/8/4k3/8/8/8/3NK3 w - - 0 1", True),
    ("8/8/8/4k3/8/4B3/8/2B1K3 w - - 0 1", True),        # both bishops on dark squares
    ("8/8/8/4k3/8/8/8/2BBK3 w - - 0 1", False),
    ("8/8/8/4kb2/8/8/8/2B1K3 w - - 0 1", False),        # opposite colours: a mate exists
    ("8/8/8/4k3/8/8/8/1NN1K3 w - - 0 1", False),
    ("8/8/8/4k3/8/8/8/3NK2P w - - 0 1", False),
])
def test_referee_ends_dead_chess_positions(fen, dead):
    board = Board.from_name("normal")
    board.set_fen(fen)
    assert match.insufficient_material(board, "normal") == dead
    assert not match.insufficient_material(board, "shatranj")
