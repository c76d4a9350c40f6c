"""Read variant files in Fairy-Max's ``fmax.ini`` format into plain dataclasses.

The format (Fairy-Max 5.0b; see ``/work/shared/docs/fairymax.md`` section 1)::

    version 4.8(w)              line 1, exactly
    8x8                         start-up game (text before the first "Game:"; not a variant)
    ...
    // Info text shown by the GUI's Info button
    Game: name[ # pieceToChar[ # parent]]
    FxR[=N]                     board: F files (<= 14), R ranks (<= 16), optional zone N
    6 4 5 7 3 5 4 6             white back rank, a-file first, as piece numbers (0 = empty)
    6 4 5 7 3 5 4 6             black back rank
    p:74 -16,24 -16,6 ...       piece 1 = white Pawn:  letter:value ray ray ...
    p:74 16,24 16,6 ...         piece 2 = black Pawn;  then up to 13 more pieces
    #                           optional bare '#' line, then GUI lines
    # P& fmWfcF                 sent to the GUI as "piece P& fmWfcF"
    Promote: QRBN               extension lines (pieces.ini only, see below)

A ray is ``step,hexmode[,step2]``: ``step`` is a decimal step on a 16-wide board
(-16 = one rank towards rank 8, +1 = one file towards the h-file); ``hexmode`` is up
to 8 hex digits read as a signed 32-bit word (``FFFF0070`` is negative); with
``step2`` the stored mode is ``mode + ((step2 ^ step) << 12)`` in 32-bit two's
complement, as Fairy-Max computes it.

A piece line may give no rays (``n:300``) when the block has a GUI line for its letter
(``# N& N``): the piece's rays are then compiled from that line's Betza notation
(:mod:`fairymax.betza`), so XBoard and the engine read the same definition.  Fairy-Max
reads such a piece as one that cannot move, and still sends the GUI line to XBoard.

Like Fairy-Max, a block's piece lines are the contiguous lines after the setup lines
that look like ``c:value ...`` (blank lines in between are skipped, as Fairy-Max's
``fscanf`` skips white space); the first other line ends them.  Every line that is
not part of a block's structure is a comment.

Extensions (pieces.ini).  Fairy-Max reads these lines as comments, because they are
not piece lines and not '#' lines, provided they come after the piece lines and
after the block's '#' lines.  Keys are case-insensitive, each at most once a block:

``Promote: QRBN`` / ``Promote: Q R B N / n``
    The promotion choices: letters of the variant's pieces, first = the engine's
    preferred piece.  One set applies to both colours; ``white / black`` gives two.
    A letter means the first piece with that letter for White and the last one for
    Black (Fairy-Max's rule).  Letters are stored upper case for White, lower case
    for Black.  Royal pieces and the pawns (pieces 1 and 2) are refused.
``BareKing: loss``
    A side left with nothing but its royal piece(s) loses (Shatranj, Courier).
``Stalemate: loss`` / ``Stalemate: draw``
    The result for the stalemated side.  Absent: Fairy-Max's default (draw, or loss
    when piece #9 has value -2).
``Gating: H E``
    Seirawan-style gating: each side starts with one of each listed piece in hand and
    may put one on the square a never-moved piece (not a pawn) leaves.  Fairy-Max
    turns this on by the game name "seirawan" (hand pieces #9 and #10); so does the
    loader when the line is absent.
``Drops: P 2-7`` / ``Drops: all``
    A drop game (crazyhouse): a captured piece goes to the capturer's hand as its own
    piece of that letter (a promoted one as a Pawn), and a move may instead put a
    piece from the hand on any empty square.  Each ``LETTER FIRST-LAST`` pair limits
    that piece's drops to those ranks, counted from the dropping side (1 = its own
    back rank); ``all`` means no limits.
``Start: FEN``
    The start position, where the setup lines cannot give it (xiangqi).
``Region: KA d-f 1-3, B a-i 1-5``
    Those pieces may only stand on those files and ranks (ranks counted from the
    owner's side): xiangqi's palace and own half.
``RayRanks: P 6-10 1,7 -1,7``
    Those rays of the piece start only from those ranks, counted from its owner's side.
``FacingRoyals: illegal``
    The two royals may not stand on one file with nothing between them.
``Promote: none``
    Pawns never promote.
``Mirror: L N S G``
    Each of these pieces is one type for both colours: its rays are White's, and
    Black moves it with the ranks reversed (shogi's Lance, Knight, Silver, Gold).
    Such a piece may take its moves from a ``# L& Betza`` line, read as White's.
``Promotes: P=T L=Y B=H`` and ``PromotionZone: 7-9``
    Shogi-style promotion: the piece before '=' may become the piece after it, by
    choice, when a move starts or ends on the zone ranks (counted from the mover's
    side), and must where it could never move again (derived from its rays).  The
    promoted piece is written ``+P`` in FEN, a promotion ``7c7b+``, and a captured one
    goes to hand as the piece it came from.  Pawns then promote only this way.
``OnePerFile: P``
    No drop of the piece on a file where its side has one already (shogi's nifu).
``NoDropMate: P``
    A drop of the piece may not mate (shogi's uchifuzume).
``Counting: 64 RR=8 R=16 SS=22 NN=32 S=44``
    Thai counting (makruk), as Fairy-Stockfish applies it.  Once no pawns are left
    and both sides have more than their royal, the side to move starts the board's
    honour count of the first number of moves.  A side left with its royal alone
    counts the pieces' honour instead, from the number of pieces on the board: the
    first ``LETTERS=MOVES`` whose pieces the other side has (``RR``: two rooks or
    more) gives its limit, else the first number.  The game is drawn once the count
    passes its limit, unless the side to move is mated.  Options: ``Else=N`` the
    limit where no ``LETTERS=MOVES`` applies (0: no count); ``BoardMax=N`` the
    board's honour only for a side with at most N pieces, and pawns do not stop it
    (Cambodian); ``FromZero`` the pieces' honour counts from 0 and starts when the
    bare side is to move (ASEAN).  A first number 0 means no board's honour.
    Fairy-Max reads the line as a comment and plays such a game by the fifty-move
    rule alone.
The lines from ``Drops:`` on are rules Fairy-Max lacks: they need a block headed
``Game+: name``, which Fairy-Max skips.

Every problem in a file raises :class:`IniError` with a message ``FILE:LINE: text``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "IniError", "PieceSpec", "VariantSpec", "CountingRule", "load_file", "default_ini_path", "load_default",
    "split_step", "second_step", "to_int32",
]

VERSION_LINE = "version 4.8(w)"
MAX_FILES = 14           # Fairy-Max: BW > 14 is rejected
MAX_RANKS = 16           # Fairy-Max: BH > 16 is rejected
STRIDE = 16              # board rows are 16 cells wide; steps are encoded for this
MAX_PIECE_TYPES = 15     # piece numbers 1..15
MAX_RAYS = 255           # rays of all pieces of one variant together
MAX_RANK_LEAP = 4        # engine limit: rows of guard cells (types.pxd GUARD_ROWS)
MAX_VALUE = 32767        # |piece value| bound, so values fit any score type
MAX_REPETITION_COUNT = 9 # Repetition: N

EXTENSION_KEYS = ("promote", "bareking", "stalemate", "gating")

# the header of a block with rules Fairy-Max lacks: Fairy-Max looks for "Game:" only,
# so it neither lists nor plays such a variant
EXTENDED_GAME = "Game+:"
_GAME_RE = re.compile(r"^Game\+?:\s*(\S+)(?:\s+#\s+(\S+)(?:\s+#\s+(\S+))?)?\s*$")
_BOARD_RE = re.compile(r"^(\d+)x(\d+)(?:=([+-]?\d+))?$")
_PIECE_START_RE = re.compile(r"^(\S):\s*[+-]?\d")
_PIECE_RE = re.compile(r"^(\S):\s*(\S+)(.*)$")
_INT_RE = re.compile(r"^[+-]?\d+$")
_HEX_RE = re.compile(r"^[0-9A-Fa-f]{1,8}$")
_GUI_RE = re.compile(r"^[A-Za-z]&?\s+\S")
_EXT_RE = re.compile(r"^(promote|bareking|stalemate|gating|drops|region|rayranks|facingroyals|start|mirror|"
                     r"promotes|promotionzone|oneperfile|nodropmate|repetition|perpetualcheck|fiftymoves|counting)\s*:(.*)$",
                     re.IGNORECASE)


class IniError(ValueError):
    """A malformed variant file; ``str(e) == "FILE:LINE: message"``."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message


@dataclass
class PieceSpec:
    """One piece type of a variant: an fmax.ini line ``c:value ray ray ...``.

    ``letter`` is as written (lower case = centralised by the evaluation; for input
    and output letters are case-insensitive).  ``value`` is in centipawns; negative
    means royal.  ``rays`` holds ``(step, mode)`` with ``mode`` the full signed
    32-bit word, second-step XOR bits (``step2``) included.  ``line`` is the line
    number in the file.
    """

    letter: str
    value: int
    rays: list[tuple[int, int]]
    line: int

    @property
    def royal(self) -> bool:
        """True for royal pieces (negative value)."""
        return self.value < 0

    @property
    def centralized(self) -> bool:
        """True if the letter is lower case (Fairy-Max centralises such pieces)."""
        return self.letter.islower()


@dataclass
class CountingRule:
    """A ``Counting:`` line (Thai counting; see the module docstring): limits in moves."""

    board_moves: int                      # the board's honour limit (0: no such count)
    else_moves: int                       # a bare side's limit where no honour applies (0: none)
    # (upper-case letters the other side must have, e.g. "RR": two rooks or more, moves)
    honours: list[tuple[str, int]] = field(default_factory=list)
    board_max_pieces: int = 0             # the board's honour only for a side with at most
                                          # this many pieces, pawns or not (0: any, no pawns)
    from_zero: bool = False               # the pieces' honour counts from 0, at the bare side's move


@dataclass
class VariantSpec:
    """One ``Game:`` block of a variant file (see the module docstring).

    Piece number ``i + 1`` is ``pieces[i]``; pieces 1 and 2 are the white and black
    Pawn.  ``white_setup``/``black_setup`` list piece numbers of the back ranks from
    the a-file, 0 = empty.  ``zone`` is the N of ``=N`` (1 when absent).
    ``gui_lines`` holds the text after ``# `` of each GUI line (e.g. ``"K& KiN"``).
    ``promote``, ``bare_king`` and ``stalemate`` come from the pieces.ini extension
    lines (``None``/``False`` when absent).  ``file``/``line`` locate the ``Game:``
    line.
    """

    name: str
    info: str
    width: int
    height: int
    zone: int
    white_setup: list[int]
    black_setup: list[int]
    pieces: list[PieceSpec]
    piece_to_char: str | None
    parent: str | None
    gui_lines: list[str] = field(default_factory=list)
    promote: tuple[str, str] | None = None
    bare_king: bool = False
    stalemate: str | None = None
    gating: str | None = None    # letters of the pieces each side may gate (upper case)
    # drop game: upper-case letter -> (first, last) rank it may be dropped on, counted
    # from the dropping side (1-based); None: captured pieces leave the game
    drops: dict[str, tuple[int, int]] | None = None
    # upper-case letter -> ((first, last) file, (first, last) rank counted from the
    # owner's side), all 1-based: the squares the piece may stand on (Region:)
    regions: dict[str, tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=dict)
    # upper-case letter -> ((first, last) rank from the owner's side, rays): those rays
    # of the piece start only from those ranks (RayRanks:)
    ray_ranks: dict[str, tuple[tuple[int, int], list[tuple[int, int]]]] = field(default_factory=dict)
    facing_royals_illegal: bool = False    # FacingRoyals: illegal
    repetition_count: int = 3              # Repetition: N, the occurrence that ends the game
    perpetual_check_loses: bool = False    # PerpetualCheck: loss
    checks_not_counted: bool = False       # FiftyMoves: checks-excluded
    counting: CountingRule | None = None   # Counting:
    start_fen: str | None = None           # Start: FEN, instead of the setup lines
    no_promotion: bool = False             # Promote: none
    mirror: str = ""                       # Mirror: letters of one-type-for-both-colours pieces
    # Promotes: upper-case letter -> the upper-case letter of the piece it may become
    promotions: dict[str, str] = field(default_factory=dict)
    promotion_zone: tuple[int, int] | None = None   # PromotionZone: ranks from the mover's side
    drop_one_per_file: str = ""            # OnePerFile: letters (nifu)
    drop_may_not_mate: str = ""            # NoDropMate: letters (uchifuzume)
    file: str = ""
    line: int = 0

    def piece_number(self, letter: str, colour: int) -> int:
        """Piece number (1-based) for ``letter``, case-insensitive; 0 if none.

        Fairy-Max's rule: the first piece with the letter is White's (colour 0),
        the last one Black's (colour 1).
        """
        found = [i + 1 for i, p in enumerate(self.pieces) if p.letter.lower() == letter.lower()]
        if not found:
            return 0
        return found[0] if colour == 0 else found[-1]

    def promotion_numbers(self, colour: int) -> list[int]:
        """Piece numbers of the ``Promote:`` choices for a colour ([] when absent)."""
        if self.promote is None:
            return []
        return [self.piece_number(c, colour) for c in self.promote[colour]]

    @property
    def pawn_row(self) -> int:
        """Row of the pawns from the own back rank (0-based; 1 = the 2nd rank), as in Fairy-Max."""
        return _pawn_row(self.zone)


def to_int32(value: int) -> int:
    """``value`` wrapped to a signed 32-bit integer (two's complement)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def split_step(step: int) -> tuple[int, int]:
    """Split a 16-wide step into ``(files, ranks)``; files in -8..7, ranks +1 = towards rank 1.

    >>> split_step(14), split_step(-33), split_step(1)
    ((-2, 1), (-1, -2), (1, 0))
    """
    files = ((step + 8) & 15) - 8
    return files, (step - files) // STRIDE


def second_step(step: int, mode: int) -> int:
    """The step of a ray's second leg: ``step`` XOR the sign-extended mode bits 12 and up."""
    return step ^ (mode >> 12)


def _pawn_row(zone: int) -> int:
    """Row of the pawns counted from the own back rank (0), as Fairy-Max derives it from ``=N``.

    Fairy-Max sets zone = N-1; the pawns stand on row ``zone`` (row 1 when zone is 0),
    or on row ``-1 - zone`` = ``-N`` when N is negative (the zone then stays 1 rank).
    """
    z = zone - 1
    if z < 0:
        return -1 - z
    return z if z else 1


def _parse_ray(token: str, where: tuple[str, int]) -> tuple[int, int]:
    """Parse ``step,hexmode[,step2]`` into ``(step, signed 32-bit mode)``."""
    parts = token.split(",")
    if len(parts) not in (2, 3):
        raise IniError(*where, f"bad ray '{token}': expected step,hexmode[,step2]")
    if not _INT_RE.match(parts[0]):
        raise IniError(*where, f"bad ray '{token}': step '{parts[0]}' is not an integer")
    if not _HEX_RE.match(parts[1]):
        raise IniError(*where, f"bad ray '{token}': mode '{parts[1]}' is not 1-8 hex digits")
    step = int(parts[0])
    if step == 0 or abs(step) > 255:
        raise IniError(*where, f"bad ray '{token}': step must be non-zero and within -255..255")
    mode = to_int32(int(parts[1], 16))
    if len(parts) == 3:
        if not _INT_RE.match(parts[2]):
            raise IniError(*where, f"bad ray '{token}': second step '{parts[2]}' is not an integer")
        step2 = int(parts[2])
        if step2 == 0 or abs(step2) > 255:
            raise IniError(*where, f"bad ray '{token}': second step must be non-zero and within -255..255")
        mode = to_int32(mode + ((step2 ^ step) << 12))
    for leg in (step, second_step(step, mode)):
        files, ranks = split_step(leg)
        if abs(ranks) > MAX_RANK_LEAP:
            raise IniError(*where, f"bad ray '{token}': a leap of {abs(ranks)} ranks is more than "
                                   f"the engine's limit of {MAX_RANK_LEAP}")
    return step, mode


def _parse_piece(text: str, where: tuple[str, int]) -> PieceSpec:
    """Parse a piece line ``c:value ray ray ...`` (already known to start like one)."""
    m = _PIECE_RE.match(text)
    assert m is not None
    letter, value_text, rest = m.groups()
    if not letter.isascii() or not letter.isalpha():
        raise IniError(*where, f"bad piece line: piece letter '{letter}' is not a letter A-Z/a-z")
    if not _INT_RE.match(value_text):
        raise IniError(*where, f"bad piece line: value '{value_text}' is not an integer")
    value = int(value_text)
    if abs(value) > MAX_VALUE:
        raise IniError(*where, f"bad piece line: value {value} is outside -{MAX_VALUE}..{MAX_VALUE}")
    rays = [_parse_ray(tok, where) for tok in rest.split()]
    return PieceSpec(letter=letter, value=value, rays=rays, line=where[1])


def _rays_from_betza(pieces: list[PieceSpec], gui_lines: list[tuple[str, int]], path: str,
                     mirror: str = "") -> None:
    """Give each piece line without rays the rays of the block's GUI line for its letter.

    ``L&`` describes the first piece with letter L (White's) and the last one (Black's);
    ``L`` only the first, ``l`` only the last, as XBoard reads them.  Black's Betza is
    read from Black's side.  A single piece for both colours must move alike from both
    sides, unless its letter is in ``mirror`` (the block's ``Mirror:`` letters): then
    the line gives White's moves and the engine turns them around for Black.  Pieces
    with rays keep them (their GUI line only describes them).
    """
    from fairymax.betza import BetzaError, black_rays, compile_betza   # betza builds on this module
    defined_at: dict[int, int] = {}          # piece index -> line of the GUI line that gave its rays
    for text, lineno in gui_lines:
        name, betza = text.split(None, 1)
        letter, both = name[0], name.endswith("&")
        indices = [k for k, piece in enumerate(pieces) if piece.letter.lower() == letter.lower()]
        if not indices:
            continue
        white, black = indices[0], indices[-1]
        targets = [(white, False)] if both or letter.isupper() else []
        if letter.islower() or (both and black != white):
            targets.append((black, True))
        for index, for_black in targets:
            piece = pieces[index]
            if index in defined_at:
                raise IniError(path, lineno, f"piece {index + 1} ('{piece.letter}') already has the moves "
                                             f"of the GUI line at line {defined_at[index]}")
            if piece.rays:
                continue
            try:
                rays = compile_betza(betza.strip(), pawn=index < 2, gui=True)
            except BetzaError as exc:
                raise IniError(path, lineno, f"GUI line '# {text}': piece {index + 1} ('{piece.letter}') "
                                             f"has no rays and its Betza cannot give them: {exc}") from None
            if for_black:
                rays = black_rays(rays)
            elif both and white == black and set(black_rays(rays)) != set(rays) \
                    and piece.letter.upper() not in mirror:
                raise IniError(path, lineno, f"GUI line '# {text}': piece {index + 1} ('{piece.letter}') "
                                             f"is both colours' piece, but its Betza moves differ seen from "
                                             f"Black's side; give Black a piece line of its own, or list "
                                             f"the piece on a Mirror: line")
            piece.rays = rays
            defined_at[index] = lineno


def _parse_setup(text: str, width: int, colour: str, where: tuple[str, int]) -> list[int]:
    """Parse a back-rank line of ``width`` piece numbers (checked against the pieces later)."""
    tokens = text.split()
    for tok in tokens:
        if not _INT_RE.match(tok):
            raise IniError(*where, f"bad {colour} setup line: '{tok}' is not a piece number")
    if len(tokens) != width:
        raise IniError(*where, f"bad {colour} setup line: expected {width} piece numbers "
                               f"(one per file), got {len(tokens)}")
    return [int(t) for t in tokens]


def _flag(value: str, word: str, key: str, where: tuple[str, int]) -> bool:
    """A line that switches a rule on with one word (``BareKing: loss``)."""
    if value.lower() != word:
        raise IniError(*where, f"{key}: expected '{word}', got '{value}'")
    return True


_RANGE = r"(\d+)\s*-\s*(\d+)"
_REGION_RE = re.compile(r"([A-Za-z]+)\s+([a-n])\s*-\s*([a-n])\s+" + _RANGE)
_RAY_RANKS_RE = re.compile(r"([A-Za-z])\s+" + _RANGE + r"\s+(.+)")


def _rank_range(first: int, last: int, spec: VariantSpec, key: str, where: tuple[str, int]) -> tuple[int, int]:
    if not 1 <= first <= last <= spec.height:
        raise IniError(*where, f"{key}: ranks {first}-{last} are not within 1-{spec.height} (first <= last)")
    return first, last


def _parse_regions(text: str, spec: VariantSpec, where: tuple[str, int]) -> dict:
    """``Region: KA d-f 1-3, B a-i 1-5``: letters, a file range and a rank range counted
    from the owner's side, for each group separated by commas."""
    regions = {}
    for group in text.split(","):
        m = _REGION_RE.fullmatch(group.strip())
        if not m:
            raise IniError(*where, f"Region: expected 'LETTERS a-i 1-3', got '{group.strip()}'")
        letters, f1, f2 = m.group(1), ord(m.group(2)) - ord("a") + 1, ord(m.group(3)) - ord("a") + 1
        if not 1 <= f1 <= f2 <= spec.width:
            raise IniError(*where, f"Region: files {m.group(2)}-{m.group(3)} are not on the {spec.width}-file board")
        ranks = _rank_range(int(m.group(4)), int(m.group(5)), spec, "Region", where)
        for letter in letters.upper():
            if not spec.piece_number(letter, 0):
                raise IniError(*where, f"Region: '{letter}' is not a piece of {spec.name}")
            regions[letter] = ((f1, f2), ranks)
    return regions


def _parse_ray_ranks(text: str, spec: VariantSpec, where: tuple[str, int]) -> dict:
    """``RayRanks: P 6-10 1,7 -1,7``: those rays of the piece start only from those
    ranks, counted from the owner's side (a soldier's sideways steps across the river)."""
    m = _RAY_RANKS_RE.fullmatch(text.strip())
    if not m:
        raise IniError(*where, f"RayRanks: expected 'LETTER FIRST-LAST step,mode ...', got '{text}'")
    letter = m.group(1).upper()
    numbers = [spec.piece_number(letter, 0), spec.piece_number(letter, 1)]
    if not numbers[0]:
        raise IniError(*where, f"RayRanks: '{letter}' is not a piece of {spec.name}")
    ranks = _rank_range(int(m.group(2)), int(m.group(3)), spec, "RayRanks", where)
    rays = [_parse_ray(token, where) for token in m.group(4).split()]
    for ray in rays:
        if not any(ray in spec.pieces[n - 1].rays for n in numbers):
            raise IniError(*where, f"RayRanks: '{letter}' has no ray {ray[0]},{ray[1] & 0xFFFFFFFF:X}")
    return {letter: (ranks, rays)}


_DROP_LIMIT_RE = re.compile(r"([A-Za-z])\s*(\d+)\s*-\s*(\d+)")


def _parse_drops(text: str, spec: VariantSpec, where: tuple[str, int]) -> dict[str, tuple[int, int]]:
    """Parse the value of a ``Drops:`` line: ``all`` or ``LETTER FIRST-LAST`` pairs."""
    if text.lower() == "all":
        return {}
    limits: dict[str, tuple[int, int]] = {}
    rest = text.replace(",", " ")
    for token in _DROP_LIMIT_RE.finditer(rest):
        letter, first, last = token.group(1).upper(), int(token.group(2)), int(token.group(3))
        if not spec.piece_number(letter, 0):
            raise IniError(*where, f"Drops: '{letter}' is not a piece of {spec.name}")
        if not 1 <= first <= last <= spec.height:
            raise IniError(*where, f"Drops: ranks {first}-{last} of '{letter}' are not within "
                                   f"1-{spec.height} (first <= last)")
        limits[letter] = (first, last)
    if not limits or _DROP_LIMIT_RE.sub("", rest).strip():
        raise IniError(*where, f"Drops: expected 'all' or LETTER FIRST-LAST pairs, got '{text}'")
    return limits


def _parse_letters(text: str, spec: VariantSpec, key: str, where: tuple[str, int]) -> str:
    """Upper-case piece letters of a line like ``Mirror: L N S G`` (spaces optional)."""
    letters = "".join(text.split()).upper()
    if not letters:
        raise IniError(*where, f"{key}: no piece letters")
    for c in letters:
        if not c.isalpha() or not spec.piece_number(c, 0):
            raise IniError(*where, f"{key}: '{c}' is not a piece of {spec.name}")
    return letters


MAX_COUNTING_MOVES = 500     # a count limit in moves (and BoardMax's pieces), far beyond any rule's
MAX_COUNTING_HONOURS = 8     # LETTERS=MOVES entries of a Counting: line (variant.pxd)


def _parse_counting(text: str, spec: VariantSpec, where: tuple[str, int]) -> CountingRule:
    """``Counting: 64 RR=8 R=16 [Else=N] [BoardMax=N] [FromZero]`` (see the module
    docstring): the board's honour limit, LETTERS=MOVES pairs, options."""
    first, *tokens = text.split() or [""]
    if not first.isdigit() or not 0 <= int(first) <= MAX_COUNTING_MOVES:
        raise IniError(*where, f"Counting: expected the board's honour limit in moves (0-{MAX_COUNTING_MOVES}) "
                               f"first, got '{first}'")
    rule = CountingRule(board_moves=int(first), else_moves=int(first))
    for token in tokens:
        if token.lower() == "fromzero":
            rule.from_zero = True
            continue
        m = re.fullmatch(r"([A-Za-z]+)=(\d+)", token)
        if not m:
            raise IniError(*where, f"Counting: expected LETTERS=MOVES pairs or options after the limit, "
                                   f"got '{token}'")
        name, number = m.group(1), int(m.group(2))
        if name.lower() in ("else", "boardmax") and number > MAX_COUNTING_MOVES:
            raise IniError(*where, f"Counting: {name}={number} is not within 0-{MAX_COUNTING_MOVES}")
        if name.lower() == "else":
            rule.else_moves = number
        elif name.lower() == "boardmax":
            rule.board_max_pieces = number
        elif len(set(name.upper())) != 1 or not spec.piece_number(name[0], 0):
            raise IniError(*where, f"Counting: '{name}' is not one piece of {spec.name}, written once "
                                   "for each piece needed")
        elif not 1 <= number <= MAX_COUNTING_MOVES:
            raise IniError(*where, f"Counting: {number} moves is not within 1-{MAX_COUNTING_MOVES}")
        else:
            rule.honours.append((name.upper(), number))
    if len(rule.honours) > MAX_COUNTING_HONOURS:
        raise IniError(*where, f"Counting: at most {MAX_COUNTING_HONOURS} LETTERS=MOVES pairs")
    if not (rule.board_moves or rule.honours or rule.else_moves):
        raise IniError(*where, "Counting: no count could ever start")
    return rule


def _parse_promotions(text: str, spec: VariantSpec, where: tuple[str, int]) -> dict[str, str]:
    """``Promotes: P=T L=Y``: upper-case letter of a piece -> that of the piece it may become."""
    promotions: dict[str, str] = {}
    for token in text.replace(",", " ").split():
        m = re.fullmatch(r"([A-Za-z])=([A-Za-z])", token)
        if not m:
            raise IniError(*where, f"Promotes: expected LETTER=LETTER pairs, got '{token}'")
        base, promoted = m.group(1).upper(), m.group(2).upper()
        for c in (base, promoted):
            if not spec.piece_number(c, 0):
                raise IniError(*where, f"Promotes: '{c}' is not a piece of {spec.name}")
        number = spec.piece_number(promoted, 0)
        if number <= 2 or spec.pieces[number - 1].royal or spec.pieces[spec.piece_number(base, 0) - 1].royal:
            raise IniError(*where, f"Promotes: '{token}' promotes a royal piece or to a pawn or royal piece")
        if base in promotions or promoted in promotions.values() or promoted in promotions or base in promotions.values():
            raise IniError(*where, f"Promotes: '{token}' repeats a piece or promotes a promoted one")
        promotions[base] = promoted
    if not promotions:
        raise IniError(*where, "Promotes: no LETTER=LETTER pairs")
    return promotions


def _parse_promote(text: str, spec: VariantSpec, where: tuple[str, int]) -> tuple[str, str]:
    """Parse the value of ``Promote:`` into (white letters upper case, black letters lower case)."""
    sides = text.split("/")
    if len(sides) > 2:
        raise IniError(*where, "Promote: expected 'letters' or 'white letters / black letters'")
    sets = ["".join(s.split()) for s in sides]
    if len(sets) == 1:
        sets.append(sets[0])
    result = []
    for colour, letters in enumerate(sets):
        side = ("white", "black")[colour]
        if not letters:
            raise IniError(*where, f"Promote: no {side} promotion letters")
        if len(set(letters.lower())) != len(letters):
            raise IniError(*where, f"Promote: a {side} letter is listed twice in '{letters}'")
        for c in letters:
            number = spec.piece_number(c, colour) if c.isalpha() else 0
            if number == 0:
                raise IniError(*where, f"Promote: '{c}' is not a piece letter of variant {spec.name}")
            if number <= 2:
                raise IniError(*where, f"Promote: '{c}' is the {side} pawn (piece {number})")
            if spec.pieces[number - 1].royal:
                raise IniError(*where, f"Promote: '{c}' (piece {number}) is royal")
        result.append(letters.upper() if colour == 0 else letters.lower())
    return result[0], result[1]


class _Reader:
    """Walks the lines of one file; owns the file name for error messages."""

    def __init__(self, path: str, lines: list[str]) -> None:
        self.path = path
        self.lines = lines          # without line ends; index 0 is line 1

    def error(self, lineno: int, message: str) -> IniError:
        return IniError(self.path, lineno, message)

    def line_number(self, i: int) -> int:
        """1-based line number of index ``i``, clamped to the last line (for "missing" errors)."""
        return min(i, len(self.lines) - 1) + 1

    def next_nonblank(self, i: int, end: int) -> int:
        """Index of the first non-blank line at or after ``i`` (``end`` if none before it)."""
        while i < end and not self.lines[i].strip():
            i += 1
        return i

    def parse_game(self, start: int, end: int, header: tuple[str, str | None, str | None, str],
                   game_line: int) -> tuple[VariantSpec, int]:
        """Parse board, setup, pieces and '#' lines from line index ``start``; ``end`` bounds the block.

        Returns the spec and the index of the first line after the structured part.
        """
        name, ptc, parent, info = header
        where_game = game_line if game_line else start + 1

        # Board line.
        i = self.next_nonblank(start, end)
        if i >= end:
            raise self.error(self.line_number(i), f"missing board line 'FxR[=N]' in Game '{name}'")
        board_no = i + 1
        text = self.lines[i].strip()
        m = _BOARD_RE.match(text)
        if not m:
            raise self.error(board_no, f"bad board size '{text}': expected FxR[=N], e.g. 8x8 or 8x8=3")
        width, height = int(m.group(1)), int(m.group(2))
        zone = int(m.group(3)) if m.group(3) is not None else 1
        if not 1 <= width <= MAX_FILES or not 1 <= height <= MAX_RANKS:
            raise self.error(board_no, f"bad board size {width}x{height}: at most "
                                       f"{MAX_FILES} files and {MAX_RANKS} ranks")
        if zone == 0:
            raise self.error(board_no, "bad board size: zone '=0' is not allowed (use =N with N >= 1 or N < 0)")
        pawn_row = _pawn_row(zone)
        if 2 * pawn_row >= height - 1:
            raise self.error(board_no, f"bad board size {width}x{height}={zone}: the pawns would start "
                                       f"on rank {pawn_row + 1}, outside their half of the board")

        # Setup lines.
        setups = []
        for colour in ("white", "black"):
            i = self.next_nonblank(i + 1, end)
            if i >= end:
                raise self.error(self.line_number(i), f"missing {colour} setup line in Game '{name}'")
            setups.append((_parse_setup(self.lines[i], width, colour, (self.path, i + 1)), i + 1))

        # Piece lines: contiguous (blank lines skipped) lines that start like "c:value".
        pieces: list[PieceSpec] = []
        i = self.next_nonblank(i + 1, end)
        while i < end and _PIECE_START_RE.match(self.lines[i].strip()):
            where = (self.path, i + 1)
            piece = _parse_piece(self.lines[i].strip(), where)
            if len(pieces) >= MAX_PIECE_TYPES:
                raise self.error(i + 1, f"too many piece types: at most {MAX_PIECE_TYPES}")
            pieces.append(piece)
            i = self.next_nonblank(i + 1, end)
        if len(pieces) < 2:
            lineno = (pieces[-1].line if pieces else setups[1][1]) + 1
            what = "no piece lines" if not pieces else "only one piece line"
            raise self.error(lineno, f"{what} in Game '{name}': pieces 1 and 2 (the white and black "
                                     f"Pawn) are required, as lines 'c:value step,mode ...'")

        # Setup lines must name defined pieces.
        for setup, lineno in setups:
            for number in setup:
                if not 0 <= number <= len(pieces):
                    raise self.error(lineno, f"bad setup line: piece number {number} is not defined "
                                             f"(the variant has pieces 1..{len(pieces)}, 0 = empty)")

        # Optional bare '#' line, then '# L[&] Betza' GUI lines.
        gui: list[tuple[str, int]] = []          # (text, line number)
        if i < end and self.lines[i].strip().startswith("#"):
            if self.lines[i].strip() != "#":
                raise self.error(i + 1, "a '# L Betza' GUI line must follow a bare '#' line "
                                        "(Fairy-Max would drop it)")
            i = self.next_nonblank(i + 1, end)
            while i < end and self.lines[i].strip().startswith("#") and self.lines[i].strip() != "#":
                text = self.lines[i].strip()[1:].strip()
                if not _GUI_RE.match(text):
                    raise self.error(i + 1, f"bad GUI line '# {text}': expected '# L[&] Betza'")
                gui.append((text, i + 1))
                i = self.next_nonblank(i + 1, end)
        # a piece of a Mirror: line is one type for both colours: its GUI line gives
        # White's moves (Black's are derived in the engine), read before the extensions
        mirror = ""
        for k in range(i, end):
            found = re.match(r"^mirror\s*:(.*)$", self.lines[k].strip(), re.IGNORECASE)
            if found:
                mirror = "".join(found.group(1).split()).upper()
        _rays_from_betza(pieces, gui, self.path, mirror)

        total_rays = 0
        for piece in pieces:
            total_rays += len(piece.rays)
            if total_rays > MAX_RAYS:
                raise self.error(piece.line, f"too many rays: at most {MAX_RAYS} for all pieces together")

        # Board width against the largest lateral leap (Fairy-Max: at most 16-L files).
        lateral = max((abs(split_step(leg)[0]) for p in pieces for step, mode in p.rays
                       for leg in (step, second_step(step, mode))), default=0)
        if width > STRIDE - lateral:
            raise self.error(board_no, f"bad board size {width}x{height}: a piece leaps {lateral} files "
                                       f"sideways, so the board may have at most {STRIDE - lateral} files (16-L)")

        spec = VariantSpec(name=name, info=info, width=width, height=height, zone=zone,
                           white_setup=setups[0][0], black_setup=setups[1][0], pieces=pieces,
                           piece_to_char=ptc, parent=parent, gui_lines=[text for text, _ in gui],
                           file=self.path, line=where_game)
        return spec, i

    def parse_extensions(self, spec: VariantSpec, start: int, end: int) -> None:
        """Read extension lines (and check '#' placement) in a block's trailing comment lines."""
        seen: set[str] = set()
        key_line: dict[str, int] = {}        # key -> its line number
        for i in range(start, end):
            text = self.lines[i].strip()
            lineno = i + 1
            if text.startswith("#") and seen:
                raise self.error(lineno, "a '#' line after an extension line: Fairy-Max stops reading "
                                         "GUI lines before it; put '#' lines right after the pieces")
            m = _EXT_RE.match(text)
            if not m:
                continue
            key, value = m.group(1).lower(), m.group(2).strip()
            if key in seen:
                raise self.error(lineno, f"duplicate '{m.group(1)}:' line in Game '{spec.name}'")
            seen.add(key)
            key_line[key] = lineno
            where = (self.path, lineno)
            if key == "promote" and value.lower() == "none":
                spec.no_promotion = True
            elif key == "promote":
                spec.promote = _parse_promote(value, spec, where)
            elif key == "bareking":
                spec.bare_king = _flag(value, "loss", "BareKing", where)
            elif key == "gating":
                letters = "".join(value.split())
                for c in letters:
                    number = spec.piece_number(c, 0) if c.isalpha() else 0
                    if number <= 2 or spec.pieces[number - 1].royal:
                        raise IniError(*where, f"Gating: '{c}' is not a non-royal piece of {spec.name}")
                if not letters:
                    raise IniError(*where, "Gating: no piece letters")
                spec.gating = letters.upper()
            elif key == "drops":
                spec.drops = _parse_drops(value, spec, where)
            elif key == "region":
                spec.regions = _parse_regions(value, spec, where)
            elif key == "rayranks":
                spec.ray_ranks = _parse_ray_ranks(value, spec, where)
            elif key == "facingroyals":
                spec.facing_royals_illegal = _flag(value, "illegal", "FacingRoyals", where)
            elif key == "repetition":
                if not value.isdigit() or not 2 <= int(value) <= MAX_REPETITION_COUNT:
                    raise IniError(*where, f"Repetition: expected a count 2-{MAX_REPETITION_COUNT}, got '{value}'")
                spec.repetition_count = int(value)
            elif key == "perpetualcheck":
                spec.perpetual_check_loses = _flag(value, "loss", "PerpetualCheck", where)
            elif key == "fiftymoves":
                spec.checks_not_counted = _flag(value, "checks-excluded", "FiftyMoves", where)
            elif key == "counting":
                spec.counting = _parse_counting(value, spec, where)
            elif key == "mirror":
                spec.mirror = _parse_letters(value, spec, "Mirror", where)
                for c in spec.mirror:
                    if spec.piece_number(c, 0) != spec.piece_number(c, 1):
                        raise IniError(*where, f"Mirror: '{c}' has a piece line for each colour")
            elif key == "promotes":
                spec.promotions = _parse_promotions(value, spec, where)
            elif key == "promotionzone":
                m = re.fullmatch(_RANGE, value)
                if not m:
                    raise IniError(*where, f"PromotionZone: expected FIRST-LAST ranks, got '{value}'")
                spec.promotion_zone = _rank_range(int(m.group(1)), int(m.group(2)), spec, "PromotionZone", where)
            elif key == "oneperfile":
                spec.drop_one_per_file = _parse_letters(value, spec, "OnePerFile", where)
            elif key == "nodropmate":
                spec.drop_may_not_mate = _parse_letters(value, spec, "NoDropMate", where)
            elif key == "start":
                if len(value.split("/")) != spec.height:
                    raise IniError(*where, f"Start: expected a FEN of {spec.height} ranks, got '{value}'")
                spec.start_fen = value
            else:
                if value.lower() not in ("loss", "draw"):
                    raise IniError(*where, f"Stalemate: expected 'loss' or 'draw', got '{value}'")
                spec.stalemate = value.lower()
        if bool(spec.promotions) != bool(spec.promotion_zone):
            lineno = key_line.get("promotes") or key_line["promotionzone"]
            raise self.error(lineno, "Promotes: and PromotionZone: go together")
        if (spec.drop_one_per_file or spec.drop_may_not_mate) and spec.drops is None:
            lineno = key_line.get("oneperfile") or key_line["nodropmate"]
            raise self.error(lineno, "OnePerFile: and NoDropMate: need a Drops: line")
        if spec.counting and spec.drops is not None:
            raise self.error(key_line["counting"], "Counting: does not go with Drops: (pieces come back from hand)")
        if spec.gating is None and spec.name == "seirawan" and len(spec.pieces) >= 10:
            spec.gating = (spec.pieces[8].letter + spec.pieces[9].letter).upper()


def _read_lines(path: str) -> list[str]:
    """The file's lines without line ends (CRLF and LF both accepted)."""
    try:
        with open(path, encoding="utf-8", errors="replace", newline=None) as f:
            text = f.read()
    except OSError as exc:
        raise IniError(path, 0, f"cannot read file: {exc.strerror or exc}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.split("\n")


def load_file(path: str | Path) -> dict[str, VariantSpec]:
    """Load every ``Game:`` block of a variant file, in file order, keyed by name.

    The start-up game (text before the first ``Game:``) is checked when it has a
    board line, but is not returned.  Raises :class:`IniError` for any problem.
    """
    path = str(path)
    lines = _read_lines(path)
    reader = _Reader(path, lines)
    if not lines or lines[0].rstrip() != VERSION_LINE:
        raise IniError(path, 1, f"first line must be '{VERSION_LINE}'")

    game_rows = [i for i, line in enumerate(lines) if line.startswith(("Game:", EXTENDED_GAME))]
    bounds = game_rows + [len(lines)]

    # Start-up game: only if the first non-blank line after the version looks like a board.
    first = reader.next_nonblank(1, bounds[0])
    if first < bounds[0] and re.match(r"^\d+x\d+", lines[first].strip()):
        reader.parse_game(first, bounds[0], ("(start-up game)", None, None, ""), 0)

    variants: dict[str, VariantSpec] = {}
    for k, row in enumerate(game_rows):
        lineno = row + 1
        m = _GAME_RE.match(lines[row].rstrip())
        if not m:
            raise IniError(path, lineno, "bad Game line: expected 'Game: name[ # pieceToChar[ # parent]]'")
        name, ptc, parent = m.groups()
        if name in variants:
            raise IniError(path, lineno, f"duplicate Game name '{name}' (first defined at line "
                                         f"{variants[name].line})")
        above = lines[row - 1].strip() if row > 0 else ""
        info = above[2:].strip() if above.startswith("//") else ""
        spec, after = reader.parse_game(row + 1, bounds[k + 1], (name, ptc, parent, info), lineno)
        reader.parse_extensions(spec, after, bounds[k + 1])
        beyond_fairy_max = [key for key, used in (
            ("Drops", spec.drops is not None), ("Region", spec.regions), ("RayRanks", spec.ray_ranks),
            ("FacingRoyals", spec.facing_royals_illegal), ("Start", spec.start_fen),
            ("Repetition", spec.repetition_count != 3), ("PerpetualCheck", spec.perpetual_check_loses),
            ("FiftyMoves", spec.checks_not_counted),
            ("Promote: none", spec.no_promotion), ("Mirror", spec.mirror), ("Promotes", spec.promotions),
            ("OnePerFile", spec.drop_one_per_file), ("NoDropMate", spec.drop_may_not_mate)) if used]
        if beyond_fairy_max and not lines[row].startswith(EXTENDED_GAME):
            raise IniError(path, lineno, f"'{name}' has rules Fairy-Max cannot play ({', '.join(beyond_fairy_max)}): "
                                         f"start it with '{EXTENDED_GAME} {name}' so that Fairy-Max skips it")
        variants[name] = spec
    return variants


def default_ini_path() -> Path:
    """The project's pieces.ini: ``<package>/../pieces.ini``, else ``<package>/pieces.ini``."""
    package = Path(__file__).resolve().parent
    top = package.parent / "pieces.ini"
    return top if top.is_file() else package / "pieces.ini"


def load_default() -> dict[str, VariantSpec]:
    """Load the project's pieces.ini (see :func:`default_ini_path`)."""
    return load_file(default_ini_path())


def main(argv: list[str] | None = None) -> int:
    """``python -m fairymax.loader [FILE...]``: check files, list their variants; 1 on error."""
    paths = (argv if argv is not None else sys.argv[1:]) or [str(default_ini_path())]
    status = 0
    for p in paths:
        try:
            variants = load_file(p)
        except IniError as exc:
            print(exc, file=sys.stderr)
            status = 1
            continue
        for spec in variants.values():
            extras = []
            if spec.promote:
                extras.append(f"promote={spec.promote[0]}/{spec.promote[1]}")
            if spec.bare_king:
                extras.append("bare-king")
            if spec.stalemate:
                extras.append(f"stalemate={spec.stalemate}")
            print(f"{p}:{spec.line}: {spec.name} {spec.width}x{spec.height} "
                  f"{len(spec.pieces)} pieces {sum(len(x.rays) for x in spec.pieces)} rays "
                  + " ".join(extras))
    return status


if __name__ == "__main__":
    sys.exit(main())
