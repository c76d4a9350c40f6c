"""The reliability harness: match.py's forfeit kinds, incidents, UCI pondering against a
scripted engine, set-up FENs, scripts/reliability.py's counting, and one short real
ponder run from a set-up position."""
import ast
import re
import subprocess
import sys
import time

import pytest

from enginepipe import ROOT, engine_command

sys.path.insert(0, str(ROOT / "scripts"))
import fake_uci  # noqa: E402
import match  # noqa: E402
import reliability  # noqa: E402
from fairymax.board import Board  # noqa: E402

OURS = " ".join(engine_command())
FAKE = f"{sys.executable} {ROOT / 'tests' / 'fake_uci.py'}"


# ---------------------------------------------------------------- forfeit kinds
def forfeit_texts() -> list:
    """Every text match.py gives Forfeit(...) or loss(side, ...): f-string fields as "x"."""
    tree = ast.parse((ROOT / "scripts" / "match.py").read_text())
    texts = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        args = node.args if node.func.id == "Forfeit" else \
            node.args[1:] if node.func.id == "loss" else []
        for arg in args[:1]:
            if isinstance(arg, ast.Constant):
                texts.append(arg.value)
            elif isinstance(arg, ast.JoinedStr):
                texts.append("".join(part.value if isinstance(part, ast.Constant) else "x"
                                     for part in arg.values))
    return texts


def test_every_forfeit_the_runner_writes_has_a_kind():
    texts = forfeit_texts()
    assert len(texts) >= 10, texts
    for text in texts:
        assert match.termination_kind(f"White {text}") not in ("rule", "other forfeit"), text
    assert {match.termination_kind(f"Black {t}") for t in texts} >= \
        {"time", "no answer", "illegal move", "false claim", "crash", "resignation"}


@pytest.mark.parametrize("termination, kind", [
    ("White mates", "rule"), ("Black is stalemated", "rule"), ("Stalemate", "rule"),
    ("White reaches the hill", "rule"), ("Black has a bare king", "rule"),
    ("Bare kings", "rule"), ("Draw by repetition", "rule"), ("Insufficient material", "rule"),
    ("Max length adjudication", "rule"),
    ("White loses on time", "time"), ("Black loses on time (no move)", "no answer"),
    ("White plays no move: bestmove (none)", "no answer"),
    ("Black bestmove while pondering: bestmove e2e4", "no answer"),
    ("White no bestmove after stop within 5 s", "no answer"),
    ("Black illegal move e2e5", "illegal move"),
    ("White false illegal-move claim: Illegal move: e7e5", "false claim"),
    ("Black false claim: 1-0 {White mates}", "false claim"),
    ("White crashed", "crash"), ("Black died", "crash"),
    ("White resigns", "resignation"), ("Black resigns (Black mates)", "resignation"),
    ("White does something new", "other forfeit"),
])
def test_termination_kind(termination, kind):
    assert match.termination_kind(termination) == kind
    assert (kind in match.NOT_FAULTS) == (kind in ("rule", "resignation"))


def test_incident_text_groups_stderr_and_stays_a_tag_value():
    text = match.incident_text(["engine2 stderr: Traceback (most recent call last):",
                                'engine1 said: Error (unknown command): "x"',
                                "engine2 stderr:   File a\\b.py",
                                "engine2 stderr: ValueError: bad",
                                "engine2 exited (signal 11); restarted"])
    assert text == ("engine1 said: Error (unknown command): 'x' | engine2 exited (signal 11); "
                    "restarted | engine2 stderr (3 lines): Traceback (most recent call last): "
                    "... ValueError: bad")
    long = match.incident_text([f"engine1 said: Error {i}" for i in range(200)])
    assert len(long) == match.MAX_INCIDENT_TEXT and long.endswith("...")


@pytest.mark.parametrize("pattern, line, incident", [
    (match.CECP_ERROR_LINE, "Error (unknown command): frob", True),
    (match.CECP_ERROR_LINE, "# search error: Traceback (most recent call last):", True),
    (match.CECP_ERROR_LINE, "# internal error on 'go': Traceback", True),
    (match.CECP_ERROR_LINE, "# Traceback (most recent call last):", True),
    (match.CECP_ERROR_LINE, "Illegal move: e2e5", False),       # a forfeit, not an incident
    (match.CECP_ERROR_LINE, "# book hit", False),
    (match.UCI_ERROR_LINE, "info string illegal move e2e5", True),
    (match.UCI_ERROR_LINE, "info string search error: Traceback", True),
    (match.UCI_ERROR_LINE, "info string unknown command: frob", True),
    (match.UCI_ERROR_LINE, "info string variant chess files 8 ranks 8", False),
    (match.UCI_ERROR_LINE, "info depth 3 score cp 20 pv e2e4", False),
])
def test_error_lines(pattern, line, incident):
    assert bool(pattern.match(line)) == incident


def test_uci_fen_counts_ranks_from_one_on_ten_rank_boards():
    fen = "rnabqkbanr/pppppppppp/10/10/10/10/P9/10/1PPPPPPPPP/RNABQKBANR b KQkq a2 0 1"
    assert match.uci_fen(fen, 10).endswith(" b KQkq a3 0 1")
    assert match.uci_fen(fen, 10).split()[0] == fen.split()[0]
    chess = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert match.uci_fen(chess, 8) == chess


# ---------------------------------------------------------------- UCI pondering
def start_fake(mode: str, sent: list):
    def log(text: str) -> None:
        if text.startswith("engine2< "):
            sent.append(text[9:])
    engine = match.make_engine(f"uci:{FAKE} {mode}", "engine2", log=log, ponder=True)
    setup = match.GameSetup("normal", "", False, 8, [])
    engine.start_game(setup, match.TimeControl(1, 0.1))
    return engine


CLOCKS = [1.0, 1.0]
CONTROLS = [match.TimeControl(1, 0.1)] * 2


def expected(moves: list) -> tuple:
    """The scripted engine's (move, ponder move) after `moves`."""
    board = Board.from_name("normal")
    for text in moves:
        board.push(board.parse_move(text))
    return fake_uci.choice(board)


def test_uci_ponder_hit_and_miss_against_a_scripted_engine():
    sent = []
    engine = start_fake("normal", sent)
    go = "wtime 1000 btime 1000 winc 100 binc 100"
    try:
        assert "setoption name Ponder value true" in sent
        del sent[:]
        engine.go([], 0, CLOCKS, CONTROLS)
        move = engine.wait_move(time.monotonic() + 5)
        guess = engine.take_guess()
        assert (move, guess) == expected([]) == ("a2a3", "a7a5")
        assert engine.take_guess() is None              # taken once
        game = [move, guess]
        engine.start_ponder(game, 0, CLOCKS, CONTROLS)
        engine.go(game, 0, CLOCKS, CONTROLS)            # the move it expected: a hit
        move = engine.wait_move(time.monotonic() + 5)
        assert (move, engine.take_guess()) == expected(game)
        assert sent == ["position startpos", f"go {go}",
                        "position startpos moves a2a3 a7a5", f"go ponder {go}", "ponderhit"]
        # a miss: stop, its bestmove dropped, then the real position and go
        game.append(move)
        engine.start_ponder(game + [expected(game)[0]], 0, CLOCKS, CONTROLS)
        del sent[:]
        engine.go(game + ["h7h6"], 0, CLOCKS, CONTROLS)
        assert engine.wait_move(time.monotonic() + 5) == expected(game + ["h7h6"])[0]
        assert sent == ["stop", "position startpos moves " + " ".join(game + ["h7h6"]),
                        f"go {go}"]
        # the game ends while it ponders: stop, then isready answered
        engine.start_ponder(game + ["h7h6", "h2h3"], 0, CLOCKS, CONTROLS)
        del sent[:]
        engine.end_game("1/2-1/2", "test")
        assert sent == ["stop", "isready"] and engine.pondered is None
        assert engine.take_incidents() == []
    finally:
        engine.close()


@pytest.mark.parametrize("mode, says", [
    ("early", "bestmove while pondering"),
    ("deaf", "no bestmove after stop"),
])
def test_uci_ponder_protocol_faults_are_forfeits(mode, says, monkeypatch):
    monkeypatch.setattr(match, "STOP_WAIT_S", 0.5)
    sent = []
    engine = start_fake(mode, sent)
    try:
        engine.go([], 0, CLOCKS, CONTROLS)
        move = engine.wait_move(time.monotonic() + 5)
        engine.start_ponder([move, engine.take_guess()], 0, CLOCKS, CONTROLS)
        time.sleep(0.3)
        with pytest.raises(match.Forfeit, match=says) as forfeit:
            engine.go([move, "h7h6"], 0, CLOCKS, CONTROLS)
        assert match.termination_kind(f"White {forfeit.value}") == "no answer"
    finally:
        engine.close()


def test_illegal_ponder_move_is_an_incident_and_not_pondered_on():
    sent = []

    def log(text):
        sent.append(text)
    engines = [match.make_engine(f"uci:{FAKE} badponder", f"engine{i}", log=log, ponder=True)
               for i in (1, 2)]
    try:
        settings = match.Settings(variant="normal", base=5, inc=0.1, max_plies=4)
        rec = match.GameRecord(1, "a", "b")
        match.play_game(engines, rec, settings, match.Opening([]), [settings.control()] * 2)
        assert rec.reason == "Max length adjudication" and len(rec.moves) == 4
        assert rec.incidents == ["engine1 ponders on an illegal move a1a1",
                                 "engine2 ponders on an illegal move a1a1",
                                 "engine1 ponders on an illegal move a1a1"]
        assert not any("go ponder" in line for line in sent)
    finally:
        for engine in engines:
            engine.close()


@pytest.mark.parametrize("grace, reason, incident", [
    (0.0, "White loses on time", None),
    (0.5, "Max length adjudication",
     r"engine1 overstepped its clock by \d+ ms \(within the grace\)"),
])
def test_a_clock_overstep_within_the_grace_is_an_incident(grace, reason, incident):
    engines = [match.make_engine(f"uci:{FAKE} slow", "engine1"),
               match.make_engine(f"uci:{FAKE} normal", "engine2")]
    try:
        settings = match.Settings(variant="normal", base=0.2, inc=0, max_plies=2, grace=grace)
        rec = match.GameRecord(1, "a", "b")
        match.play_game(engines, rec, settings, match.Opening([]), [settings.control()] * 2)
        assert rec.reason == reason
        assert (incident is None and not rec.incidents) or re.fullmatch(incident, rec.incidents[0])
    finally:
        for engine in engines:
            engine.close()


def test_stderr_lines_and_error_replies_are_incidents(tmp_path):
    script = tmp_path / "noisy.py"
    script.write_text("import sys\nfor line in sys.stdin:\n"
                      "    if line.startswith('uci'):\n"
                      "        print('uciok', flush=True)\n"
                      "    elif line.startswith('isready'):\n"
                      "        print('boom', file=sys.stderr, flush=True)\n"
                      "        print('info string unknown command: isready?', flush=True)\n"
                      "        print('readyok', flush=True)\n"
                      "    elif line.startswith('quit'):\n"
                      "        sys.exit(3)\n")
    engine = match.make_engine(f"uci:{sys.executable} {script}", "engine2")
    engine.sync()
    engine.close()
    incidents = engine.take_incidents()
    assert "engine2 said: info string unknown command: isready?" in incidents
    assert "engine2 stderr: boom" in incidents
    assert "engine2 exited (exit status 3) on quit" in incidents


# ---------------------------------------------------------------- set-up positions, plan
def test_setup_files_hold_legal_fens_for_every_planned_variant():
    args = reliability.parse_args([])
    blocks = reliability.plan(args)
    assert sum(b.games for b in blocks) >= 1000
    assert len({b.variant for b in blocks}) >= 8
    assert any(b.ponder and b.setup for b in blocks) and any(b.ponder and not b.setup
                                                             for b in blocks)
    for variant in {b.variant for b in blocks if b.setup}:
        settings = match.Settings(variant=variant)
        openings = match.load_openings(settings, str(reliability.setup_file(variant)))
        assert len(openings) >= 20 and all(o.fen and not o.moves for o in openings)
    ponder = next(b for b in blocks if b.ponder and b.setup)
    command = reliability.match_command(ponder, args, ROOT / "results" / "x")
    assert "--ponder" in command and "--openings" in command and "--tc" in command
    assert command[command.index("--concurrency") + 1] == "1"
    start = next(b for b in blocks if not b.ponder)
    command = reliability.match_command(start, args, ROOT / "results" / "x")
    assert "--st" in command and command[command.index("--concurrency") + 1] == "2"


# ---------------------------------------------------------------- counting
def pgn_record(round_number, result, reason, incidents=()):
    rec = match.GameRecord(round_number, "A", "B", result=result, reason=reason,
                           moves=["e2e4"], book=0, incidents=list(incidents))
    return match.pgn_text(rec, match.Settings(variant="normal"))


def test_summary_counts_forfeits_crashes_and_incidents(tmp_path):
    pgn = tmp_path / "b.pgn"
    pgn.write_text(
        pgn_record(1, "1-0", "White mates")                         # engine 1 wins
        + pgn_record(2, "1-0", "Black loses on time")               # engine 1 (Black) loses
        + pgn_record(3, "0-1", "White illegal move e2e5")
        + pgn_record(4, "1-0", "Black crashed",
                     ["engine1 stderr: Traceback", "engine1 stderr: KeyError: 3",
                      "engine1 exited (signal 11); restarted"])
        + pgn_record(5, "0-1", "White loses on time (no move)",
                     ["engine1 gave no answer to ping/isready after the game; restarted"])
        + pgn_record(6, "1/2-1/2", "Draw by repetition",
                     ["engine2 said: Error (x): y",
                      "engine1 overstepped its clock by 42 ms (within the grace)"])
        + pgn_record(8, "0-1", "Black mates",
                     ["engine2 took 412 ms for a move of 0.05 s"])   # late, not faulty
        + pgn_record(1, "0-1", "Black mates")                       # a second round 1
        + pgn_record(7, "*", ""))                                   # unfinished
    console = tmp_path / "b.txt"
    console.write_text("game 1: ...\nincident: engine2 exited (exit status 1) on quit\n")
    s = reliability.summarize("b", pgn, console)
    assert (s.games, s.wins, s.losses, s.draws) == (7, 2, 4, 1)
    assert s.kinds == {"rule": 3, "time": 1, "illegal move": 1, "crash": 1, "no answer": 1}
    assert s.forfeits == 4 and s.incident_games == 3
    assert s.crashes == 2 and s.no_answer_restarts == 1 and s.slow_moves == 2
    assert [f.round for f in s.faulty] == ["2", "3", "4", "5", "6"]
    assert [f.round for f in s.late] == ["8"]
    assert s.outside_games == ["engine2 exited (exit status 1) on quit"]
    block = reliability.Block("b", "normal", "start", 8, False, False, 1, ["--st", "0.05"])
    run = {"command": "c", "options": {"st": 0.05, "tc": "1+0.05", "grace": 0.25,
                                       "max_plies": 250, "concurrency": 2},
           "seconds": {"b": 90}}
    report = reliability.report_text([block], {"b": s}, run)
    row = "| b | normal | CECP vs UCI | no | random plies | st 0.05 | 7/8 | 2-4-1 | 4 | 3 | 1.5 |"
    assert row in report
    assert re.search(r"illegal moves 1; forfeits 4 \(time 1, no answer 1, illegal move 1, "
                     r"false claim 0, crash 1, other forfeit 0\); crashes \(engine processes "
                     r"that exited\) 2; restarts after no answer 1; games with incidents 3",
                     report), report
    assert "- b.pgn round 4: 1-0 {Black crashed} (crash); incidents: engine1 exited" in report
    assert "grace + 0.1 s late; incidents, not faults): 2." in report
    assert "- b.pgn round 8: engine2 took 412 ms for a move of 0.05 s" in report
    assert "- outside a game, b: engine2 exited (exit status 1) on quit" in report


def test_resuming_with_other_options_is_refused(tmp_path):
    out = tmp_path / "rel"
    argv = ["--variants", "normal", "--start-games", "0", "--setup-games", "0",
            "--ponder-games", "0", "--out", str(out), "--report", str(tmp_path / "r.md"),
            "--fault-log", str(tmp_path / "faults.log")]
    assert reliability.main(argv) == 0
    assert "**Total: 0/0 games" in (tmp_path / "r.md").read_text()
    assert reliability.main(argv + ["--st", "0.1"]) == 2
    (tmp_path / "r.md").unlink()
    assert reliability.main(["--report-only", "--out", str(out),      # its own options
                             "--report", str(tmp_path / "r.md"),
                             "--fault-log", str(tmp_path / "faults.log")]) == 0
    assert "**Total: 0/0 games" in (tmp_path / "r.md").read_text()
    assert reliability.main(["--report-only", "--out", str(tmp_path / "none")]) == 2


# ---------------------------------------------------------------- a real run
def test_real_ponder_games_from_a_ten_rank_setup_position(tmp_path):
    """CECP against UCI, both pondering, from a roman FEN with an e.p. square (UCI ranks
    differ from XBoard's there): no forfeit, no incident, ponder hits or misses seen."""
    fen = next(line for line in reliability.setup_file("roman").read_text().splitlines()
               if re.search(r" [a-j]\d+ \d+ \d+$", line))
    openings = tmp_path / "fen.txt"
    openings.write_text(fen + "\n")
    pgn, log = tmp_path / "p.pgn", tmp_path / "p.log"
    start = time.monotonic()
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "match.py"), "--engine1", OURS,
                          "--engine2", f"uci:{OURS}", "--variant", "roman", "--ponder",
                          "--tc", "2+0.05", "--max-plies", "24", "--games", "2",
                          "--openings", str(openings), "--pgn", str(pgn), "--log", str(log)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - start < 30
    games = list(match.split_pgn(pgn.read_text()))
    assert len(games) == 2
    for tags, _ in games:
        assert tags["FEN"] == fen and "Incidents" not in tags, tags
        assert match.termination_kind(tags["Termination"]) == "rule", tags
    traffic = log.read_text()
    assert "engine1< hard" in traffic and "engine2< setoption name Ponder value true" in traffic
    assert re.search(r"engine2< position fen \S+ b KQkq [a-j]3 ", traffic)
    assert "engine2< go ponder" in traffic
    assert re.search(r"engine2< (ponderhit|stop)$", traffic, re.M)
    assert "incident:" not in out.stdout
