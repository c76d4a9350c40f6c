"""Time management: parsing of CECP time commands and budgets that never flag."""
import random

import pytest

from fairymax.timeman import (SCORE_DROP_MAX_FACTOR, STABILITY_FACTORS, Limits, SoftLimitScale,
                              TimeManager, parse_base_ms, parse_level)


@pytest.mark.parametrize("text, want", [
    ("40 5 0", (40, 300000, 0)),
    ("40 0:30 0", (40, 30000, 0)),
    ("0 2 12", (0, 120000, 12000)),
    ("0 2:30 12", (0, 150000, 12000)),
    ("0 0:05 0.1", (0, 5000, 100)),
    ("0 0:00 0", (0, 0, 0)),
    ("0 25+5 0", (0, 1500000, 0)),        # future session syntax: junk after BASE ignored
    ("-5 -1 -2", (0, 0, 0)),
    ("0 1.5 0", (0, 90000, 0)),
])
def test_parse_level(text, want):
    mps, base, inc = parse_level(text)
    assert (mps, round(base), round(inc)) == want


@pytest.mark.parametrize("bad", ["", "40", "40 5", "a b c", "1 x 0"])
def test_parse_level_errors(bad):
    with pytest.raises(ValueError):
        parse_level(bad)


def test_parse_base():
    assert parse_base_ms("1:00") == 60000
    assert parse_base_ms(":30") == 30000


def test_untimed_with_depth_is_unlimited():
    tm = TimeManager()
    tm.sd("7")
    lim = tm.allot()
    assert lim.depth == 7 and lim.hard_ms is None and lim.soft_ms is None


def test_untimed_without_anything_has_a_default():
    lim = TimeManager().allot()
    assert 0 < lim.soft_ms <= lim.hard_ms


def test_st_is_hard_limit_minus_overhead():
    tm = TimeManager(overhead_ms=50)
    tm.st("0.3")
    lim = tm.allot()
    assert lim.hard_ms == pytest.approx(250)
    assert lim.soft_ms is None              # unused time is lost: the search uses it all
    for text in ("0.01", "0", "-3"):
        tm.st(text)
        lim = tm.allot()
        assert 0 < lim.hard_ms <= max(float(text) * 1000, 1.0) or lim.hard_ms <= 20


def test_nps_turns_time_into_nodes():
    tm = TimeManager()
    tm.set_nps("1")
    tm.st("500")                            # python-chess's node limit
    assert tm.allot().nodes == 500 and tm.allot().hard_ms is None
    tm.level("0 1 0")
    tm.set_nps("10000")
    tm.time("6000")
    lim = tm.allot()
    assert lim.hard_ms is None and 0 < lim.soft_nodes <= lim.nodes <= 60 * 10000
    tm.set_nps("0")
    assert tm.nps is None


def test_new_game_clears_depth_and_nps():
    tm = TimeManager()
    tm.sd("3")
    tm.set_nps("100")
    tm.new_game()
    assert tm.depth is None and tm.nps is None


def test_repeating_session_moves_to_go():
    tm = TimeManager()
    tm.level("40 5 0")
    assert tm.moves_to_go() == 40
    for _ in range(39):
        tm.record_move(1000)
    assert tm.moves_to_go() == 1
    lim = tm.allot()
    assert lim.hard_ms < tm.clock_ms                    # last move before the control
    tm.record_move(1000)
    assert tm.moves_to_go() == 40
    assert tm.clock_ms == pytest.approx(300000 - 40000 + 300000)


def simulate(tm: TimeManager, moves: int, latency_ms: float) -> float:
    """Play moves using the whole hard limit each time (the worst case) plus a GUI/pipe
    latency per move; return the lowest clock seen before an increment was added."""
    lowest = tm.clock_ms
    for _ in range(moves):
        lim = tm.allot()
        used = lim.hard_ms + latency_ms
        lowest = min(lowest, tm.clock_ms - used)
        tm.record_move(used)
    return lowest


@pytest.mark.parametrize("level, moves", [
    ("0 0:10 0.1", 200), ("0 0:01 1", 200), ("0 0:00.5 0.05", 200), ("0 0:03 0.02", 200),
    ("40 0:20 0", 200), ("5 0:02 0", 200), ("0 1 0", 80), ("0 0:10 0", 60)])
def test_never_flags_even_using_every_hard_limit(level, moves):
    tm = TimeManager(overhead_ms=50)
    tm.level(level)
    assert simulate(tm, moves, latency_ms=10) > 0


@pytest.mark.parametrize("factor", [1.0, STABILITY_FACTORS[0] * SCORE_DROP_MAX_FACTOR])
@pytest.mark.parametrize("level", ["0 1 0", "0 0:10 0", "0 0:05 0"])
def test_sudden_death_typical_usage_lasts_150_moves(level, factor):
    """Even a search stretched by the largest soft-limit factor on every move."""
    tm = TimeManager(overhead_ms=50)
    tm.level(level)
    lowest = tm.clock_ms
    for _ in range(150):
        lim = tm.allot()
        used = min(lim.soft_ms * factor * 1.5, lim.hard_ms) + 5
        lowest = min(lowest, tm.clock_ms - used)
        tm.record_move(used)
    assert lowest > 0


def test_budget_is_reasonable_for_10s_plus_01():
    tm = TimeManager()
    tm.level("0 0:10 0.1")
    lim = tm.allot()
    assert 150 < lim.soft_ms < 500 and lim.soft_ms < lim.hard_ms < 2000


def test_absurd_clocks_give_tiny_positive_limits():
    tm = TimeManager()
    tm.level("0 0:00 0")
    for centis in ("0", "-50", "1", "3"):
        tm.time(centis)
        lim = tm.allot()
        assert lim.soft_ms == 0 and 0 < lim.hard_ms <= 10


def test_random_inputs_never_raise():
    rng = random.Random(5)
    tm = TimeManager()
    for _ in range(3000):
        cmd = rng.choice(["level", "st", "sd", "nps", "time", "otim"])
        arg = " ".join(rng.choice(["0", "-1", "1e9", "0:00", "3:7", "abc", "0.001", "40", "", ":"])
                       for _ in range(rng.randint(0, 3)))
        try:
            getattr(tm, {"nps": "set_nps"}.get(cmd, cmd))(arg)
        except ValueError:
            pass
        lim = tm.allot()
        assert lim.hard_ms is None or lim.hard_ms > 0
        assert lim.nodes is None or lim.nodes >= 1


def test_uci_go_limits():
    tm = TimeManager(overhead_ms=50)
    assert tm.for_go() == Limits()                          # no limit: until `stop`
    assert tm.for_go(depth=5, nodes=1000) == Limits(depth=5, nodes=1000)
    lim = tm.for_go(move_time_ms=300)
    assert lim.hard_ms == pytest.approx(250) and lim.soft_ms is None     # all of it is used
    lim = tm.for_go(clock_ms=10000, inc_ms=100)
    assert 150 < lim.soft_ms < 500 and lim.soft_ms < lim.hard_ms < 2000   # as level 0 0:10 0.1
    last = tm.for_go(clock_ms=10000, moves_to_go=1)
    assert lim.hard_ms < last.hard_ms < 10000                # the last move before the control
    assert 0 < tm.for_go(clock_ms=-100).hard_ms <= 10


def test_soft_limit_scale_follows_the_search():
    scale = SoftLimitScale()
    scale.update(11, 20, True)
    changed = scale.factor()
    for _ in range(8):
        scale.update(11, 20, True)
    settled = scale.factor()
    assert settled < 1.0 < changed
    scale.update(22, 20, False)             # a new best move inside an iteration
    assert scale.factor() == changed
    scale.update(22, 20, True)
    scale.update(22, -60, True)             # the score falls 80 cp
    assert scale.factor() > STABILITY_FACTORS[1]
    scale.update(22, -60, True)
    scale.update(22, -100000, True)         # being mated: no stretch for the drop
    assert scale.factor() == STABILITY_FACTORS[4]


def test_a_search_job_stops_by_the_scaled_soft_limit():
    from fairymax.board import Board
    from fairymax.session import SearchJob
    job = SearchJob("think", Board.from_name("normal"), Limits(soft_ms=100.0, hard_ms=1000.0))
    job.start -= 0.150                      # 150 ms spent
    job.scale.update(11, 20, True)          # a new best move: 1.8 x 100 ms
    assert not job.soft_limit_reached(None)
    for _ in range(5):
        job.scale.update(11, 20, True)      # held: 0.75 x 100 ms
    assert job.soft_limit_reached(None)
