"""scripts/xboard_sweep.py's checker on small synthetic XBoard PGNs and debug logs (no GUI).

Every fault kind must be found and blamed on the right engine: fairymax (XBoard's first
engine, and the second in self-play), the opponent (Fairy-Max) or XBoard.
"""
import sys
from pathlib import Path

from enginepipe import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import xboard_sweep as sweep  # noqa: E402


def spec(games, variant="capablanca", self_play=False, label=None):
    return sweep.MatchSpec(label=label or variant, variant=variant, games=games, tc="0:06", inc=0.1,
                           ponder=False, opponent="OPP", self_play=self_play, workdir=Path("unused"),
                           opponent_name=sweep.OUR_SECOND_NAME if self_play else sweep.FAIRYMAX_NAME)


def pgn_game(number, white, black, result, termination, variant="capablanca",
             moves="1. e4 {+0.11/10} e5 {+0.12/6 0.1} 2. Nf3 {+0.2/9} Nc6 {-0.1/7 0.2}"):
    tag = f'[Variant "{variant}"]\n' if variant else ""
    return (f'[Event "Computer Chess Game"]\n[Round "{number}"]\n[White "{white}"]\n[Black "{black}"]\n'
            f'[Result "{result}"]\n[TimeControl "6+0"]\n{tag}\n'
            f"{moves}\n{{{termination}}} {result}\n\n")


FM, FX = sweep.OUR_NAME, sweep.FAIRYMAX_NAME

PGN = (pgn_game(1, FM, FX, "1-0", "False illegal-move claim")
       + pgn_game(2, FX, FM, "1-0", "White wins on time")
       + pgn_game(3, FM, FX, "0-1", "Xboard: Forfeit due to illegal move: e1g1 (e1g1)", variant=None))

DEBUG = """\
StartChildProcess (dir=".") python3 xboard.py
10 >first : xboard
protover 2
20 <first : feature done=1
New game (1): fairymax-Fairy-Max (w)
30 >first : computer
30 >second: computer
31 <second: Error (unknown command): computer
40 <first : 5 20 10 1000 e2e4
41 <first : move c5c6n
42 >second: c5c6n
43 <second: Illegal move: c5c6n
GameEnds(26, False illegal-move claim, 4)
44 >first : result 1-0 {False illegal-move claim}
New game (2): fairymax-Fairy-Max (b)
50 >first : time 10
51 <first : Error (unknown command): frobnicate
52 <first : tellusererror pieces.ini:3: bad ray
53 <first : Traceback (most recent call last):
GameEnds(26, White wins on time, 4)
58 >first : result 1-0 {White wins on time}
New game (3): fairymax-Fairy-Max (w)
60 <first : move e1g1
GameEnds(27, Xboard: Forfeit due to illegal move: e1g1 (e1g1), 4)
New game (4): fairymax-Fairy-Max (b)
70 >second: ping 9
"""


def kinds(report, side):
    """(game, kind) of the faults blamed on `side`, match-level faults (game None) first."""
    found = [(f.game, f.kind) for f in report.faults if f.side == side]
    return sorted(found, key=lambda item: (item[0] or 0, item[1]))


def test_every_fault_kind_is_found_and_blamed():
    report = sweep.check_match(spec(4), sweep.MatchRun(124, "xboard: killed", PGN, DEBUG))
    assert (report.wins, report.losses, report.draws) == (1, 2, 0)
    assert kinds(report, "fairymax") == [(2, "Error line"), (2, "tellusererror"), (2, "time loss"),
                                         (2, "unexpected output"), (3, "illegal move")]
    # Fairy-Max's false claim, shown with its "Illegal move" line and not counted twice; the
    # match stopped in game 4 with its ping unanswered
    assert kinds(report, "opponent") == [(None, "missing games"), (1, "false illegal-move claim")]
    assert kinds(report, "xboard") == [(3, "Variant tag")]
    claim = next(f for f in report.faults if f.kind == "false illegal-move claim")
    assert any(line.startswith("-> 43 <second: Illegal move: c5c6n") for line in claim.context)
    assert any("41 <first : move c5c6n" in line for line in claim.context)
    assert "last moves: e4 e5 2. Nf3 Nc6 {False illegal-move claim} 1-0" in claim.context[-1]
    assert report.quirks == {"Error (unknown command): computer": 1}
    flag = next(f for f in report.faults if f.kind == "time loss")
    assert flag.detail == ("White wins on time (XBoard sent it `time 10` at 50 ms; no move from it "
                           "when XBoard sent `result` at 58 ms, 8 ms later)")
    assert flag.context[:2] == ["   New game (2): fairymax-Fairy-Max (b)", "-> 50 >first : time 10"]
    line = sweep.summary_line(report)
    assert "games 3/4" in line and "W-L-D 1-2-0" in line and "fairymax 5, opponent 2, xboard 1" in line


def test_claims_unfinished_exits_and_self_play():
    pgn = (pgn_game(1, FM, FX, "1-0", "False win claim: 'White mates'")
           + pgn_game(2, FX, FM, "0-1", "False draw claim: 'Draw by repetition'")
           + pgn_game(3, FM, FX, "*", "Game aborted")
           + pgn_game(4, FX, FM, "1-0",
                      "Error: second chess program (/usr/games/fairymax) exited unexpectedly"))
    report = sweep.check_match(spec(4), sweep.MatchRun(0, "", pgn, "New game (1): x\n"))
    assert kinds(report, "opponent") == [(1, "false win claim"), (2, "false draw claim"),
                                         (4, "engine exited")]
    assert kinds(report, "xboard") == [(3, "unfinished game")]
    assert kinds(report, "fairymax") == []
    # against itself both engines are fairymax: the second's faults are ours too
    pgn = pgn_game(1, FM, sweep.OUR_SECOND_NAME, "1-0", "Black wins on time", variant=None)
    debug = "New game (1): x\n1 <second: Error (unknown command): computer\n"
    report = sweep.check_match(spec(1, "normal", self_play=True), sweep.MatchRun(0, "", pgn, debug))
    assert kinds(report, "fairymax") == [(1, "Error line"), (1, "time loss")]
    assert report.faults[0].who == f"{sweep.OUR_NAME} (second)" and report.wins == 1


def test_clean_match_and_variant_tags():
    clean = pgn_game(1, FM, FX, "1-0", "Xboard adjudication: Checkmate", variant="fairy")
    debug = ("New game (1): x\n"
             "1 <first : setup (PN.RQKpn.rqk) 8x8+0_fairy rnbqkbnr/8 w KQkq - 0 1\n"
             "1 <second: setup (PN.RQKpn.rqk) rnbqkbnr/8 w KQkq - 0 1\n"
             "2 <second: Error (unknown command): result\n")
    report = sweep.check_match(spec(1, "fairy", label="fairy:FIDE-Nutters"),
                               sweep.MatchRun(0, "xboard: Match fairymax vs. Fairy-Max: final score 1-0-0\n",
                                              clean, debug))
    assert report.faults == [] and report.wins == 1
    assert all("start positions" not in note for note in report.notes)
    assert spec(1, "normal").expected_tag is None
    tagged = pgn_game(1, FM, FX, "1-0", "White mates", variant="normal")
    assert kinds(sweep.check_match(spec(1, "normal"), sweep.MatchRun(0, "", tagged, "")), "xboard") \
        == [(1, "Variant tag")]


def test_features_and_fairy_army_options():
    ours = sweep.parse_features(
        'feature myname="fairymax 0.1.0"\nfeature variants="normal,fairy"\n'
        'feature option="VariantFairySelects -combo *fairy/FIDE-Clobberers /// fairy/FIDE-Nutters"\n')
    theirs = sweep.parse_features(
        'feature option="Variant fairy selects -combo FIDE-Clobberers /// FIDE-Nutters"\n')
    assert ours.name == "fairymax 0.1.0" and ours.variants == ["normal", "fairy"]
    assert sweep.army_option(ours, "FIDE-Nutters") == "VariantFairySelects=fairy/FIDE-Nutters"
    assert sweep.army_option(theirs, "FIDE-Nutters") == "Variant fairy selects=FIDE-Nutters"
    assert sweep.army_option(theirs, "Nutters-Rookies") is None


def test_draw_adjudicated_after_a_mate_score_is_noted():
    # courier: fairymax scores the stalemating move as a mate (stalemate loses in its rules),
    # XBoard adjudicates the stalemate as a draw: a rule mismatch, noted but not a fault
    pgn = pgn_game(1, FM, FX, "1/2-1/2", "Xboard adjudication: Stalemate", variant="courier")
    debug = ("New game (1): x\n5 <first : 9 100001 0 3984 9 1328000 0\tf3e2\n5 <first : move f3e2\n"
             "6 <second: 12 -50 3 1000 c7c6\n6 <second: move c7c6\n")
    report = sweep.check_match(spec(1, "courier"), sweep.MatchRun(0, "", pgn, debug))
    assert report.faults == [] and report.notes == []      # the last move, Fairy-Max's, scored -50
    debug = debug.replace("6 <second: move c7c6\n", "")
    report = sweep.check_match(spec(1, "courier"), sweep.MatchRun(0, "", pgn, debug))
    assert report.notes == ["game 1 {Xboard adjudication: Stalemate} after fairymax's `move f3e2` "
                            "scored as a mate: `9 100001 0 3984 9 1328000 0 f3e2`"]


def test_king_of_the_hill_win_claims_that_xboard_cannot_judge():
    # Fairy-Max's King reaches d4 and it claims the win: right, but XBoard (king-of-the-hill
    # is engine-defined for it) scores a false claim.  The fault is XBoard's, not Fairy-Max's.
    hill = pgn_game(1, FX, FM, "0-1", "False win claim: 'White mates'", variant="king-of-the-hill",
                    moves="47. Bxa1 a3 48. Kd4")
    debug = ("New game (1): x\n9 <second: move e3d4\n9 <second: 1-0 {White mates}\n"
             "GameEnds(26, White mates, 6)\n")
    report = sweep.check_match(spec(1, "king-of-the-hill"), sweep.MatchRun(0, "", hill, debug))
    assert kinds(report, "xboard") == [(1, "false win claim")] and kinds(report, "opponent") == []
    assert "the claim of Fairy-Max is right" in report.faults[0].detail
    assert report.faults[0].context[1].endswith("9 <second: move e3d4")
    assert report.faults[0].context[2] == "-> 9 <second: 1-0 {White mates}"
    # a claim after some other move stays Fairy-Max's false claim
    other = hill.replace("48. Kd4", "48. Kc4")
    report = sweep.check_match(spec(1, "king-of-the-hill"), sweep.MatchRun(0, "", other, debug))
    assert kinds(report, "opponent") == [(1, "false win claim")]
