"""CECP transcripts over pipes: every command, exact replies, and the race cases."""
import re
import signal
import time

import pytest

from enginepipe import EnginePipe, moves_of

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
THINK = r"^\d+ -?\d+ \d+ \d+ "


@pytest.fixture
def engine():
    with EnginePipe() as e:
        e.handshake()
        yield e


def test_handshake_features_within_two_seconds():
    with EnginePipe() as e:
        start = time.monotonic()
        e.send("xboard", "protover 2")
        first = e.expect(r".")
        assert first == ["feature done=0"]
        lines = e.expect(r"^feature .*done=1", 10)
        assert time.monotonic() - start < 2.0
        text = "\n".join(lines)
        assert re.search(r'^feature myname="[^"]+"$', text, re.M)
        for feat in ("ping=1", "setboard=1", "playother=1", "usermove=1", "san=0", "time=1",
                     "draw=1", "sigint=0", "sigterm=0", "reuse=1", "analyze=1", "colors=0",
                     "memory=1", "smp=1", "exclude=1", "pause=1", "nps=1", "debug=1"):
            assert re.search(rf"\b{feat}\b", text), feat
        variants = re.search(r'^feature variants="([^"]+)"$', text, re.M).group(1).split(",")
        assert variants[0] == "normal"
        assert "fairy" in variants and "capablanca" in variants and "roman" in variants
        assert not [v for v in variants if v[:1].isupper() or v.startswith("fairy/")]
        options = re.findall(r'^feature option="([^"]+)"$', text, re.M)
        names = [o.split(" -")[0] for o in options]
        assert all(" " not in n for n in names)
        for want in ("Resign", "ResignThreshold", "ClaimDrawAfter", "IniFile", "MultiPVLines",
                     "VariantFairySelects"):
            assert want in names
        assert not [line for line in lines if not line.startswith("feature ")]
        assert e.close() == 0


def test_unknown_and_illegal(engine):
    engine.send("new", "force", "foo bar", "usermove e2e5", "e2e5", "usermove z9z9")
    out = engine.sync()
    assert out == ["Error (unknown command): foo", "Illegal move: e2e5", "Illegal move: e2e5",
                   "Illegal move: z9z9"]
    engine.send("usermove e2e4", "e7e5", "usermove e7e5")     # bare move accepted too
    assert engine.sync() == ["Illegal move: e7e5"]


def test_force_mode_never_moves(engine):
    engine.send("new", "force", "post", "usermove e2e4", "usermove e7e5", "usermove g1f3")
    assert engine.sync() == []
    engine.silent(0.3)


def test_new_engine_plays_black(engine):
    engine.send("new", "st 0.2", "usermove e2e4")
    lines = engine.expect(r"^move ", 5)
    move = moves_of(lines)[0]
    assert re.match(r"^[a-h][5-8][a-h][1-8]$", move)


def test_go_and_playother(engine):
    engine.send("new", "force", "st 0.1", "usermove e2e4", "go")
    assert re.match(r"[a-h][5-8]", moves_of(engine.expect(r"^move "))[0])
    # playother: engine takes the side not on move (White here) and waits
    engine.send("new", "force", "usermove e2e4", "playother")
    engine.silent(0.3)
    engine.send("usermove e7e5")
    assert re.match(r"[a-h][1-4]", moves_of(engine.expect(r"^move "))[0])


def test_ping_during_search_answered_after_move(engine):
    engine.send("new", "force", "st 0.6", "go", "ping 7")
    lines = engine.expect(r"^pong 7$", 5)
    assert lines[0].startswith("move "), lines


@pytest.mark.parametrize("stopper", ["result 1-0 {White resigns}", "new", "force"])
def test_stop_during_search_without_stale_move(engine, stopper):
    engine.send("new", "force", "post", "st 10", "go")
    engine.expect(THINK, 5)
    t0 = time.monotonic()
    engine.send(stopper)
    out = engine.sync()
    assert time.monotonic() - t0 < 1.0
    assert not moves_of(out)
    engine.silent(0.5, allow=r"^#")


def test_move_now(engine):
    engine.send("new", "force", "st 30", "go")
    time.sleep(0.3)
    t0 = time.monotonic()
    engine.send("?")
    engine.expect(r"^move ", 2)
    assert time.monotonic() - t0 < 1.0
    engine.sync()


def test_quit_during_search():
    with EnginePipe() as e:
        e.handshake()
        e.send("new", "force", "st 30", "go")
        time.sleep(0.3)
        t0 = time.monotonic()
        e.send("quit")
        assert e.proc.wait(3) == 0
        assert time.monotonic() - t0 < 1.0


def test_usermove_in_force_mode_then_go(engine):
    engine.send("new", "force", "st 0.1", "usermove d2d4", "usermove d7d5")
    assert engine.sync() == []
    engine.send("go")
    assert re.match(r"[a-h][1-4]", moves_of(engine.expect(r"^move "))[0])


def test_setboard_castling_and_en_passant(engine):
    fen = "r3k2r/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/R3K2R b KQkq d3 0 1"
    engine.send("new", "force", f"setboard {fen}", "usermove e4d3", "usermove e1c1",
                "usermove e8g8")
    assert engine.sync() == []
    engine.send("usermove c1b1")        # the white king castled to c1
    assert engine.sync() == []


def test_bad_fen_leaves_no_position_to_play_from(engine):
    """An unreadable setboard is reported, and the engine neither plays nor accepts moves
    from the stale position until a valid one arrives (in XBoard that would forfeit)."""
    engine.send("new", "force", "st 0.1", "usermove e2e4")
    for bad in ("this is not a fen", "8/8/8/8/8/8/8/8 w - - 0 1",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -3 1"):
        engine.send(f"setboard {bad}")
        out = engine.sync()
        assert len(out) == 1 and out[0].startswith("tellusererror Illegal position: "), out
    engine.send("usermove e7e5", "go")
    out = engine.sync()
    assert [line.split(":")[0] for line in out] == ["Error (no valid position"] * 2, out
    engine.send(f"setboard {START}", "go")
    assert moves_of(engine.expect(r"^move "))[0][1] in "12"


def test_stalemate_scored_as_the_referee_scores_it():
    """A stalemate ends the game: under XBoard the search must count it as XBoard does
    (a draw in courier, though the ini says loss: fairymax stalemated Fairy-Max for a
    'win' that XBoard drew), under UCI as the ini says."""
    from fairymax.session import Session
    session = Session(hash_mb=1)
    session.set_variant("courier")
    assert session.board.variant.flags()["stalemate_score"] == 0
    session.set_variant("shatranj")
    assert session.board.variant.flags()["stalemate_score"] < 0
    session.xboard_rules = False
    session.set_variant("courier")
    assert session.board.variant.flags()["stalemate_score"] < 0


@pytest.mark.parametrize("variant, fen, reply", [
    # XBoard 4.9.1 leaves out the castling field (and for these, the e.p. field)
    ("shatranj", "rnbkqbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBKQBNR b 0 1", "[a-h][78]"),
    ("makruk", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w 0 1", "[a-h][1-3]"),
    ("nocastle", "bnnrqrkb/pppppppp/8/8/8/8/PPPPPPPP/BNNRQRKB w - 0 1", "[a-h][1-3]"),
    ("normal", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3", "[a-h][78]"),
])
def test_setboard_reads_xboard_short_fens(engine, variant, fen, reply):
    engine.send("new", f"variant {variant}", "force", f"setboard {fen}", "st 0.1")
    assert [line for line in engine.sync() if not line.startswith(("setup", "piece"))] == []
    engine.send("go")
    move = moves_of(engine.expect(r"^move "))[0]
    assert re.match(reply, move), move
    if variant in ("nocastle", "normal"):   # legal in the FEN given, not in the old position
        import chess
        assert chess.Move.from_uci(move) in chess.Board(fen.replace(" w - ", " w - - ")).legal_moves


def test_variant_rule_endings_xboard_cannot_check_are_played_on(engine):
    """Courier's bare king and the hill are wins XBoard 4.9.1 does not recognise: no claim,
    the engine moves on toward mate.  Shatranj's bare king XBoard checks: claimed."""
    # courier: Black has just been left with a bare king, and it is White's move
    engine.send("new", "variant courier", "force",
                "setboard 6k5/12/12/12/12/12/12/R4K6 w 0 60", "st 0.1", "go")
    out = engine.expect(r"^(move |1-0|0-1|1/2)")
    assert out[-1].startswith("move "), out
    # king of the hill: White's king stands on e4 (the hill); Black is to move
    engine.send("new", "variant king-of-the-hill", "force",
                "setboard 7k/8/8/8/4K3/8/8/R7 b - - 0 40", "go")
    out = engine.expect(r"^(move |1-0|0-1|1/2)")
    assert out[-1].startswith("move "), out
    # shatranj: Black, bare, has moved without baring White: White claims the win
    engine.send("new", "variant shatranj", "force",
                "setboard 7k/8/8/8/8/8/8/R3K3 w 0 40", "go")
    assert engine.expect(r"^(move |1-0|0-1|1/2)")[-1] == "1-0 {Black has a bare king}"


def test_undo_remove_after_setboard(engine):
    engine.send("new", "force", "setboard 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
                "usermove e2e4", "usermove e8d8", "undo", "undo", "usermove e2e3",
                "usermove e8f8", "remove", "usermove e1d1")
    assert engine.sync() == []
    engine.send("undo")
    assert engine.sync() == []
    engine.send("undo")
    assert engine.sync() == ["Error (command not legal now): undo"]
    engine.send("remove")
    assert engine.sync() == ["Error (command not legal now): remove"]


def test_variant_setup_lines(engine):
    engine.send("new", "variant los-alamos")
    assert engine.sync() == [
        "setup (PN.RQKpn.rqk) 6x6+0_fairy rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1"]
    engine.send("new", "variant grande-acedrex")
    out = engine.sync()
    setup = out[0].split()
    assert setup[0] == "setup" and setup[2] == "12x12+0_shatranj"
    rows = setup[3].split("/")
    assert len(rows) == 12 and rows[1] == "12" and rows[3] == "p" * 12
    assert all(line.startswith("piece ") for line in out[1:]) and len(out) > 1
    engine.send("new", "variant capablanca")
    assert engine.sync() == []                       # native: nothing to say
    engine.send("new", "variant falcon")
    out = engine.sync()
    assert out and all(line.startswith("piece ") for line in out)
    engine.send("new", "variant nosuchthing")
    assert engine.sync() == ["Error (unsupported variant): nosuchthing"]
    # a fairy army is set up on XBoard's `fairy`, or XBoard keeps its own start position
    engine.send("option VariantFairySelects=fairy/Nutters-Rookies", "new", "variant fairy")
    out = engine.sync()
    assert out[0].startswith("setup (P...........H.T.C...UKp.............w.mh.s.k) 8x8+0_fairy ")
    assert all(line.startswith("piece ") for line in out[1:])
    # nocastle, the ini's parent of light-brigade, is shuffled by XBoard in every game
    engine.send("new", "variant light-brigade")
    assert engine.sync() == [
        "setup (PNBRQKpnbrqk) 8x8+0_fairy nnnnknnn/pppppppp/8/8/8/8/PPPPPPPP/1Q1QK1Q1 w - - 0 1"]


def test_shogi_over_cecp(engine):
    """XBoard knows shogi itself; minishogi goes to it as a 5x5 shogi with 5 holdings.
    XBoard writes a promotion b8b9+, a deferral c5d3= (our own deferrals go plain)."""
    engine.send("new", "variant shogi")
    assert engine.sync() == []
    engine.send("force", "setboard 4k4/9/4P4/9/9/9/9/9/4K4[] w - - 0 1", "usermove e7e8=")
    assert engine.sync() == []
    engine.send("setboard 3k5/9/4P4/9/9/9/9/9/4K4[pp] w - - 0 1", "usermove e7e8+", "usermove d9e8",
                "usermove e1d1", "usermove P@e5", "usermove d1c1")
    assert engine.sync() == []
    engine.send("usermove P@e4")                                 # nifu
    assert engine.sync() == ["Illegal move: P@e4"]
    engine.send("new", "variant minishogi")
    assert engine.sync() == ["setup (P.BR.S...G.+.++.+Kp.br.s...g.+.++.+k) 5x5+5_shogi "
                             "rbsgk/4p/5/P4/KGSBR[] w - - 0 1"]


def test_ten_rank_coordinates(engine):
    engine.send("new", "variant roman")
    engine.sync()
    engine.send("force", "usermove e1e3", "usermove e9e10")   # rank 10 does not exist here
    assert engine.sync() == ["Illegal move: e9e10"]
    engine.send("st 0.2", "go")
    move = moves_of(engine.expect(r"^move ", 5))[0]
    assert re.match(r"^[a-j][0-9][a-j][0-9][a-z]?$", move), move


def test_edit_mode(engine):
    engine.send("new", "force", "edit", "#", "Ke1", "Ra1", "Rh1", "Pa4", "xa4", "c", "Ke8", "Pe7",
                ".")
    assert engine.sync() == []
    engine.send("usermove e1c1", "usermove e7e5")   # castling rights from home squares
    assert engine.sync() == []
    engine.send("usermove a4a5")                   # the a4 pawn was removed
    assert engine.sync() == ["Illegal move: a4a5"]


def test_analyze(engine):
    engine.send("new", "force", "post", "analyze")
    engine.expect(THINK, 5)
    t0 = time.monotonic()
    engine.sync()
    assert time.monotonic() - t0 < 0.5
    engine.send("usermove e2e4")
    lines = engine.expect(THINK, 5)
    engine.send(".", "undo", "exclude e2e4", "exclude all", "include all", "exit")
    out = engine.sync()
    assert not moves_of(lines + out)
    assert not [line for line in out if line.startswith(("Error", "Illegal"))]
    engine.silent(0.3)


def test_analyze_is_not_capped_by_sd(engine):
    """`sd` limits the engine's own moves; analysis goes deeper (python-chess's CECP
    client, after a depth-limited play, waits for its own analysis depth)."""
    engine.send("new", "force", "post", "sd 2", "analyze")
    lines = engine.expect(r"^[3-9]\d* ", 10)
    engine.send("exit")
    engine.sync()
    assert lines


def test_analyze_exclude_and_multipv(engine):
    engine.send("new", "force", "setboard 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
                "exclude a1a8", "option MultiPVLines=2", "post", "analyze")
    lines = engine.expect(THINK, 5)
    time.sleep(0.5)
    engine.send("exit")
    lines += engine.sync()
    pvs = [line.split("\t")[1].split()[0] for line in lines if re.match(THINK, line)]
    assert pvs and "a1a8" not in pvs


def test_mate_claim_and_mate_score(engine):
    engine.send("new", "force", "post", "setboard 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "st 0.5",
                "go")
    lines = engine.expect(r"^1-0 \{White mates\}$", 5)
    assert moves_of(lines) == ["a1a8"]
    scores = [int(line.split()[1]) for line in lines if re.match(THINK, line)]
    assert scores and scores[-1] == 100001


def test_stalemate_claim_after_opponent_move(engine):
    fen = "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"
    engine.send("new", "force", f"setboard {fen}", "usermove c1c7")
    assert engine.sync() == []                 # force mode: no claim
    engine.send(f"setboard {fen}", "playother", "st 0.1", "usermove c1c7")
    assert engine.sync() == ["1/2-1/2 {Stalemate}"]


def test_repetition_claim(engine):
    engine.send("new", "force", "usermove g1f3", "usermove g8f6")
    for _ in range(2):
        engine.send("usermove f3g1", "usermove f6g8", "usermove g1f3", "usermove g8f6")
    engine.send("st 0.1", "go")
    assert engine.sync() == ["1/2-1/2 {Draw by repetition}"]


# crazyhouse: White drops a pawn that the knight takes, Black drops it back for the
# rook on a2 to take; then the rook tours on from a3 over 25 squares back to a2 while
# the Black king steps to and fro: the start position again after 58 plies
CAPTURES = "P@h6 g8h6 e1d1 P@a3 a2a3 h6g8 d1e1 e8f8".split()
ROOK_TOUR = "a2 a3 a4 a5 a6 a7 b7 b6 b5 b4 b3 b2 c2 c3 c4 c5 c6 c7 d7 d6 d5 d4 d3 d2 d1 a1".split()
TOUR = [move for step in range(1, 26)
        for move in (ROOK_TOUR[step] + ROOK_TOUR[(step + 1) % 26], ("f8e8", "e8f8")[step % 2 - 1])]


def test_no_repetition_claim_xboard_cannot_see():
    """XBoard confirms a draw claim when the position occurred twice before within the
    last 100 plies, or when its fifty-move count is full; in crazyhouse a repetition can
    span captures.  The start comes back every 58 plies, with a capture in between: its
    3rd occurrence, at ply 116, is a draw by the rules but not to XBoard, so no claim;
    under UCI, without XBoard, it is claimed."""
    from fairymax.session import Session
    session = Session(hash_mb=1)
    session.set_variant("crazyhouse")
    board = session.board
    board.set_fen("4k1n1/8/8/8/8/8/R7/4K3[P] w - - 0 1")
    for move in (CAPTURES + TOUR) * 2:
        assert board.repetition_ending() is None
        board.push(board.parse_move(move))
    assert board.fen().startswith("4k1n1/8/8/8/8/8/R7/4K3[P] w")
    assert board.repetitions() == 2 and board.repetitions(within=100) == 1
    assert session.outcome() is None
    session.xboard_rules = False
    assert session.outcome() == ("1/2-1/2", "Draw by repetition")


def test_pondering_hit_and_miss(engine):
    engine.send("new", "hard", "post", "st 0.3", "usermove e2e4")
    engine.expect(r"^move ", 5)
    engine.send("hint")
    hint = engine.expect(r"^Hint: ", 2)[-1].split()[1]
    t0 = time.monotonic()
    engine.sync()                               # pong at once while pondering
    assert time.monotonic() - t0 < 0.3
    engine.send(f"usermove {hint}")             # ponder hit
    engine.expect(r"^move ", 5)
    engine.send("usermove a2a3")                # most likely a miss; either way a move comes
    out = engine.expect(r"^move |^Illegal", 5)
    assert moves_of(out) or out[-1].startswith("Illegal")
    engine.send("easy")
    engine.sync()


@pytest.mark.parametrize("tc", [
    ["level 40 0:02 0", "time 200", "otim 200"],
    ["level 0 0:00 0"],
    ["level 0 0:00 0.1", "time 1", "otim 1"],
    ["level 0 1:30 0.5", "time -50", "otim -50"],
    ["st 0.01"],
    ["st 0"],
    ["st -3"],
    ["sd 1"],
    ["nps 1000", "level 0 0:01 0", "time 100"],
    ["nps 1", "st 500"],
    ["level 40 5 0", "sd 2"],
    ["level x y z", "st abc"],
])
def test_time_controls_always_answered(engine, tc):
    engine.send("new", "force", *tc, "go")
    lines = engine.expect(r"^move ", 12)
    assert len(moves_of(lines)) == 1


def test_options_and_resources(engine):
    engine.send("memory 16", "cores 2", "egtpath syzygy /tmp", "option Resign=1",
                "option ResignThreshold=300", "option ClaimDrawAfter=40", "option MultiPVLines=1",
                "option ClearHash", "option MoveOverhead=20",
                "option VariantFairySelects=fairy/FIDE-Nutters", "option NoSuchOption=3")
    assert engine.sync() == ["Error (unknown option): NoSuchOption"]
    engine.send("option IniFile=/nonexistent/file.ini")
    out = engine.sync()
    assert len(out) == 1 and out[0].startswith("tellusererror ")


def test_cores_searches_with_helper_threads(engine):
    engine.send("new", "cores 2", "post", "st 0.3", "usermove e2e4")
    lines = engine.expect(r"^move ")
    assert re.match(r"[a-h][78][a-h][56]", moves_of(lines)[0]) and [l for l in lines if re.match(THINK, l)]
    engine.send("cores 1", "usermove d2d4")
    assert moves_of(engine.expect(r"^move "))


def test_misc_commands_quiet(engine):
    engine.send("new", "random", "name Someone", "rating 2000 1800", "ics -", "computer",
                "accepted ping", "rejected debug", "hard", "easy", "post", "nopost", "draw",
                "hint", "otim 100", "time 100")
    assert engine.sync() == []
    engine.send("bk")
    out = engine.sync()
    assert out[-1] == "" and all(line == "" or line[0] in " \t" for line in out)


def test_resign(engine):
    engine.send("new", "force", "option Resign=1", "option ResignThreshold=200",
                "setboard 3qk3/8/8/8/8/8/8/4K3 w - - 0 1", "st 0.3", "go")
    out = engine.expect(r"^(resign|move )", 5)
    assert out[-1] == "resign"


def test_pause_resume(engine):
    engine.send("new", "force", "st 0.4", "go")
    time.sleep(0.05)
    engine.send("pause")
    engine.silent(0.8)
    engine.send("resume")
    engine.expect(r"^move ", 3)


def test_sigint_ignored(engine):
    engine.proc.send_signal(signal.SIGINT)
    engine.proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    engine.sync()
    assert engine.proc.poll() is None


def test_draw_offer_declined_silently(engine):
    engine.send("new", "force", "st 0.1", "draw")
    assert engine.sync() == []


def test_draw_offer_answered_during_own_search(engine):
    """A `draw` that comes while the engine thinks is answered at once from the score so
    far: accepted (`offer draw`) when losing, ignored without a word when winning."""
    engine.send("new", "force", "post", "setboard 3qk3/8/8/8/8/8/8/4K3 w - - 0 1", "st 5", "go")
    engine.expect(THINK, 5)
    t0 = time.monotonic()
    engine.send("draw")
    assert engine.expect(r"^(offer draw|move )", 5)[-1] == "offer draw"
    assert time.monotonic() - t0 < 1.0
    engine.send("?")
    engine.expect(r"^move ", 5)
    engine.send("new", "force", "post", "setboard 4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "st 0.5", "go")
    engine.expect(THINK, 5)
    engine.send("draw")
    out = engine.expect(r"^move ", 5)
    assert "offer draw" not in out
    engine.sync()


def test_thinking_output_has_seldepth_and_nps(engine):
    engine.send("new", "force", "post", "sd 4", "go")
    lines = [line for line in engine.expect(r"^move ", 10) if re.match(THINK, line)]
    assert lines
    for line in lines:
        numbers, pv = line.split("\t")
        depth, score, centis, nodes, seldepth, nps, tbhits = (int(n) for n in numbers.split())
        assert seldepth >= 1 and nps >= 0 and tbhits == 0 and pv.split()
    assert int(lines[-1].split()[0]) == 4


def test_perft(engine):
    engine.send("new", "force", "usermove e2e4", "perft 2")
    out = engine.sync()
    assert out[-2:] == ["", "Nodes searched: 600"]
    counts = dict(line.split(": ") for line in out[:-2])
    assert len(counts) == 20 and counts["e7e5"] == "29" and sum(map(int, counts.values())) == 600
    engine.send("new", "variant roman", "force", "perft 1")
    out = engine.sync()
    assert out[-1] == "Nodes searched: 24" and "b0c2: 1" in out    # XBoard's 0-based ranks
    engine.send("perft 0", "perft x")
    assert engine.sync() == ["Error (bad argument): perft 0", "Error (bad argument): perft x"]
