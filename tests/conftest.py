"""Shared fixtures: the variant files and a board factory."""
from __future__ import annotations

from pathlib import Path

import pytest

from fairymax import loader
from fairymax.board import Board
from fairymax.variant import Variant

FMAX_INI = Path("/usr/share/games/fairymax/fmax.ini")


@pytest.fixture(scope="session")
def ours():
    """Variants of the project's pieces.ini."""
    return loader.load_default()


@pytest.fixture(scope="session")
def fmax():
    """Variants of Fairy-Max's own fmax.ini (Debian package fairymax)."""
    if not FMAX_INI.is_file():
        pytest.skip("fairymax package not installed")
    return loader.load_file(FMAX_INI)


def board_of(specs, name: str, fen: str | None = None) -> Board:
    board = Board(Variant(specs[name]))
    if fen:
        board.set_fen(fen)
    return board
