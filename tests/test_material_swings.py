"""scripts/material_swings.py: where our lost games fell behind in material."""
import subprocess
import sys

import pytest

from enginepipe import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import material_swings  # noqa: E402

SCRIPT = ROOT / "scripts" / "material_swings.py"


def pgn(white, black, result, moves, extra=""):
    return (f'[Event "t"]\n[Round "1"]\n[White "{white}"]\n[Black "{black}"]\n'
            f'[Result "{result}"]\n{extra}\n{moves} {result}\n\n')


# White gives its queen away at ply 5 (Qxf7+ Kxf7) and its bishop at ply 12 (dxc4)
QUEEN_LOST = "1. e2e4 e7e5 2. d1h5 b8c6 3. h5f7 e8f7 4. g1f3 g8f6 5. f1c4 d7d5 6. e1g1 d5c4 7. b1c3 c8g4"


def test_a_loss_is_placed_where_the_material_went_and_only_held_deficits_count(tmp_path, capsys):
    games = tmp_path / "games.pgn"
    games.write_text(pgn("fairymax 0.1.0", "other", "0-1", QUEEN_LOST)
                     # the same moves, won by us as Black: not a loss, not counted
                     + pgn("other", "fairymax 0.1.0", "0-1", QUEEN_LOST))
    balance, pieces = material_swings.balances("normal", QUEEN_LOST, 0)
    assert balance[4] > 0 > -600 > balance[5]      # Qxf7+ wins a pawn, Kxf7 takes the queen
    assert pieces[3] == 32 and pieces[4] == pieces[5] + 1 == 31
    assert material_swings.main(["--from-ply", "0", str(games)]) == 0
    out = capsys.readouterr().out
    # six plies behind by ply 6 to 11: first held at ply 11; never 300 ahead before
    assert "losses 1: 1 fell 300 cp behind" in out and "first at ply 11, 11, 11" in out
    assert "0 of them had been 300 cp ahead" in out
    # from ply 30 on the game is over: the loss is counted, the fall is not
    material_swings.main([str(games)])
    assert "losses 1: 0 fell" in capsys.readouterr().out


def test_an_unreadable_pgn_is_one_line_and_status_2(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "missing.pgn")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1


def test_each_game_is_replayed_in_its_variant_and_from_its_fen(tmp_path, capsys):
    """The Variant and FEN tags set the board: a capablanca move (the i-file) and a
    FEN start where White has no queen to lose are read as such."""
    games = tmp_path / "games.pgn"
    games.write_text(pgn("fairymax 0.1.0", "other", "0-1", "1. i1j3 i8j6", '[Variant "capablanca"]\n')
                     + pgn("fairymax 0.1.0", "other", "0-1", "1. e2e4 e7e5",
                           '[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1"]\n'))
    assert material_swings.main(["--from-ply", "0", str(games)]) == 0
    assert "losses 2: 0 fell" in capsys.readouterr().out
    assert material_swings.balances("normal", "1. e2e4 e7e5", 0,
                                    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1")[0][-1] < -600


@pytest.mark.parametrize("extra,moves", [('[Variant "nosuch"]\n', "1. e2e4"), ("", "1. e2e5")])
def test_a_game_that_cannot_be_replayed_is_one_line_and_status_2(tmp_path, capsys, extra, moves):
    games = tmp_path / "games.pgn"
    games.write_text(pgn("fairymax 0.1.0", "other", "0-1", moves, extra))
    assert material_swings.main([str(games)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
