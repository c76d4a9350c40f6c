"""UCI transcripts over pipes (the same xboard.py, first line `uci`), and python-chess's
UCI client playing the engine."""
import re
import time

import chess
import chess.engine
import pytest

from enginepipe import ROOT, UciPipe, engine_command

INFO = (r"^info depth \d+ seldepth \d+ multipv \d+ score (cp -?\d+|mate -?\d+) nodes \d+ nps \d+ "
        r"hashfull \d+ time \d+ pv ")


@pytest.fixture
def engine():
    with UciPipe() as e:
        e.handshake()
        yield e


def legal(moves: list, move: str) -> bool:
    board = chess.Board()
    for text in moves:
        board.push_uci(text)
    return chess.Move.from_uci(move) in board.legal_moves


def test_handshake_and_options():
    with UciPipe() as e:
        lines = e.handshake()
        assert lines[0].startswith("id name fairymax ") and lines[1].startswith("id author ")
        options = {re.match(r"option name (.+?) type", line).group(1): line
                   for line in lines if line.startswith("option ")}
        for name in ("Hash", "Threads", "MultiPV", "Ponder", "UCI_AnalyseMode", "UCI_Variant",
                     "Move Overhead", "Clear Hash", "VariantFairySelects", "MakrukRules"):
            assert name in options, name
        variants = options["UCI_Variant"].split(" var ")[1:]
        assert "default chess " in options["UCI_Variant"]
        for name in ("chess", "capablanca", "shatranj", "makruk", "courier", "knightmate", "gothic",
                     "janus", "seirawan", "spartan", "berolina", "kingofthehill", "losalamos", "roman"):
            assert name in variants, name
        assert "normal" not in variants and not [v for v in variants if v[:1].isupper()]
        assert e.sync() == []
        assert e.close() == 0


@pytest.mark.parametrize("go", ["movetime 200", "depth 3", "nodes 3000", "wtime 2000 btime 2000",
                                "wtime 1000 btime 1000 winc 100 binc 100 movestogo 5", "mate 1"])
def test_position_and_go_limits(engine, go):
    moves = ["e2e4", "e7e5", "g1f3"]
    engine.send("ucinewgame", f"position startpos moves {' '.join(moves)}", f"go {go}")
    infos, move = engine.bestmove()
    assert legal(moves, move) and move[1] in "5678"
    assert [line for line in infos if re.match(INFO, line)]


def test_fen_promotion_and_mate_score(engine):
    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "go depth 3")
    infos, move = engine.bestmove()
    assert move == "a1a8" and re.search(r" score mate 1 ", infos[-1])
    engine.send("position fen k7/4P3/1K6/8/8/8/8/8 w - - 0 1", "go depth 3")
    assert re.match(r"^e7e8[qr]$", engine.bestmove()[1])      # lower-case promotion, mate
    engine.send("position fen r3k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1", "go depth 1")
    infos, move = engine.bestmove()                          # castling as the king's move
    assert not [line for line in infos if "illegal" in line] and move[1] == "8"
    engine.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "go depth 3")
    infos, move = engine.bestmove()
    assert move == "(none)" and infos[-1] == "info depth 0 score cp 0"   # stalemate


def test_shogi_fen_drops_and_promotions(engine):
    """Fairy-Stockfish's shogi FEN ([-] holdings, no castling or e.p. fields), its moves
    (b2h8+, P@e5) and a mate in one, not by the pawn drop that shogi forbids."""
    engine.send("setoption name UCI_Variant value shogi",
                "position fen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[-] w 0 1 "
                "moves c3c4 g7g6 b2h8+ g9h8 B@e5", "go depth 2")
    infos, move = engine.bestmove()
    assert re.fullmatch(r"[a-i][1-9][a-i][1-9]\+?|[A-Z]@[a-i][1-9]", move)
    engine.send("position fen k8/2S6/1G7/9/9/9/9/9/4K4[PG] w 0 1", "go depth 2")
    infos, move = engine.bestmove()
    # a gold drop mates, and so does c8c9+ (stalemate loses in shogi); P@a8 is illegal
    assert move != "P@a8" and re.search(r" score mate 1 ", infos[-1])


def test_stop_during_infinite(engine):
    engine.send("position startpos", "go infinite")
    engine.expect(INFO, 5)
    time.sleep(0.3)
    engine.silent(0.2, allow=r"^info ")
    t0 = time.monotonic()
    engine.send("stop")
    move = engine.bestmove(2)[1]
    assert time.monotonic() - t0 < 1.0 and legal([], move)
    engine.send("stop")                     # nothing to stop: no second bestmove
    assert engine.sync() == []


def test_go_without_limits_runs_until_stop(engine):
    engine.send("position startpos moves d2d4", "go")
    engine.silent(0.5, allow=r"^info ")
    engine.send("stop")
    assert legal(["d2d4"], engine.bestmove(2)[1])


def test_ponder_and_ponderhit(engine):
    engine.send("position startpos moves e2e4 e7e5", "go ponder wtime 3000 btime 3000")
    engine.silent(0.5, allow=r"^info ")
    t0 = time.monotonic()
    engine.send("ponderhit")
    move = engine.bestmove(5)[1]
    assert time.monotonic() - t0 < 2.0 and legal(["e2e4", "e7e5"], move)
    # a ponder miss: the GUI stops the search and takes no notice of its bestmove
    engine.send("position startpos moves e2e4", "go ponder movetime 100")
    engine.silent(0.3, allow=r"^info ")
    engine.send("stop")
    assert legal(["e2e4"], engine.bestmove(2)[1])


def test_multipv_hash_and_searchmoves(engine):
    engine.send("setoption name Hash value 16", "setoption name multipv value 3",
                "setoption name Threads value 2", "setoption name Clear Hash",
                "setoption name Ponder value true", "setoption name Move Overhead value 10")
    assert engine.sync() == []
    engine.send("position startpos", "go depth 3")
    infos, move = engine.bestmove()
    last = {int(re.search(r"multipv (\d+)", line).group(1)): line
            for line in infos if re.match(r"^info depth 3 ", line)}
    assert sorted(last) == [1, 2, 3]
    assert len({line.split(" pv ")[1].split()[0] for line in last.values()}) == 3
    engine.send("setoption name MultiPV value 1", "position startpos", "go depth 3 searchmoves a2a3 h2h3")
    assert engine.bestmove()[1] in ("a2a3", "h2h3")


def test_variants_and_ten_rank_coordinates(engine):
    engine.send("setoption name UCI_Variant value capablanca", "position startpos moves e2e4",
                "go depth 3")
    infos, move = engine.bestmove()
    assert re.match(r"^[a-j][5-8][a-j][1-8]$", move), move
    assert "e2e4" not in infos[-1].split(" pv ")[1]
    # roman has 10 ranks: UCI counts them 1-10 where XBoard says 0-9
    engine.send("setoption name UCI_Variant value roman", "position startpos moves b1c3",
                "go depth 2")
    infos, move = engine.bestmove()
    assert re.match(r"^[a-j](9|10)[a-j][1-9]\d?", move), move
    assert not re.search(r"\b[a-j]0", " ".join(infos))
    engine.send("position startpos moves b0c2")               # XBoard's name of b1c3
    assert engine.sync() == ["info string illegal move b0c2"]
    engine.send(f"position startpos moves b1c3 {move}", "go depth 1")
    assert re.match(r"^[a-j]([1-9]|10)[a-j]([1-9]|10)$", engine.bestmove()[1])
    engine.send("setoption name UCI_Variant value nosuch")
    assert engine.sync()[0].startswith("info string bad value for UCI_Variant")


def test_illegal_move_keeps_the_position_before_it(engine):
    engine.send("position startpos moves e2e4 e2e4 e7e5")
    assert engine.sync() == ["info string illegal move e2e4"]
    engine.send("go depth 1")
    assert legal(["e2e4"], engine.bestmove()[1])             # Black to move after e2e4
    engine.send("position fen this is no fen")
    assert engine.sync()[0].startswith("info string illegal position")
    engine.send("go depth 1")
    assert engine.bestmove()[1] == "(none)"


def test_unknown_commands_and_options(engine):
    engine.send("foo bar", "setoption name NoSuch value 3", "setoption name Hash value x",
                "go nonsense", "debug on", "register later")
    out = engine.sync()
    assert out[0] == "info string unknown command: foo bar"
    assert out[1] == "info string unknown option: NoSuch"
    assert out[2].startswith("info string bad value for Hash")
    assert out[3].startswith("info string bad go command") and len(out) == 4
    engine.send("go perft 2")
    out = engine.sync()
    assert out[-2:] == ["", "Nodes searched: 400"] and "e2e4: 20" in out


def test_quit_during_search():
    with UciPipe() as e:
        e.handshake()
        e.send("position startpos", "go infinite")
        e.expect(INFO, 5)
        t0 = time.monotonic()
        e.send("quit")
        assert e.proc.wait(3) == 0 and time.monotonic() - t0 < 1.0


def test_python_chess_plays_itself():
    with chess.engine.SimpleEngine.popen_uci(engine_command(), cwd=str(ROOT), timeout=20) as engine:
        assert engine.id["name"].startswith("fairymax")
        engine.configure({"Hash": 16})
        board = chess.Board()
        while not board.is_game_over(claim_draw=True) and len(board.move_stack) < 16:
            result = engine.play(board, chess.engine.Limit(time=0.05), ponder=True,
                                 info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves
            board.push(result.move)
        infos = engine.analyse(board, chess.engine.Limit(depth=3), multipv=2)
        assert [info["multipv"] for info in infos] == [1, 2]
        assert all(info["pv"][0] in board.legal_moves and "seldepth" in info for info in infos)
        assert all(info["seldepth"] >= info["depth"] and 0 <= info["hashfull"] <= 1000
                   for info in infos)
        result = engine.play(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"),
                             chess.engine.Limit(depth=3), info=chess.engine.INFO_SCORE)
        assert result.move == chess.Move.from_uci("a1a8")
        assert result.info["score"].relative == chess.engine.Mate(1)


def test_threads_option_searches_with_helpers(engine):
    engine.send("setoption name Threads value 2", "ucinewgame", "position startpos moves e2e4",
                "go movetime 300")
    infos, move = engine.bestmove()
    assert legal(["e2e4"], move) and [line for line in infos if re.match(INFO, line)]
    engine.send("setoption name Threads value 0", "position startpos", "go depth 4")
    assert legal([], engine.bestmove()[1])         # at least one thread


def test_fuzzed_go_lines_still_get_a_bestmove(engine):
    """Found by scripts/fuzz_protocol.py: tabs between tokens, numbers beyond any C int,
    and `protover` (a CECP command) under UCI."""
    engine.send("position startpos", "go\tmovetime\t50")
    assert legal([], engine.bestmove()[1])
    engine.send("go winc 100000000000000000000 wtime 300 btime 300")
    assert legal([], engine.bestmove()[1])
    engine.send("go nodes -100000000000000000000 depth 2")
    assert legal([], engine.bestmove()[1])
    engine.send("protover 2")
    assert [line for line in engine.sync() if not line.startswith("info string")] == []
