"""scripts/game_positions.py: the quiet positions of match PGNs, for `tune label`."""
import subprocess
import sys

import pytest

from enginepipe import ROOT
from fairymax.board import Board

sys.path.insert(0, str(ROOT / "scripts"))
import game_positions  # noqa: E402

SCRIPT = ROOT / "scripts" / "game_positions.py"
MOVES = ("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1 f7f6 d2d4 e5d4 f3d4 c6c5 d4e2").split()
# kept, by the ply of the move played from them: 9 and 10 (quiet, after a quiet move),
# 14 (the knight's retreat); not 8 (after a capture), 11 and 12 (captures), 13 (after
# one), nor those before tune.OPENING_PLY_MIN
KEPT_PLIES = (9, 10, 14)


def pgn_text(rounds: int) -> str:
    movetext = " ".join(f"{n // 2 + 1}. {m}" if n % 2 == 0 else m for n, m in enumerate(MOVES))
    game = '[Event "test"]\n[Round "{}"]\n[Variant "normal"]\n[Result "*"]\n\n' + movetext + " *\n\n"
    return "".join(game.format(r) for r in range(1, rounds + 1))


def fen_before(ply: int) -> str:
    board = Board.from_name("normal")
    for text in MOVES[:ply]:
        board.push(board.parse_move(text))
    return board.fen()


def test_quiet_positions_each_once(tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(pgn_text(rounds=2))      # the second game repeats the first
    assert list(game_positions.quiet_positions("normal", [pgn])) == [fen_before(p) for p in KEPT_PLIES]


def test_positions_labelled_by_the_games_result(tmp_path):
    """--results: each position with its game's result for the side to move (White won:
    =1 with White to move, =0 with Black); an unfinished game gives none."""
    pgn = tmp_path / "games.pgn"
    pgn.write_text(pgn_text(rounds=1) + pgn_text(rounds=1).replace('[Result "*"]', '[Result "1-0"]'))
    labelled = list(game_positions.quiet_positions("normal", [pgn], results=True))
    expected = []
    for ply in KEPT_PLIES:
        fen = fen_before(ply)
        expected.append(f"{fen};=1" if fen.split()[1] == "w" else f"{fen};=0")
    assert labelled == expected         # the same positions of the unfinished game first: skipped


@pytest.mark.parametrize("args, says", [
    (["--variant", "normal", "/nonexistent.pgn"], "No such file"),
    (["--variant", "no-such-variant", "PGN"], "unknown variant"),
])
def test_bad_input_exits_2_with_one_line(args, says, tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(pgn_text(rounds=1))
    done = subprocess.run([sys.executable, str(SCRIPT)] + [str(pgn) if a == "PGN" else a for a in args],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and says in done.stderr
