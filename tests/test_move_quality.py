"""scripts/move_quality.py: how a candidate's moves compare with the engine in use's."""
import sys

from enginepipe import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import move_quality  # noqa: E402


def test_a_candidate_is_compared_position_by_position():
    # losses 10, 0, 50 against 0, 0, 20: differences 10, 0, 30, mean 13.3, standard
    # deviation 15.3, standard error 15.3 / sqrt(3) = 8.8
    assert move_quality.paired_difference([10, 0, 50], [0, 0, 20]) == "mean loss +13.3 cp, SE 8.8"


def test_runs_are_named_by_engine_only_where_there_are_several():
    assert move_quality.label((0, 0.3), ["ours"]) == "0.3 s"
    assert move_quality.label((1, 0.1), ["ours", "candidate"]) == "engine 2 0.1 s"


def test_a_refused_position_raises_instead_of_waiting_for_a_move():
    # Fairy-Stockfish's counting fields (limit 128, count 18 in place of the e.p. field
    # and the half-move clock) in chess, which has no counting: our engine refuses
    # the FEN with tellusererror
    counting_fen = "8/8/8/k7/8/8/8/K7 b - 128 18 74"
    engine = f"{sys.executable} {ROOT / 'xboard.py'}"
    try:
        move_quality.engine_move(engine, "normal", counting_fen, 0.1)
    except RuntimeError as exc:
        assert "bad FEN fields" in str(exc)
    else:
        raise AssertionError("a refused position gave a move")
