"""Readers for the reference perft files (independent counts, copied unchanged from the
team's shared/perft; tests/perft/SOURCES.md says where every count came from)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

PERFT_DIR = Path(os.environ.get("FAIRYMAX_PERFT_DIR", Path(__file__).resolve().parent / "perft"))


@dataclass
class PerftCase:
    name: str           # comment-derived label, for test ids
    variant: str
    fen: str | None     # None: play `moves` from the start position
    moves: list[str] = field(default_factory=list)
    counts: dict[int, int] = field(default_factory=dict)
    trust_upto: int | None = None    # deepest depth whose count follows our rules (None: all)


def _counts(text: str) -> dict[int, int]:
    out = {}
    for part in text.split(";"):
        part = part.strip()
        if part:
            depth, count = part.split()
            out[int(depth[1:])] = int(count)
    return out


def _label(comment: str, index: int) -> str:
    label = comment.lstrip("# ").split(":")[0].split(";")[0].strip().replace(" ", "")
    return f"{index:02d}-{label}" if label else f"{index:02d}"


def _entries(filename: str):
    """(comment above, text before " ;", counts) for each position line of a reference file.
    The comment is the last '#' line that names the position (not a '#   reached' move list)."""
    comment = ""
    for line in (PERFT_DIR / filename).read_text().splitlines():
        if line.startswith("#"):
            if not line.startswith("#   reached"):
                comment = line
            continue
        head, _, rest = line.partition(" ;")
        yield comment, head, _counts(rest)


def chess_cases() -> list[PerftCase]:
    cases = []
    for comment, fen, counts in _entries("chess.epd"):
        cases.append(PerftCase(_label(comment, len(cases)), "normal", fen.strip(), counts=counts))
    return cases


def variant_cases() -> list[PerftCase]:
    """variants.epd lines (Fairy-Stockfish counts) whose rules agree with ours."""
    cases = []
    for comment, head, counts in _entries("variants.epd"):
        tokens = head.split()
        keys = dict(t.split("=", 1) for t in tokens if "=" in t and "/" not in t)
        fen = " ".join(t for t in tokens if not ("=" in t and "/" not in t))
        trust = keys.get("trust", "yes")
        if trust == "no":
            continue
        upto = int(trust.split("=D")[1]) if trust.startswith("upto") else None
        cases.append(PerftCase(_label(comment, len(cases)), keys["variant"], fen, counts=counts,
                               trust_upto=upto))
    return cases


def fmax_rule_cases() -> list[PerftCase]:
    """fmax-rules.epd: counts under Fairy-Max 5.0b's own rules (one promotion choice)."""
    cases = []
    for comment, head, counts in _entries("fmax-rules.epd"):
        keys = dict(t.split("=", 1) for t in head.split())
        moves = [] if keys["moves"] == "-" else keys["moves"].split(",")
        cases.append(PerftCase(_label(comment, len(cases)), keys["variant"], None, moves, counts))
    return cases


def drop_cases(playable: set[str]) -> list[PerftCase]:
    """drops.epd lines (Fairy-Stockfish counts) of the variants in `playable`: the drop
    games and xiangqi, which pieces.ini gains one at a time."""
    cases = []
    for comment, head, counts in _entries("drops.epd"):
        variant, _, fen = head.partition(" ")
        name = variant.split("=", 1)[1]
        if name in playable:
            cases.append(PerftCase(_label(comment, len(cases)), name, fen.strip(), counts=counts))
    return cases
