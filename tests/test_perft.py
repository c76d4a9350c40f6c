"""Move generation against independent perft counts (../shared/perft, see its README).

- chess.epd (Stockfish / python-chess counts) and variants.epd (Fairy-Stockfish counts,
  lines where the README says the rules agree) run with pieces.ini, whose Promote: lines
  give the official promotion sets those engines count.
- fmax-rules.epd (Fairy-Max 5.0b's own generator) runs with Fairy-Max's fmax.ini, where a
  pawn promotes to one piece only, as in Fairy-Max.
- drops.epd (Fairy-Stockfish counts) runs for the drop games and xiangqi that pieces.ini
  has (DROP_VARIANTS).
CI runs every depth up to NODE_BUDGET leaves; `pytest -m slow` runs the rest.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import board_of
from perft_data import chess_cases, drop_cases, fmax_rule_cases, variant_cases

NODE_BUDGET = 1_000_000
SLOW_BUDGET = 50_000_000
# Lines whose deeper counts follow a rule of Fairy-Stockfish that Fairy-Max does not
# share, beyond what the reference README lists: the deepest depth still comparable.
# seirawan random12 D4: Fairy-Stockfish refuses a gating move whose gated piece is what
# shields the royal (Qd8-d7 + Hawk on d8 against a Queen on c8); Fairy-Max, and the
# S-chess rules, allow it, so we count 101 more moves.
COMPARABLE_UPTO = {"38-seirawan/random12": 3}
# the variants of drops.epd that pieces.ini defines
DROP_VARIANTS = {"crazyhouse", "xiangqi", "shogi", "minishogi"}


def depths(case, budget_low, budget_high):
    return [(d, n) for d, n in sorted(case.counts.items())
            if budget_low < n <= budget_high and (case.trust_upto is None or d <= case.trust_upto)]


def params(cases, slow):
    out = []
    for case in cases:
        low, high = (NODE_BUDGET, SLOW_BUDGET) if slow else (0, NODE_BUDGET)
        todo = [(d, n) for d, n in depths(case, low, high) if d <= COMPARABLE_UPTO.get(case.name, 99)]
        if todo:
            out.append(pytest.param(case, todo, id=f"{case.variant}-{case.name}"))
    return out


def run(specs, case, todo):
    board = board_of(specs, case.variant, case.fen)
    for text in case.moves:
        board.push(board.parse_move(text))
    for depth, expected in todo:
        assert board.perft(depth) == expected, f"depth {depth}; divide: {board.divide(depth)}"


@pytest.mark.parametrize("case,todo", params(chess_cases(), False))
def test_chess(ours, case, todo):
    run(ours, case, todo)


@pytest.mark.parametrize("case,todo", params(variant_cases(), False))
def test_variants(ours, case, todo):
    run(ours, case, todo)


@pytest.mark.parametrize("case,todo", params(fmax_rule_cases(), False))
def test_fmax_rules(fmax, case, todo):
    run(fmax, case, todo)


@pytest.mark.slow
@pytest.mark.parametrize("case,todo", params(chess_cases(), True))
def test_chess_deep(ours, case, todo):
    run(ours, case, todo)


@pytest.mark.slow
@pytest.mark.parametrize("case,todo", params(variant_cases(), True))
def test_variants_deep(ours, case, todo):
    run(ours, case, todo)


@pytest.mark.slow
@pytest.mark.parametrize("case,todo", params(fmax_rule_cases(), True))
def test_fmax_rules_deep(fmax, case, todo):
    run(fmax, case, todo)


@pytest.mark.parametrize("case,todo", params(drop_cases(DROP_VARIANTS), False))
def test_drops(ours, case, todo):
    run(ours, case, todo)


@pytest.mark.slow
@pytest.mark.parametrize("case,todo", params(drop_cases(DROP_VARIANTS), True))
def test_drops_deep(ours, case, todo):
    run(ours, case, todo)


def test_references_cover_every_case():
    """The budget leaves at least depth 1 of every reference line in the fast run."""
    for case in chess_cases() + variant_cases() + fmax_rule_cases() + drop_cases(DROP_VARIANTS):
        assert min(case.counts.values()) <= NODE_BUDGET, case.name


# ---------------------------------------------------------------- courier: Sjaak II's counts

SJAAKII = "/usr/games/sjaakii"
SJAAKII_COURIER = Path(__file__).resolve().parent.parent / "scripts" / "sjaakii_courier.cfg"
# the start, positions with promotions (plain and capturing) and with the short leapers,
# and a made-up middle game
COURIER_FENS = [
    "rnebmkfwbenr/pppppppppppp/12/12/12/12/PPPPPPPPPPPP/RNEBMKFWBENR w - - 0 1",
    "4k7/1P9p/12/12/12/12/p10P/5K6 w - - 0 1",
    "2r1k7/1P9p/12/12/12/12/p10P/1N3K6 b - - 0 1",
    "5k2w3/12/12/4E7/12/12/2W9/5K2M3 w - - 0 1",
    "r1eb1k1w1enr/p1p1pppppp1p/1p1n2f5/3p4b1p1/3P2m5/1PN1P1F1B3/P1P2PPPPPPP/R1E1MKBW1ENR w - - 0 1",
]


@pytest.mark.skipif(not Path(SJAAKII).exists(), reason="needs sjaakii")
def test_courier_perft_agrees_with_sjaakii(ours):
    """Sjaak II, given scripts/sjaakii_courier.cfg, counts the same courier moves: the
    file that makes it a valid courier opponent in matches."""
    commands = "variant courier\n" + "".join(f"setboard {fen}\nperft 3\n" for fen in COURIER_FENS)
    out = subprocess.run([SJAAKII, str(SJAAKII_COURIER)], input=commands + "quit\n",
                         capture_output=True, text=True, timeout=120).stdout
    out = re.sub(r"\x1b\[[0-9;]*m", "", out)        # its colour codes
    theirs = [int(n) for n in re.findall(r"(?m)^(?:#.*> )?\s*3\s+(\d+)\s+[0-9.]+\s+[0-9.]+nps", out)]
    assert theirs == [board_of(ours, "courier", fen).perft(3) for fen in COURIER_FENS]
