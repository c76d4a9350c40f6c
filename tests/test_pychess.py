"""Stock python-chess (chess.engine.SimpleEngine.popen_xboard) drives the engine.

python-chess checks the handshake (ping, setboard), parses every `move` with its
own legality test and every thinking line, so these games are an outside check
of CECP conformance.
"""
import chess
import chess.engine
import pytest

from enginepipe import ROOT, engine_command

MAX_PLIES = 60


@pytest.fixture
def engine():
    eng = chess.engine.SimpleEngine.popen_xboard(engine_command(), cwd=str(ROOT), timeout=20)
    yield eng
    eng.quit()


def play_game(engine, limit_for, board=None, ponder=False, plies=MAX_PLIES):
    board = board or chess.Board()
    game = object()
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < plies:
        result = engine.play(board, limit_for(board), game=game, ponder=ponder,
                             info=chess.engine.INFO_ALL)
        if result.move is None:
            break
        assert result.move in board.legal_moves
        board.push(result.move)
    return board


def test_handshake_and_options(engine):
    assert engine.id["name"].startswith("fairymax")
    for name in ("Resign", "ResignThreshold", "MultiPVLines", "IniFile"):
        assert name in engine.options
    engine.configure({"Resign": False, "MultiPVLines": 1, "memory": 16, "cores": 1})
    engine.ping()


def test_game_fixed_depth(engine):
    board = play_game(engine, lambda b: chess.engine.Limit(depth=2), plies=40)
    assert len(board.move_stack) >= 10 or board.is_game_over()


def test_game_fixed_time(engine):
    board = play_game(engine, lambda b: chess.engine.Limit(time=0.05), plies=30)
    assert len(board.move_stack) >= 10 or board.is_game_over()


def test_game_clock_with_increment(engine):
    clocks = {chess.WHITE: 3.0, chess.BLACK: 3.0}
    board = chess.Board()
    game = object()
    import time
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < 40:
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=0.05, black_inc=0.05)
        t0 = time.monotonic()
        result = engine.play(board, limit, game=game)
        used = time.monotonic() - t0
        clocks[board.turn] += 0.05 - used
        assert clocks[board.turn] > 0, "flagged"
        assert result.move in board.legal_moves
        board.push(result.move)


def test_game_with_ponder(engine):
    board = play_game(engine, lambda b: chess.engine.Limit(time=0.05), ponder=True, plies=16)
    assert len(board.move_stack) >= 10 or board.is_game_over()


def test_from_fen_and_mate_score(engine):
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    result = engine.play(board, chess.engine.Limit(depth=3), info=chess.engine.INFO_ALL)
    assert result.move == chess.Move.from_uci("a1a8")
    assert result.info["score"].relative == chess.engine.Mate(1)


def test_analysis(engine):
    board = chess.Board()
    board.push_uci("e2e4")
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert info["depth"] >= 3 and info["pv"] and info["pv"][0] in board.legal_moves
    assert info["seldepth"] >= 1 and "nps" in info and info["tbhits"] == 0   # extended form
    info = engine.analyse(board, chess.engine.Limit(time=0.3))
    assert info["pv"][0] in board.legal_moves
    root = [chess.Move.from_uci("a7a6"), chess.Move.from_uci("h7h6")]
    info = engine.analyse(board, chess.engine.Limit(depth=2), root_moves=root)
    assert info["pv"][0] in root
    with engine.analysis(board) as analysis:
        for n, info in enumerate(analysis):
            if info.get("depth", 0) >= 3 or n > 50:
                break
    engine.ping()


def test_node_limit(engine):
    result = engine.play(chess.Board(), chess.engine.Limit(nodes=2000))
    assert result.move in chess.Board().legal_moves
