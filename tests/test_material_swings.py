"""scripts/material_swings.py: where our lost games fell behind in material."""
import subprocess
import sys

from enginepipe import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import material_swings  # noqa: E402

SCRIPT = ROOT / "scripts" / "material_swings.py"


def pgn(white, black, result, moves):
    return (f'[Event "t"]\n[Round "1"]\n[White "{white}"]\n[Black "{black}"]\n'
            f'[Result "{result}"]\n\n{moves} {result}\n\n')


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
    assert material_swings.main(["--variant", "normal", "--from-ply", "0", str(games)]) == 0
    out = capsys.readouterr().out
    # six plies behind by ply 6 to 11: first held at ply 11; never 300 ahead before
    assert "losses 1: 1 fell 300 cp behind" in out and "first at ply 11, 11, 11" in out
    assert "0 of them had been 300 cp ahead" in out
    # from ply 30 on the game is over: the loss is counted, the fall is not
    material_swings.main(["--variant", "normal", str(games)])
    assert "losses 1: 0 fell" in capsys.readouterr().out


def test_an_unreadable_pgn_is_one_line_and_status_2(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "missing.pgn")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
