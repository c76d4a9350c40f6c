"""Tests for fairymax/loader.py and pieces.ini: Fairy-Max's fmax.ini format and our extensions."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from fairymax.loader import (IniError, PieceSpec, VariantSpec, default_ini_path, load_default,
                             load_file, second_step, split_step, to_int32)

FMAX_INI = Path("/usr/share/games/fairymax/fmax.ini")
FAIRYMAX = Path("/usr/games/fairymax")
REPO = Path(__file__).resolve().parent.parent
needs_fmax = pytest.mark.skipif(not FMAX_INI.is_file(), reason="Debian fairymax's fmax.ini not installed")

# The 42 Game: blocks of Fairy-Max 5.0b's fmax.ini, in file order.
FMAX_NAMES = [
    "normal", "nocastle", "shatranj", "asean", "makruk", "Cambodian", "Ai-wok", "cambodian", "ai-wok",
    "courier", "knightmate", "capablanca", "gothic", "janus", "falcon", "cylinder", "berolina", "super",
    "seirawan", "spartan",
    "fairy/FIDE-Clobberers", "fairy/Clobberers-FIDE", "fairy/FIDE-Nutters", "fairy/Nutters-FIDE",
    "fairy/Clobberers-Nutters", "fairy/Nutters-Clobberers", "fairy/FIDE-Rookies", "fairy/Rookies-FIDE",
    "fairy/Clobberers-Rookies", "fairy/Rookies-Clobberers", "fairy/Nutters-Rookies", "fairy/Rookies-Nutters",
    "great", "light-brigade", "king-of-the-hill", "bifurcator", "team-mate", "los-alamos", "ciccolini",
    "mexican", "grande-acedrex", "roman", "almost-wildebeest",
]
# Fairy-Max's "variants" feature (plus every fairy/... block, selected by "variant fairy").
REQUIRED_NAMES = [
    "normal", "nocastle", "shatranj", "asean", "makruk", "cambodian", "ai-wok", "courier", "knightmate",
    "capablanca", "gothic", "janus", "falcon", "cylinder", "berolina", "super", "seirawan", "spartan",
    "great", "light-brigade", "king-of-the-hill", "bifurcator", "team-mate", "los-alamos", "ciccolini",
    "mexican", "grande-acedrex", "roman", "almost-wildebeest",
] + [n for n in FMAX_NAMES if n.startswith("fairy/")]


@pytest.fixture(scope="module")
def fmax() -> dict[str, VariantSpec]:
    if not FMAX_INI.is_file():
        pytest.skip("Debian fairymax's fmax.ini not installed")
    return load_file(FMAX_INI)


@pytest.fixture(scope="module")
def ours() -> dict[str, VariantSpec]:
    return load_default()


def rays_of(spec: VariantSpec, number: int) -> list[tuple[int, int]]:
    return spec.pieces[number - 1].rays


# ---- helpers ------------------------------------------------------------------------------

def test_to_int32_and_steps():
    assert to_int32(0xFFFF0070) == -65424
    assert to_int32(0x7FFFFFFF) == 2**31 - 1
    assert to_int32(0x80000000) == -2**31
    assert split_step(14) == (-2, 1)
    assert split_step(-33) == (-1, -2)
    assert split_step(-52) == (-4, -3)
    assert split_step(35) == (3, 2)
    assert second_step(16, 0x1F070) == 15          # Horse: 16,1F070 = one step down, then diagonal
    assert second_step(1, to_int32(0xFFFF0070)) == -15
    assert second_step(13, to_int32(0xFFFFF207)) == -14


# ---- Fairy-Max's own fmax.ini -------------------------------------------------------------

def test_fmax_ini_all_blocks(fmax):
    assert list(fmax) == FMAX_NAMES
    assert "(start-up game)" not in fmax


def test_fmax_ini_normal(fmax):
    s = fmax["normal"]
    assert (s.width, s.height, s.zone, s.pawn_row) == (8, 8, 1, 1)
    assert s.info == "FIDE Chess (a.k.a. Mad Queen variant)"
    assert s.white_setup == [8, 5, 6, 9, 3, 6, 5, 8]
    assert s.black_setup == [8, 5, 6, 9, 4, 6, 5, 8]
    assert [p.letter for p in s.pieces] == list("ppkknbQRS")
    assert s.pieces[8] == PieceSpec("S", 851, [(1, 3), (16, 3), (15, 3), (17, 3), (-1, 3), (-16, 3),
                                               (-15, 3), (-17, 3)], s.pieces[8].line)
    assert rays_of(s, 1) == [(-16, 0x24), (-16, 6), (-15, 5), (-17, 5)]
    assert s.pieces[2].royal and not s.pieces[4].royal
    assert s.pieces[4].centralized and not s.pieces[6].centralized
    assert (s.piece_to_char, s.parent, s.gui_lines) == (None, None, [])
    assert (s.promote, s.bare_king, s.stalemate) == (None, False, None)
    assert s.file == str(FMAX_INI) and s.line == 324


def test_fmax_ini_cambodian_negative_modes(fmax):
    s = fmax["cambodian"]
    assert s.piece_to_char == "PN.R.M....SKpn.r.m....sk" and s.parent == "makruk"
    assert s.zone == 3 and s.pawn_row == 2
    assert s.info == "Cambodian Chess. Like Makruk, but with extra initial King and Met moves"
    assert s.gui_lines == ["K& KiN", "M& FifD"]
    king = rays_of(s, 3)
    assert king[-4:] == [(-16, 0x10F4), (-16, 0x1F0F4), (-1, 0x100F4), (1, -65292)]
    assert king[-1][1] == to_int32(0xFFFF00F4) < 0
    assert rays_of(s, 7)[-2:] == [(16, 0xF4), (-16, 0xF4)]
    assert "Cambodian" in fmax and fmax["Cambodian"].parent is None     # names are case-sensitive


def test_fmax_ini_step2_rays(fmax):
    # grande-acedrex Unicorn "14,3,15 ... -31,3,-15": mode + ((step2 ^ step) << 12)
    acedrex = fmax["grande-acedrex"]
    assert (acedrex.width, acedrex.height, acedrex.zone, acedrex.pawn_row) == (12, 12, -3, 3)
    unicorn = rays_of(acedrex, 9)
    assert unicorn[0] == (14, 0x1003) and unicorn[1] == (31, 0x10003)
    assert unicorn[4] == (-14, 0x3003) and unicorn[5] == (-31, 0x10003)
    assert [second_step(st, md) for st, md in unicorn] == [15, 15, 17, 17, -15, -15, -17, -17]
    # ciccolini King "1,34,2 -1,34,-2" == Capablanca's "1,3034 -1,1034"
    assert rays_of(fmax["ciccolini"], 8)[:2] == [(1, 0x3034), (-1, 0x1034)]
    assert rays_of(fmax["capablanca"], 3)[:2] == [(1, 0x3034), (-1, 0x1034)]


def test_fmax_ini_other_spot_checks(fmax):
    falcon = rays_of(fmax["falcon"], 8)
    assert falcon[0] == (13, to_int32(0xFFFFF207)) and falcon[3] == (47, 0x10207)
    assert fmax["falcon"].gui_lines == ["F& aflafrKafraflKafafsKafsafK"]
    assert rays_of(fmax["team-mate"], 7)[0] == (14, to_int32(0xFFFF1043))
    assert rays_of(fmax["bifurcator"], 6)[4] == (1, 0x10CB8)
    assert fmax["asean"].zone == -2 and fmax["asean"].pawn_row == 2
    assert fmax["spartan"].pieces[10].value == -435
    assert fmax["king-of-the-hill"].pieces[2].value == -2
    assert fmax["king-of-the-hill"].info.startswith("Apart from mate")     # the line directly above
    assert fmax["light-brigade"].parent == "nocastle"
    assert fmax["almost-wildebeest"].pieces[8].value == -2
    assert len(fmax["super"].pieces) == 15
    assert fmax["courier"].width == 12


def test_piece_number_rule(fmax):
    asean = fmax["asean"]
    assert asean.piece_number("B", 0) == 4 and asean.piece_number("b", 1) == 5
    assert asean.piece_number("x", 0) == 0
    nr = fmax["fairy/Nutters-Rookies"]
    assert nr.piece_number("h", 0) == 4 and nr.piece_number("H", 1) == 10


# ---- pieces.ini ---------------------------------------------------------------------------

def test_default_path():
    assert default_ini_path() == REPO / "pieces.ini"
    assert default_ini_path().is_file()


def test_pieces_ini_names(ours):
    for name in REQUIRED_NAMES:
        assert name in ours, name
    assert list(ours) == FMAX_NAMES + ["crazyhouse", "xiangqi", "shogi", "minishogi"]


def test_pieces_ini_extensions(ours):
    assert ours["normal"].promote == ("QRBN", "qrbn")
    assert ours["normal"].promotion_numbers(0) == [7, 8, 6, 5]        # Q is #7; S (#9) is the original
    assert ours["spartan"].promote == ("QRBN", "wglc")
    assert ours["spartan"].promotion_numbers(1) == [9, 10, 3, 8]
    assert ours["light-brigade"].promote == ("Q", "n")
    assert ours["seirawan"].promote == ("QRBNHE", "qrbnhe")
    assert ours["capablanca"].promote == ("QCARBN", "qcarbn")
    assert ours["knightmate"].promote == ("QMRB", "qmrb")
    assert ours["los-alamos"].promote == ("QRN", "qrn")
    assert ours["makruk"].promote == ("M", "m")
    assert ours["grande-acedrex"].promote is None
    for name in ("shatranj", "courier"):
        assert ours[name].bare_king and ours[name].stalemate == "loss"
    assert ours["great"].bare_king and ours["great"].stalemate is None
    assert not ours["normal"].bare_king and ours["normal"].stalemate is None


def test_pieces_ini_promotion_defaults(ours):
    """The preferred (first) promotion piece is Fairy-Max's own: #7, or #9 for Black by its rule."""
    for name, spec in ours.items():
        if spec.promote is None or name == "light-brigade":
            continue
        white, black = set(spec.white_setup), set(spec.black_setup)
        black_default = 9 if (7 in white and 7 not in black and 9 in black) else 7
        assert spec.promotion_numbers(0)[0] == 7, name
        assert spec.promotion_numbers(1)[0] == black_default, name


# Piece letters pieces.ini changes to the ones XBoard uses for the variants it knows
# (XBoard's Janus piece is J, Fairy-Max's ini calls it A); the moves are untouched.
LETTER_CHANGES = {("janus", "A"): "J"}


@needs_fmax
def test_pieces_ini_rules_identical_to_fmax(ours, fmax):
    """Every block has fmax.ini's pieces, setup, zone, pieceToChar, parent, info and GUI lines
    (letters only where LETTER_CHANGES says)."""
    ours_lines = default_ini_path().read_text().splitlines()
    fmax_lines = FMAX_INI.read_text().splitlines()
    for name, theirs in fmax.items():
        mine = ours[name]
        for attr in ("info", "width", "height", "zone", "white_setup", "black_setup",
                     "piece_to_char", "parent", "gui_lines"):
            assert getattr(mine, attr) == getattr(theirs, attr), (name, attr)
        assert len(mine.pieces) == len(theirs.pieces), name
        for a, b in zip(mine.pieces, theirs.pieces):
            letter = LETTER_CHANGES.get((name, b.letter), b.letter)
            assert (a.letter, a.value, a.rays) == (letter, b.value, b.rays), name
            assert ours_lines[a.line - 1].split()[1:] == fmax_lines[b.line - 1].split()[1:], name
        assert ours_lines[mine.line - 1].split() == fmax_lines[theirs.line - 1].split(), name


@pytest.mark.skipif(not (FAIRYMAX.is_file() and FMAX_INI.is_file()), reason="fairymax not installed")
def test_fairymax_reads_pieces_ini_like_fmax_ini():
    """Fairy-Max itself accepts pieces.ini: same variants feature, same setup/piece lines per variant."""
    script = "xboard\nprotover 2\n" + "".join(f"variant {n}\n" for n in FMAX_NAMES) + "quit\n"

    def run(ini: Path) -> list[str]:
        out = subprocess.run([str(FAIRYMAX), "16", str(ini)], input=script, capture_output=True,
                             text=True, timeout=30).stdout
        return [line.rstrip("\r") for line in out.splitlines()
                if not line.startswith("feature option=\"Ini File")]

    mine, theirs = run(default_ini_path()), run(FMAX_INI)
    assert any(line.startswith("feature variants=") for line in theirs)
    assert any(line.startswith("piece K& KiN") for line in theirs)
    assert mine == theirs


# ---- malformed files ----------------------------------------------------------------------

HEAD = "version 4.8(w)\n"
PAWNS = "p:100 -16,24 -16,6 -15,5 -17,5\np:100 16,24 16,6 15,5 17,5\n"
KING = "k:-1 1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7\n"
QUEEN = "Q:900 1,3 16,3 15,3 17,3 -1,3 -16,3 -15,3 -17,3\n"
SETUP = "4 0 0 0 3 0 0 0\n4 0 0 0 3 0 0 0\n"


def game(name="mini", board="8x8", setup=SETUP, pieces=PAWNS + KING + QUEEN, tail=""):
    return f"// info\nGame: {name}\n{board}\n{setup}{pieces}{tail}"


# (id, file text, line number, text expected in the message)
BROKEN = [
    ("empty", "", 1, "version"),
    ("bad-version", "version 4.7(w)\n" + game(), 1, "version 4.8(w)"),
    ("bad-board", HEAD + game(board="8by8"), 4, "board size"),
    ("wide-board", HEAD + game(board="15x8"), 4, "at most 14 files"),
    ("tall-board", HEAD + game(board="8x17"), 4, "16 ranks"),
    ("zero-zone", HEAD + game(board="8x8=0"), 4, "=0"),
    ("zone-too-deep", HEAD + game(board="8x5=3"), 4, "pawns"),
    ("no-board", HEAD + "Game: x\n", 3, "missing board"),
    ("lateral-leap", HEAD + game(board="14x8", setup="4 0 0 0 3 0 0 0 0 0 0 0 0 0\n" * 2,
                                 pieces=PAWNS + KING + "c:300 13,7 -13,7\n"), 4, "16-L"),
    ("setup-count", HEAD + game(setup="4 0 0 3 0 0 0\n4 0 0 0 3 0 0 0\n"), 5, "expected 8"),
    ("setup-not-int", HEAD + game(setup="4 0 0 0 3 0 0 0\n4 0 0 0 K 0 0 0\n"), 6, "'K'"),
    ("setup-unknown-piece", HEAD + game(setup="4 0 0 0 3 0 0 9\n4 0 0 0 3 0 0 0\n"), 5, "piece number 9"),
    ("setup-negative", HEAD + game(setup="4 0 0 0 3 0 0 0\n4 0 -1 0 3 0 0 0\n"), 6, "piece number -1"),
    ("missing-setup", HEAD + "Game: x\n8x8\n4 0 0 0 3 0 0 0\n", 5, "missing black setup"),
    ("bad-value", HEAD + game(pieces=PAWNS + "k:-1x 1,7\n"), 9, "value"),
    ("bad-letter", HEAD + game(pieces=PAWNS + "1:5 1,7\n"), 9, "letter"),
    ("non-hex-mode", HEAD + game(pieces=PAWNS + "k:-1 1,7 16,7G\n"), 9, "hex"),
    ("long-mode", HEAD + game(pieces=PAWNS + "k:-1 1,123456789\n"), 9, "hex"),
    ("non-int-step", HEAD + game(pieces=PAWNS + "k:-1 1.5,7\n"), 9, "not an integer"),
    ("bad-step2", HEAD + game(pieces=PAWNS + "k:-1 1,34,x\n"), 9, "second step"),
    ("ray-no-mode", HEAD + game(pieces=PAWNS + "k:-1 16\n"), 9, "step,hexmode"),
    ("ray-four-parts", HEAD + game(pieces=PAWNS + "k:-1 1,7,2,3\n"), 9, "step,hexmode"),
    ("zero-step", HEAD + game(pieces=PAWNS + "k:-1 0,7\n"), 9, "non-zero"),
    ("rank-leap", HEAD + game(pieces=PAWNS + "k:-1 80,7\n"), 9, "ranks"),
    ("too-many-pieces", HEAD + game(pieces=PAWNS + KING * 14), 22, "too many piece types"),
    ("too-many-rays", HEAD + game(pieces=PAWNS + "k:-1" + " 1,7" * 200 + "\n" + "Q:9" + " 1,3" * 50 + "\n"),
     10, "too many rays"),
    ("no-pieces", HEAD + game(pieces="\n// next\n"), 7, "no piece lines"),
    ("one-piece", HEAD + game(pieces="p:100 -16,6\nsome comment\n"), 8, "only one piece"),
    ("duplicate-name", HEAD + game() + "\n" + game(), 13, "duplicate Game name"),
    ("bad-game-line", HEAD + "Game: x y\n8x8\n" + SETUP + PAWNS, 2, "Game line"),
    ("empty-game-line", HEAD + "Game:\n8x8\n" + SETUP + PAWNS, 2, "Game line"),
    ("gui-without-bare-hash", HEAD + game(tail="# K& KiN\n"), 11, "bare '#'"),
    ("bad-gui-line", HEAD + game(tail="#\n# 12 bad\n"), 12, "GUI line"),
    ("hash-after-extension", HEAD + game(tail="Promote: Q\n#\n# K& KiN\n"), 12, "after an extension"),
    ("promote-unknown", HEAD + game(tail="Promote: Q X\n"), 11, "'X' is not a piece letter"),
    ("promote-royal", HEAD + game(tail="Promote: Q K\n"), 11, "royal"),
    ("promote-pawn", HEAD + game(tail="Promote: P\n"), 11, "pawn"),
    ("promote-empty", HEAD + game(tail="Promote:\n"), 11, "no white promotion letters"),
    ("promote-empty-black", HEAD + game(tail="Promote: Q /\n"), 11, "no black"),
    ("promote-three-sets", HEAD + game(tail="Promote: Q / Q / Q\n"), 11, "white letters / black"),
    ("promote-twice", HEAD + game(tail="Promote: Q\npromote: Q\n"), 12, "duplicate"),
    ("promote-letter-twice", HEAD + game(tail="Promote: QQ\n"), 11, "twice"),
    ("bare-king-value", HEAD + game(tail="BareKing: win\n"), 11, "BareKing"),
    ("stalemate-value", HEAD + game(tail="Stalemate: maybe\n"), 11, "Stalemate"),
    ("startup-game-bad", HEAD + "8x8\n1 2 3\n", 3, "setup"),
    ("drops-in-plain-game", HEAD + game(tail="Drops: all\n"), 3, "Game+: mini"),
    ("drops-unknown-piece", HEAD + game(tail="Drops: X 2-7\n").replace("Game:", "Game+:"), 11,
     "'X' is not a piece"),
    ("drops-bad-ranks", HEAD + game(tail="Drops: P 0-7\n").replace("Game:", "Game+:"), 11, "ranks 0-7"),
    ("drops-garbage", HEAD + game(tail="Drops: P 2-7 x\n").replace("Game:", "Game+:"), 11,
     "LETTER FIRST-LAST"),
    ("mirror-in-plain-game", HEAD + game(tail="Mirror: Q\n"), 3, "Game+: mini"),
    ("mirror-pawn", HEAD + game(tail="Mirror: P\n").replace("Game:", "Game+:"), 11, "each colour"),
    ("mirror-unknown", HEAD + game(tail="Mirror: X\n").replace("Game:", "Game+:"), 11, "'X' is not a piece"),
    ("promotes-without-zone", HEAD + game(tail="Promotes: P=Q\n").replace("Game:", "Game+:"), 11,
     "go together"),
    ("zone-without-promotes", HEAD + game(tail="PromotionZone: 6-8\n").replace("Game:", "Game+:"), 11,
     "go together"),
    ("promotes-bad-pair", HEAD + game(tail="Promotes: P-Q\n").replace("Game:", "Game+:"), 11,
     "LETTER=LETTER"),
    ("promotes-royal", HEAD + game(tail="Promotes: P=K\n").replace("Game:", "Game+:"), 11, "royal"),
    ("promotes-chain", HEAD + game(tail="Promotes: P=Q Q=P\n").replace("Game:", "Game+:"), 11,
     "promotes a"),
    ("zone-bad-ranks", HEAD + game(tail="Promotes: P=Q\nPromotionZone: 6-9\n").replace("Game:", "Game+:"),
     12, "ranks 6-9"),
    ("one-per-file-without-drops", HEAD + game(tail="OnePerFile: P\n").replace("Game:", "Game+:"), 11,
     "need a Drops"),
    ("no-drop-mate-unknown", HEAD + game(tail="Drops: all\nNoDropMate: X\n").replace("Game:", "Game+:"),
     12, "'X' is not a piece"),
    ("repetition-in-plain-game", HEAD + game(tail="Repetition: 4\n"), 3, "Game+: mini"),
    ("repetition-count", HEAD + game(tail="Repetition: 1\n").replace("Game:", "Game+:"), 11, "count 2-9"),
    ("repetition-word", HEAD + game(tail="Repetition: four\n").replace("Game:", "Game+:"), 11, "count 2-9"),
    ("perpetual-check-value", HEAD + game(tail="PerpetualCheck: draw\n").replace("Game:", "Game+:"), 11,
     "PerpetualCheck"),
    ("fifty-moves-value", HEAD + game(tail="FiftyMoves: 60\n").replace("Game:", "Game+:"), 11, "FiftyMoves"),
    ("fifty-moves-in-plain-game", HEAD + game(tail="FiftyMoves: checks-excluded\n"), 3, "Game+: mini"),
]


@pytest.mark.parametrize("text, line, fragment", [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_file(tmp_path, text, line, fragment):
    path = tmp_path / "bad.ini"
    path.write_text(text)
    with pytest.raises(IniError) as info:
        load_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert fragment in message, message
    assert info.value.line == line and info.value.file == str(path)


def test_missing_file(tmp_path):
    with pytest.raises(IniError, match=r":0: cannot read file"):
        load_file(tmp_path / "nope.ini")


def test_good_minimal_file(tmp_path):
    path = tmp_path / "ok.ini"
    path.write_text(HEAD + game(tail="#\n# Q& Q\nPromote: Q / q\nBareKing: LOSS\nStalemate: draw\n")
                    + "\n// second\nGame: two # PQKpqk # fairy\n8x8=-2\n" + SETUP + PAWNS + KING + QUEEN)
    specs = load_file(path)
    assert list(specs) == ["mini", "two"]
    mini = specs["mini"]
    assert (mini.info, mini.gui_lines, mini.promote, mini.bare_king, mini.stalemate) == \
        ("info", ["Q& Q"], ("Q", "q"), True, "draw")
    assert (specs["two"].info, specs["two"].zone, specs["two"].parent) == ("second", -2, "fairy")


def test_crlf_and_comments_between(tmp_path):
    """CRLF line ends, blank lines inside the structure, and piece-like comment lines after it."""
    text = HEAD + "Game: c\n\n8x8\n" + SETUP + PAWNS + "\n" + KING + QUEEN + "\nnote: a comment\nx:5 junk\n"
    path = tmp_path / "crlf.ini"
    path.write_bytes(text.replace("\n", "\r\n").encode())
    spec = load_file(path)["c"]
    assert len(spec.pieces) == 4 and spec.pieces[3].letter == "Q"


def test_mutations_raise_only_ini_error(tmp_path):
    """Random edits of a valid file either load or give IniError with FILE:LINE, never another exception."""
    base = HEAD + game(tail="#\n# Q& Q\nPromote: Q\n") + "\n" + game(name="b", board="10x8=3",
                                                                    setup="4 0 0 0 3 0 0 0 0 0\n" * 2)
    alphabet = "0123456789,:#=x-/ \nabcdefFPQKGame"
    rng = random.Random(1234)
    path = tmp_path / "m.ini"
    for _ in range(400):
        chars = list(base)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(chars))
            op = rng.random()
            if op < 0.4:
                chars[pos] = rng.choice(alphabet)
            elif op < 0.7:
                del chars[pos]
            else:
                chars.insert(pos, rng.choice(alphabet))
        path.write_text("".join(chars))
        try:
            load_file(path)
        except IniError as exc:
            assert str(exc).startswith(f"{path}:")


def test_shogi_extensions(ours):
    shogi = ours["shogi"]
    assert shogi.mirror == "LNSGTYEI"
    assert shogi.promotions == {"P": "T", "L": "Y", "N": "E", "S": "I", "B": "H", "R": "D"}
    assert shogi.promotion_zone == (7, 9)
    assert shogi.drops == {"P": (1, 8), "L": (1, 8), "N": (1, 7)}
    assert (shogi.drop_one_per_file, shogi.drop_may_not_mate) == ("P", "P")
    assert ours["minishogi"].promotion_zone == (5, 5)


def test_gating_extension(ours, tmp_path):
    assert ours["seirawan"].gating == "HE"
    assert all(spec.gating is None for name, spec in ours.items() if name != "seirawan")
    path = tmp_path / "gate.ini"
    path.write_text(HEAD + game(tail="Gating: K\n"))
    with pytest.raises(IniError, match=r"gate\.ini:\d+: Gating:"):
        load_file(path)
