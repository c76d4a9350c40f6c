"""Betza notation: a piece's moves as XBoard reads them, compiled into Fairy-Max rays.

``compile_betza("fmWfceFifmnD", pawn=True)`` gives the FIDE Pawn's rays, the same
``(step, mode)`` pairs the loader reads from ``-16,24 -16,6 -15,5 -17,5``;
``rays_to_betza`` goes the other way where a Betza string can say what the rays do.

Point of view.  Betza describes a piece from its owner's side; the rays of
``compile_betza`` are White's: "forward" is towards rank 8 (step -16), "left" towards
the a-file (step -1).  Fairy-Max pieces other than pawns are usually symmetric, but
directional modifiers (``fhN``, ``bsW``, ``lO2``) give exactly the subset of steps seen
from White's side.  ``black_rays`` turns rays half round for Black: XBoard reads a
Black piece's Betza from Black's side, so Black's "left" is the h-file side (the
castling King ``KilO2rO3``, Black's in the Chess-with-Different-Armies blocks, is
``1,34 -1,1034``).  For a piece that is symmetric left-right, such as a Pawn, the half
turn is the vertical mirror image.

The notation is XBoard 4.9's (its ``MovesFromString`` is the reference, since the same
text goes to the GUI in ``piece`` lines).  A move is ``[i][directions][modifiers]ATOM
[range]``; a piece is a sequence of moves.

Atoms: W (1,0) F (1,1) D (2,0) N (2,1) A (2,2) H (3,0) C (3,1) Z (3,2) G (3,3) are
leapers; R = W rider, B = F rider, Q = K rider, K = W and F; O is castling (``isO2``:
the royal moves 2 squares sideways; Fairy-Max's 34, an unmoved royal's move with or
without the ``i``).  A range digit makes a rider: ``N0`` a Nightrider,
``W4`` or ``R4`` a Rook of range 4, ``R1`` a Wazir.  A doubled atom (``NN``) is an
unlimited rider, as in Betza's original notation; XBoard reads ``NN`` as two N moves,
so ``piece`` lines should use ``N0``, and GUI lines that the loader compiles refuse it.

Directions (XBoard's rules, which depend on the atom):
  W, D, H, R, O     each letter adds its directions: f, b, l, r, s = l+r, v = f+b.
  F, A, G, B        f, b, l, r are the two diagonals on that side; a perpendicular pair
                    (``fl``, ``br``) is one diagonal.  s and v are refused (XBoard
                    reads them as "all").
  N, C, Z           a letter alone is the narrow pair (``fN``: the two moves two ranks
                    forward; ``sN``: the four moves two files sideways); ``fh``, ``bh``,
                    ``lh``, ``rh`` the four moves on that side; ``ff`` = ``f``; a
                    perpendicular pair (``fs``, ``fl``, ``lf``, ``lv``) is the narrow
                    part of the wide first letter; ``hl``/``hr`` the chiral halves.
  K, Q              a letter alone is the orthogonal move (``fK``: one step forward);
                    a perpendicular pair is diagonal (``fsK``: forward diagonals).
Modifiers, in XBoard's order ``m c e p g o y n j`` (a letter out of order is refused,
because XBoard would silently ignore it):
  m / c     move only / capture only (default: both).
  e         en passant; pawns only, with ``c`` (Fairy-Max pawns capture e.p. anyway).
  p         hop over the first occupied square, then slide (``mRcpR`` is the Cannon).
  g         grasshopper: land just behind the first occupied square (``gQ``).
  o         cylinder board: the a- and h-files are neighbours.
  n         lame: the square halfway (XBoard's midpoint) must be empty (``nN``: the
            Xiangqi Horse; ``nA`` the Xiangqi Elephant).
  j         must jump: the midpoint must be occupied.
  i         (before everything) initial move of an unmoved piece.  Fairy-Max's
            initial moves take two steps: a leap of two or more squares jumps
            (``ifD``: e.p.-immune, mode E4/F4); a pawn's lame ``ifmnD`` / ``ifmnA`` is its
            double push with e.p. rights (mode 24), ``ifmW3`` its double and triple
            push (24, 424; the one-step push must be there as ``fmW``).
  a         two legs: ``FyafsF`` is a Ferz step, then (y: to an empty square, leaper
            becomes slider) a Rook line outward; the second leg's directions are
            relative to the first, as in XBoard (``f`` straight on; none: forward
            and sideways).  The first leg is a leap to an empty (``m``, default,
            ``y``) or occupied (``p``, ``g``) square, or a slide to the first occupied
            square (``p``, ``g``); the atom must be W, F, D, A, H, G, R, B, K or Q.
Refused, with a message saying why: three or more legs, ``ii``, range-limited hoppers,
a range above 5, initial one-step moves, lame initial moves of pieces other than
pawns, and XBoard's d, t, x and other modifiers that rays cannot express.

Rays that share a first step are written in Fairy-Max's one-ray forms where it has
them (``mRcpR``: ``1,BA``; ``FyafsF``: ``17,3,16``; ``WnD``: ``16,43``), so the
compiled rays of ``FyafsF`` are the Grande Acedrex Aanca's rays in pieces.ini.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product

from fairymax.loader import STRIDE, second_step, split_step, to_int32

__all__ = ["BetzaError", "compile_betza", "black_rays", "rays_to_betza"]

Ray = tuple[int, int]          # (step, signed 32-bit mode), as PieceSpec.rays holds them
Vector = tuple[int, int]       # (files towards the h-file, ranks towards rank 8)

# The mode word (pieces.ini header, "Rays").
CAPTURE = 0x1                  # low digit: may capture
QUIET = 0x2                    # low digit: may move to an empty square
LEAP = 0x4                     # low digit: one step only
HOP = 0x8                      # low digit: hops over an occupied square
BOTH = CAPTURE | QUIET
LOW_DIGIT = 0xF
TOGGLE_SHIFT = 4               # the second digit is XORed into the first after the first leg
DELAY_SHIFT = 10               # third digit 4/8/C: the toggle waits 1-3 steps more
CYLINDER = 0x100               # third digit 1
STEP2_SHIFT = 12               # bits 12 and up: step2 ^ step
MODE_BITS = (1 << STEP2_SHIFT) - 1
FIRST_TWO_DIGITS = 0xFF
THIRD_DIGIT = MODE_BITS & ~FIRST_TWO_DIGITS
INITIAL = 0x4                  # a low digit of exactly 4: an unmoved piece's move
NO_EP = 0x4                    # initial-move toggle bit: the skip square gets no e.p. rights
JUMP_FIRST = 0x8               # initial-move toggle bit: the skip square may be occupied
CASTLING = 0x34
DOUBLE_PUSH = 0x24             # a pawn's blockable double step with e.p. rights
MAX_DELAY = 3                  # the third digit delays the toggle by at most 3 steps
MAX_RANGE = MAX_DELAY + 2      # so a limited slide reaches at most 5 squares
MAX_PAWN_PUSH = 3              # 24 and 424; Fairy-Max reads longer pushes as other rules

MODIFIER_ORDER = "mcepgoynj"   # the order XBoard reads them in (after the directions)
DIRECTION_LETTERS = "fblrvsh"
ALL_DIRECTIONS = frozenset(range(8))
ORTHOGONAL = frozenset((0, 2, 4, 6))
DIAGONAL = frozenset((1, 3, 5, 7))
BACKWARD = 4                   # relative to a first leg: straight back
SECOND_LEG_DEFAULT = frozenset((0, 2, 6))   # XBoard: on, and both sideways (W and F kin)

# XBoard's eight direction matrices: direction d turns an atom's base leap (dx, dy) into
# (a*dx + b*dy, c*dx + e*dy).  For W, F and K atoms d is the compass point d*45 degrees
# clockwise from forward; for N-like atoms the eight moves clockwise from "forward, a
# little right" (the Knight's d=0 is one file right, two ranks forward).
XBOARD_TURNS = ((1, 0, 0, 1), (0, 1, 1, 0), (0, 1, -1, 0), (1, 0, 0, -1),
                (-1, 0, 0, -1), (0, -1, -1, 0), (0, -1, 1, 0), (-1, 0, 0, 1))


CASTLING_ATOM = "O"


class BetzaError(ValueError):
    """Betza text that is malformed, or that Fairy-Max rays cannot express."""


@dataclass(frozen=True)
class Atom:
    """A Betza atom: its base leap, the directions it has, and how letters select them.

    ``size`` > 0 marks a compass atom (W, F, K kin), whose leap in direction d is
    ``size`` squares along compass point d; N, C and Z (``size`` 0) use ``leap`` turned
    by XBoard's matrices.  ``system`` names XBoard's direction-letter rules for it.
    """

    letter: str
    leap: Vector
    size: int
    directions: frozenset[int]
    slides: bool
    system: str


def _atoms() -> dict[str, Atom]:
    """W D H (1-3 squares orthogonally), F A G (diagonally), N C Z, the riders R B Q, K, O."""
    table = {}
    for size, (orthogonal, diagonal) in enumerate(("WF", "DA", "HG"), start=1):
        table[orthogonal] = Atom(orthogonal, (0, size), size, ORTHOGONAL, False, "orthogonal")
        table[diagonal] = Atom(diagonal, (size, size), size, DIAGONAL, False, "diagonal")
    for letter, leap in (("N", (1, 2)), ("C", (1, 3)), ("Z", (2, 3))):
        table[letter] = Atom(letter, leap, 0, ALL_DIRECTIONS, False, "oblique")
    table["R"] = Atom("R", (0, 1), 1, ORTHOGONAL, True, "orthogonal")
    table["B"] = Atom("B", (1, 1), 1, DIAGONAL, True, "diagonal")
    table["K"] = Atom("K", (0, 1), 1, ALL_DIRECTIONS, False, "king")
    table["Q"] = Atom("Q", (0, 1), 1, ALL_DIRECTIONS, True, "king")
    table[CASTLING_ATOM] = Atom(CASTLING_ATOM, (0, 1), 1, ORTHOGONAL, False, "orthogonal")
    return table


ATOMS = _atoms()
LEAPER_OF = {"R": "W", "B": "F", "Q": "K"}          # the one-step atom a slider repeats


def _turn(leap: Vector, direction: int) -> Vector:
    """A leap turned into one of XBoard's eight directions."""
    a, b, c, e = XBOARD_TURNS[direction]
    dx, dy = leap
    return a * dx + b * dy, c * dx + e * dy


def _vector(atom: Atom, direction: int) -> Vector:
    """The atom's move in a direction (White's view)."""
    if atom.size == 0:
        return _turn(atom.leap, direction)
    base = (0, atom.size) if direction % 2 == 0 else (atom.size, atom.size)
    return _turn(base, direction)


def _step(vector: Vector) -> int:
    """A White vector as a step of the 16-wide board (-16 = one rank towards rank 8)."""
    dx, dy = vector
    return dx - STRIDE * dy


def _vector_of(step: int) -> Vector:
    """A step of the 16-wide board as a White vector."""
    files, ranks = split_step(step)
    return files, -ranks


# ---------------------------------------------------------------- direction letters

_AXIS = {"f": "vertical", "b": "vertical", "v": "vertical",
         "l": "horizontal", "r": "horizontal", "s": "horizontal"}


def _wide(letter: str, vector: Vector) -> bool:
    """The move has a component towards the letter's side (s: sideways, v: vertical)."""
    dx, dy = vector
    return {"f": dy > 0, "b": dy < 0, "l": dx < 0, "r": dx > 0,
            "s": dx != 0, "v": dy != 0, "h": True}[letter]


def _narrow(letter: str, vector: Vector) -> bool:
    """The move's larger component points towards the letter's side (h: any move)."""
    dx, dy = vector
    return {"f": dy > abs(dx), "b": -dy > abs(dx), "l": -dx > abs(dy), "r": dx > abs(dy),
            "s": abs(dx) > abs(dy), "v": abs(dy) > abs(dx), "h": True}[letter]


def _perpendicular(first: str, second: str) -> bool:
    return first in _AXIS and second in _AXIS and _AXIS[first] != _AXIS[second]


@dataclass(frozen=True)
class _Group:
    """Direction letters XBoard reads together, and the moves they pick.

    ``test``: "narrow" / "wide" (``first`` alone), "wide+wide" / "wide+narrow" (a pair),
    "chiral" (``hl``/``hr`` of an N-like atom: every other direction).
    """

    text: str
    test: str
    first: str
    second: str = ""

    def picks(self, direction: int, vector: Vector) -> bool:
        if self.test == "chiral":
            return direction % 2 == (0 if self.second == "r" else 1)
        if self.test == "narrow":
            return _narrow(self.first, vector)
        if self.test == "wide":
            return _wide(self.first, vector)
        if self.test == "wide+wide":
            return _wide(self.first, vector) and _wide(self.second, vector)
        return _wide(self.first, vector) and _narrow(self.second, vector)


def _groups(letters: str, system: str) -> list[_Group]:
    """Split direction letters into groups by XBoard's rules for the atom's ``system``."""
    if system == "oblique" and letters[:2] in ("hl", "hr"):
        if len(letters) > 2:
            raise BetzaError(f"'{letters}': nothing may follow the chiral '{letters[:2]}'")
        return [_Group(letters, "chiral", "h", letters[1])]
    groups = []
    i = 0
    while i < len(letters):
        first = letters[i]
        second = letters[i + 1] if i + 1 < len(letters) else ""
        pair = first + second
        if system == "orthogonal":              # W, D, H, R, O: every letter alone
            if first == "h":
                raise BetzaError("'h' does not apply to W-like atoms")
            group = _Group(first, "narrow", first)
        elif system == "diagonal":              # F, A, G, B: a side, or a perpendicular pair
            for letter in pair if _perpendicular(first, second) else first:
                if letter not in "fblr":
                    raise BetzaError(f"'{letter}' does not apply to F-like atoms (use f, b, l, r)")
            group = (_Group(pair, "wide+wide", first, second) if _perpendicular(first, second)
                     else _Group(first, "wide", first))
        elif system == "oblique":               # N, C, Z
            if second == "h" or second == first or (first in "fblr" and _perpendicular(first, second)):
                if first not in "fblr":
                    raise BetzaError(f"'{pair}' selects no move")
                group = (_Group(pair, "wide", first) if second == "h"
                         else _Group(pair, "wide+narrow", first, second))
            elif first == "h":
                raise BetzaError("'h' must follow f, b, l or r, or start 'hl'/'hr'")
            else:
                group = _Group(first, "narrow", first)
        elif second == first:                   # king: K, Q and every second leg
            group = _Group(pair, "narrow", first)
        elif first in "fblr" and _perpendicular(first, second):
            group = _Group(pair, "wide+wide", first, second)
        else:
            group = _Group(first, "narrow", first)
        groups.append(group)
        i += len(group.text)
    return groups


def _select(letters: str, system: str, vectors: dict[int, Vector]) -> set[int]:
    """The directions (keys of ``vectors``) that direction letters choose; all without letters."""
    if not letters:
        return set(vectors)
    chosen: set[int] = set()
    for group in _groups(letters, system):
        picked = {d for d, v in vectors.items() if group.picks(d, v)}
        if not picked:
            raise BetzaError(f"direction '{group.text}' selects no move")
        chosen |= picked
    return chosen


def _compass_vectors(directions: frozenset[int]) -> dict[int, Vector]:
    """Unit compass vectors of the directions: what letters test for W, F and K kin."""
    return {d: _turn((0, 1) if d % 2 == 0 else (1, 1), d) for d in directions}


def _first_leg_vectors(atom: Atom) -> dict[int, Vector]:
    """What direction letters test for a first leg: the atom's own moves (N kin) or compass points."""
    if atom.size == 0:
        return {d: _vector(atom, d) for d in atom.directions}
    return _compass_vectors(atom.directions)


# ---------------------------------------------------------------- parsing

@dataclass(frozen=True)
class Leg:
    """One leg of a move: its direction letters and its modifiers."""

    directions: str
    modifiers: str

    def kind(self) -> str:
        """What a first leg needs on its square: "empty" (m, y or nothing), "occupied"
        (p, g), or "" when rays cannot take its modifiers."""
        empty, occupied = set("my") & set(self.modifiers), set("pg") & set(self.modifiers)
        if empty and occupied or set(self.modifiers) - set("mpgyo"):
            return ""
        return "occupied" if occupied else "empty"


@dataclass(frozen=True)
class Move:
    """One move of a Betza string (``ifmnD``).

    ``initial`` counts the leading i's; ``reach`` is 1 for a leaper, 0 for an unlimited
    rider and k for range k; ``doubled`` marks an atom written twice (``NN``).
    """

    text: str
    initial: int
    legs: tuple[Leg, ...]
    atom: Atom
    reach: int
    doubled: bool


def _parse_leg(text: str, move_text: str) -> Leg:
    """A leg's letters: direction letters first, then modifiers in XBoard's order."""
    split = 0
    while split < len(text) and text[split] in DIRECTION_LETTERS:
        split += 1
    directions, modifiers = text[:split], text[split:]
    position = -1
    for letter in modifiers:
        if letter in "i" + DIRECTION_LETTERS or letter in MODIFIER_ORDER and MODIFIER_ORDER.index(letter) <= position:
            raise BetzaError(f"{move_text}: '{letter}' out of order: write i, then the directions, then "
                             f"{' '.join(MODIFIER_ORDER)} in that order, as XBoard reads them")
        if letter not in MODIFIER_ORDER:
            raise BetzaError(f"{move_text}: modifier '{letter}' cannot be expressed by rays "
                             f"(rays know {' '.join(DIRECTION_LETTERS + MODIFIER_ORDER)} i a)")
        position = MODIFIER_ORDER.index(letter)
    return Leg(directions, modifiers)


def _parse(text: str) -> list[Move]:
    """Split Betza text into moves; raises :class:`BetzaError` for malformed text."""
    if not text:
        raise BetzaError("empty Betza text")
    moves = []
    pos = 0
    while pos < len(text):
        start = pos
        while pos < len(text) and text[pos].islower():
            pos += 1
        if pos == len(text) or text[pos] not in ATOMS:
            found = f"'{text[pos]}'" if pos < len(text) else "the end"
            raise BetzaError(f"'{text}': expected an atom ({' '.join(ATOMS)}) at position "
                             f"{pos + 1}, found {found}")
        prefix, atom = text[start:pos], ATOMS[text[pos]]
        pos += 1
        doubled = pos < len(text) and text[pos] == atom.letter
        pos += doubled
        digits = pos
        while pos < len(text) and text[pos].isdigit():
            pos += 1
        move_text = text[start:pos]
        if doubled and digits < pos:
            raise BetzaError(f"{move_text}: a doubled atom and a range digit")
        if doubled or digits < pos:
            reach = 0 if doubled else int(text[digits:pos])
        else:
            reach = 0 if atom.slides else 1
        if reach == 1 and atom.slides:
            atom = ATOMS[LEAPER_OF[atom.letter]]
        initial = len(prefix) - len(prefix.lstrip("i"))
        legs = tuple(_parse_leg(leg, move_text) for leg in prefix[initial:].split("a"))
        moves.append(Move(move_text, initial, legs, atom, reach, doubled))
    return moves


# ---------------------------------------------------------------- compiling

def _encode(step: int, low: int, toggle: int = 0, step2: int | None = None, extra: int = 0) -> Ray:
    """A ray as the loader stores ``step,mode[,step2]``; ``extra`` holds third-digit bits."""
    mode = low | toggle << TOGGLE_SHIFT | extra
    if step2 is not None:
        mode += (step2 ^ step) << STEP2_SHIFT
    return step, to_int32(mode)


def _mode_bits(modifiers: str) -> int:
    """CAPTURE/QUIET of the m and c modifiers (both when neither is given)."""
    bits = (QUIET if "m" in modifiers else 0) | (CAPTURE if "c" in modifiers else 0)
    return bits or BOTH


def _halfway(vector: Vector) -> Vector:
    """XBoard's midpoint of a leap, the square a lame piece passes (``nN``: the orthogonal step)."""
    dx, dy = vector
    return int(dx / 2), int(dy / 2)


def _minus(a: Vector, b: Vector) -> Vector:
    return a[0] - b[0], a[1] - b[1]


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _directions(move: Move, letters: str, system: str, vectors: dict[int, Vector]) -> list[int]:
    """The directions ``letters`` choose, in XBoard's order; errors name the move."""
    try:
        return sorted(_select(letters, system, vectors))
    except BetzaError as exc:
        raise BetzaError(f"{move.text}: {exc}") from None


def _first_leg(move: Move, leg: Leg) -> list[int]:
    """The directions of a move's (first) leg."""
    return _directions(move, leg.directions, move.atom.system, _first_leg_vectors(move.atom))


def _compile_castling(move: Move) -> list[Ray]:
    """``isO2``: the royal moves ``reach`` squares (Fairy-Max: 34, always an unmoved royal's move)."""
    leg = move.legs[0]
    if move.initial > 1 or len(move.legs) > 1 or leg.modifiers or move.reach < 2 or move.doubled:
        raise BetzaError(f"{move.text}: castling takes directions and a stride of 2 or more only (isO2)")
    rays = []
    for d in _first_leg(move, leg):
        unit = _step(_vector(move.atom, d))
        rays.append(_encode(unit, CASTLING & LOW_DIGIT, CASTLING >> TOGGLE_SHIFT, (move.reach - 1) * unit))
    return rays


def _compile_initial(move: Move, pawn: bool) -> list[Ray]:
    """``i`` moves: a two-step jump for any piece, or a pawn's blockable push with e.p. rights."""
    leg = move.legs[0]
    atom = move.atom
    if move.initial > 1:
        raise BetzaError(f"{move.text}: '{'i' * move.initial}' (XBoard: a move from a later rank) has no ray")
    if len(move.legs) > 1 or set(leg.modifiers) - set("mcn"):
        raise BetzaError(f"{move.text}: an initial move takes only directions and m, c, n in rays")
    bits = _mode_bits(leg.modifiers)
    directions = _first_leg(move, leg)
    if "n" in leg.modifiers or move.reach != 1:
        # blockable: pawns only, since others' initial rays without the jump bit castle
        if not pawn:
            raise BetzaError(f"{move.text}: only pawns (pieces 1 and 2) have blockable initial moves; "
                             f"other pieces' initial moves are jumps (no n, no range)")
        if bits != QUIET:
            raise BetzaError(f"{move.text}: a pawn's blockable initial move must be move-only (m)")
        if move.reach == 1 and atom.size == 2:           # ifmnD, ifmnA: the double push
            lengths = [2]
        elif move.reach != 1 and atom.size == 1 and 2 <= move.reach <= MAX_PAWN_PUSH:
            lengths = list(range(move.reach, 1, -1))      # ifmW3: triple and double push
        else:
            raise BetzaError(f"{move.text}: a pawn's blockable initial move is a lame D or A (ifmnD) "
                             f"or a slide of range 2 or {MAX_PAWN_PUSH} (ifmW3)")
        units = _compass_vectors(atom.directions)
        return [_encode(_step(units[d]), INITIAL, QUIET, extra=(length - 2) << DELAY_SHIFT)
                for d in directions for length in lengths]
    if atom.size == 1:
        raise BetzaError(f"{move.text}: Fairy-Max's initial moves take two steps, so a one-step "
                         f"initial move has no ray")
    rays = []
    for d in directions:
        vector = _vector(atom, d)
        last = (_sign(vector[0]), _sign(vector[1]))      # the Cambodian King's iN: W, then F
        rays.append(_encode(_step(_minus(vector, last)), INITIAL, JUMP_FIRST | NO_EP | bits, _step(last)))
    return rays


def _compile_one_leg(move: Move, pawn: bool) -> list[Ray]:
    leg = move.legs[0]
    atom = move.atom
    mods = leg.modifiers
    bits = _mode_bits(mods)
    if "y" in mods:
        raise BetzaError(f"{move.text}: 'y' belongs to the first leg of a two-leg move")
    if "e" in mods and not pawn:
        raise BetzaError(f"{move.text}: only pawns (pieces 1 and 2) capture en passant")
    if "e" in mods and "c" not in mods:
        raise BetzaError(f"{move.text}: en passant (e) must come with capture (c)")
    hop = "".join(set("pg") & set(mods))
    path = "".join(set("nj") & set(mods))
    if len(hop) + len(path) > 1:
        raise BetzaError(f"{move.text}: at most one of p, g, n, j")
    if hop and move.reach != 0:
        raise BetzaError(f"{move.text}: a hopper (p, g) must be an unlimited rider")
    if path and (move.reach != 1 or atom.size == 1):
        raise BetzaError(f"{move.text}: '{path}' needs a leap of two or more squares")
    if move.reach > MAX_RANGE:
        raise BetzaError(f"{move.text}: range {move.reach}: a Fairy-Max slide is unlimited or "
                         f"reaches at most {MAX_RANGE} squares")
    cylinder = CYLINDER if "o" in mods else 0
    rays = []
    for d in _first_leg(move, leg):
        vector = _vector(atom, d)
        step = _step(vector)
        extra = cylinder if vector[0] else 0             # steps along a file never wrap
        if hop:
            after = bits | (LEAP if hop == "g" else 0)
            rays.append(_encode(step, HOP, HOP ^ after, extra=extra))
        elif path:
            half = _halfway(vector)
            first = 0 if path == "n" else HOP | LEAP     # pass an empty / hop an occupied square
            rays.append(_encode(_step(half), first, first ^ (LEAP | bits), _step(_minus(vector, half)), extra))
        elif move.reach == 1:
            rays.append(_encode(step, LEAP | bits, extra=extra))
        elif move.reach == 0:
            rays.append(_encode(step, bits, extra=extra))
        else:
            rays.append(_encode(step, bits, LEAP, extra=extra | (move.reach - 2) << DELAY_SHIFT))
    return rays


def _compile_two_legs(move: Move) -> list[Ray]:
    """``FyafsF``-style moves: one ray per (first-leg direction, second-leg direction)."""
    first, second = move.legs
    atom = move.atom
    if atom.size == 0:
        raise BetzaError(f"{move.text}: a two-leg move needs a W, F or K-like atom")
    if move.reach not in (0, 1):
        raise BetzaError(f"{move.text}: a limited range in a two-leg move")
    kind = first.kind()
    if not kind or set(second.modifiers) - set("mco"):
        raise BetzaError(f"{move.text}: rays take a first leg to an empty (m, y) or an occupied "
                         f"(p, g) square and a second leg with only m, c, o")
    if move.reach == 0 and kind != "occupied":
        raise BetzaError(f"{move.text}: a sliding first leg must end on an occupied square (p, g): "
                         f"rays cannot branch at every square of a slide")
    second_leaps = (move.reach == 1) != bool(set("gy") & set(first.modifiers))
    second_low = _mode_bits(second.modifiers) | (LEAP if second_leaps else 0)
    if move.reach == 0:
        first_low = HOP                  # slide to the first occupied square, go on from it
    else:
        first_low = HOP | LEAP if kind == "occupied" else 0
    cylinder = CYLINDER if "o" in first.modifiers + second.modifiers else 0
    if second.directions:
        turns = _directions(move, second.directions, "king", _compass_vectors(ALL_DIRECTIONS))
    else:                                # XBoard: all but back; for W/F kin forward and sideways
        turns = set(ALL_DIRECTIONS - {BACKWARD} if atom.system == "king" else SECOND_LEG_DEFAULT)
    rays = []
    for d in _first_leg(move, first):
        vector = _vector(atom, d)
        for turn in sorted(turns):
            vector2 = _vector(atom, (d + turn) % 8)
            extra = cylinder if vector[0] or vector2[0] else 0
            rays.append(_encode(_step(vector), first_low, first_low ^ second_low, _step(vector2), extra))
    return rays


def _merge(rays: list[Ray]) -> list[Ray]:
    """Fairy-Max's one-ray forms of ray pairs that share a first step (the moves stay the same).

    A move-only slider and a hopper on the same line become the Cannon's ray (``mRcpR``:
    ``1,BA``); a leaper and the two-leg rays that pass its square become rays that stop
    there or go on (``FyafsF``: ``17,3,16``, the Griffon).
    """
    rays = list(dict.fromkeys(rays))
    for plain in list(rays):
        step, mode = plain
        low = mode & LOW_DIGIT
        if mode & ~LOW_DIGIT & ~CYLINDER:
            continue
        if low == QUIET:
            hoppers = [r for r in rays if r[0] == step and r[1] & LOW_DIGIT == HOP
                       and r[1] & THIRD_DIGIT == mode & THIRD_DIGIT]
            if hoppers:
                hopper = hoppers[0]
                after = HOP ^ (hopper[1] >> TOGGLE_SHIFT & LOW_DIGIT)
                cannon = HOP | QUIET
                merged = (hopper[1] & ~FIRST_TWO_DIGITS) | cannon | (cannon ^ after) << TOGGLE_SHIFT
                rays[rays.index(hopper)] = (step, to_int32(merged))
                rays.remove(plain)
        elif low & LEAP and low & BOTH and not low & HOP:
            passing = [r for r in rays if r[0] == step and r[1] & LOW_DIGIT == 0
                       and r[1] >> TOGGLE_SHIFT & LOW_DIGIT and r[1] & THIRD_DIGIT == mode & THIRD_DIGIT]
            for ray in passing:
                toggle = ray[1] >> TOGGLE_SHIFT & LOW_DIGIT
                stop_or_go = low & BOTH
                merged = (ray[1] & ~FIRST_TWO_DIGITS) | stop_or_go | (stop_or_go ^ toggle) << TOGGLE_SHIFT
                rays[rays.index(ray)] = (step, to_int32(merged))
            if passing:
                rays.remove(plain)
    return rays


def _pushes_one_step(rays: list[Ray], step: int) -> bool:
    """Some plain ray moves one ``step`` to an empty square."""
    return any(s == step and m & ~LOW_DIGIT & ~CYLINDER == 0 and m & QUIET for s, m in rays)


def compile_betza(text: str, *, pawn: bool = False, gui: bool = False) -> list[Ray]:
    """White's rays for the moves in Betza ``text`` (see the module docstring).

    ``pawn``: the piece is one of Fairy-Max's pawns (pieces 1 and 2), which alone have
    blockable initial pushes (with e.p. rights) and capture en passant.  ``gui``: the
    text also goes to XBoard in a ``piece`` line, so what XBoard reads differently (a
    doubled atom) is refused.  Initial-move rays come first (Fairy-Max looks at a pawn's
    first ray to see a triple push), the others in the order of the text.  Raises
    :class:`BetzaError` for text that is malformed or that rays cannot express.
    """
    initial: list[Ray] = []
    others: list[Ray] = []
    pushes: list[tuple[Move, int]] = []
    for move in _parse(text):
        if gui and move.doubled:
            raise BetzaError(f"{move.text}: XBoard reads a doubled atom as the atom twice; "
                             f"write {move.atom.letter}0 for the rider")
        if len(move.legs) > 2:
            raise BetzaError(f"{move.text}: {len(move.legs)} legs; a Fairy-Max ray has at most two")
        if move.atom.letter == CASTLING_ATOM:
            initial += _compile_castling(move)
        elif move.initial:
            rays = _compile_initial(move, pawn)
            initial += rays
            if move.reach > 1:
                pushes += [(move, step) for step, _ in rays]
        elif len(move.legs) == 2:
            others += _compile_two_legs(move)
        else:
            others += _compile_one_leg(move, pawn)
    for move, step in pushes:
        if not _pushes_one_step(others, step):
            raise BetzaError(f"{move.text}: Fairy-Max has no initial one-step push; give the step "
                             f"as a plain move too (fmW)")
    initial.sort(key=lambda ray: -(ray[1] >> DELAY_SHIFT & MAX_DELAY))    # the longest push first
    return _merge(initial + others)


def black_rays(rays: list[Ray]) -> list[Ray]:
    """The rays turned half round: Black's rays for a Betza text, which XBoard reads from
    Black's side.  Both legs turn (White's ``-16,1F0F4`` is Black's ``16,1F0F4``)."""
    turned = []
    for step, mode in rays:
        step2 = second_step(step, mode)
        turned.append((-step, to_int32((mode & MODE_BITS) + ((-step2 ^ -step) << STEP2_SHIFT))))
    return turned


# ---------------------------------------------------------------- rays back to Betza

@dataclass(frozen=True)
class _Part:
    """A Betza move without its directions: what the rays of one group share."""

    atom: str
    reach: int = 1
    initial: bool = False
    mode: str = ""
    hop: str = ""
    path: str = ""

    def text(self, directions: str, en_passant: bool, cylinder: bool) -> str:
        """The move, its letters in the order XBoard reads them."""
        atom, reach = self.atom, "" if self.reach == 1 else str(self.reach)
        if self.reach == 0 and atom in RIDER_OF:
            atom, reach = RIDER_OF[atom], ""
        return "".join(("i" if self.initial else "", directions, self.mode, "e" if en_passant else "",
                        self.hop, "o" if cylinder else "", self.path, atom, reach))


RIDER_OF = {leaper: rider for rider, leaper in LEAPER_OF.items()}


def _atom_and_direction(vector: Vector) -> tuple[Atom, int] | None:
    """The leaper atom that makes this move, and its direction; None if no atom does."""
    for atom in ATOMS.values():
        if atom.slides or atom.letter in ("K", CASTLING_ATOM):
            continue
        for d in atom.directions:
            if _vector(atom, d) == vector:
                return atom, d
    return None


def _mode_letter(bits: int) -> str:
    return {QUIET: "m", CAPTURE: "c", BOTH: ""}[bits & BOTH]


def _read_ray(step: int, mode: int) -> list[tuple[_Part, Vector]] | None:
    """What one ray does as Betza parts, each with its White vector; None if that is not simple."""
    mode &= ~CYLINDER
    low, toggle = mode & LOW_DIGIT, mode >> TOGGLE_SHIFT & LOW_DIGIT
    delay = mode >> DELAY_SHIFT & MAX_DELAY
    step2 = second_step(step, mode)
    first, second = _vector_of(step), _vector_of(step2)
    whole = (first[0] + second[0], first[1] + second[1])
    unit = max(map(abs, first)) == 1
    if low == INITIAL:
        if mode & MODE_BITS == CASTLING and unit and 0 in first:
            stride = 1 + max(map(abs, second))
            if second == (first[0] * (stride - 1), first[1] * (stride - 1)):
                return [(_Part(CASTLING_ATOM, stride, True), first)]
        elif mode & FIRST_TWO_DIGITS == DOUBLE_PUSH and step2 == step and unit and delay < MAX_PAWN_PUSH - 1:
            if delay:                                   # 424: the triple push of ifmW3
                return [(_Part("", MAX_PAWN_PUSH, initial=True, mode="m"), first)]
            return [(_Part("", initial=True, mode="m", path="n"), whole)]
        elif mode & MODE_BITS == (INITIAL | (JUMP_FIRST | NO_EP | toggle & BOTH) << TOGGLE_SHIFT) \
                and toggle & BOTH and second == (_sign(whole[0]), _sign(whole[1])) and first != (0, 0):
            return [(_Part("", initial=True, mode=_mode_letter(toggle)), whole)]
        return None
    after = low ^ toggle
    if low in (0, HOP | LEAP):                          # lame (n) or jumping (j) leapers
        if delay or _halfway(whole) != first or after & HOP or not after & LEAP or not after & BOTH:
            return None
        return [(_Part("", mode=_mode_letter(after), path="n" if low == 0 else "j"), whole)]
    if step2 != step:
        return None
    if delay and toggle != LEAP:
        return None
    if low == HOP | QUIET and not after & (LEAP | HOP) and after & BOTH:   # the Cannon
        return [(_Part("", 0, mode="m"), first), (_Part("", 0, mode=_mode_letter(after), hop="p"), first)]
    if low == HOP and not after & HOP and after & BOTH:
        return [(_Part("", 0, mode=_mode_letter(after), hop="g" if after & LEAP else "p"), first)]
    if low & HOP or not low & BOTH:
        return None
    if toggle == 0:
        return [(_Part("", 1 if low & LEAP else 0, mode=_mode_letter(low)), first)]
    if toggle == LEAP and not low & LEAP:
        return [(_Part("", delay + 2, mode=_mode_letter(low)), first)]
    return None


def _join_kings(groups: dict[_Part, set[int]]) -> dict[_Part, set[int]]:
    """W and F parts alike in all but the atom, both in every direction, become K (Q)."""
    joined: dict[_Part, set[int]] = {}
    for part, directions in groups.items():
        partner = replace(part, atom="F" if part.atom == "W" else "W")
        whole = part.atom in "WF" and directions == set(ATOMS[part.atom].directions)
        if whole and groups.get(partner) == set(ATOMS[partner.atom].directions):
            if part.atom == "W":
                joined[replace(part, atom="K")] = set(ALL_DIRECTIONS)
        else:
            joined[part] = directions
    return joined


def _direction_texts(chosen: set[int], atom: Atom) -> list[str]:
    """Direction letters that choose exactly ``chosen``: one string, or one per move if the
    groups would read differently written together."""
    vectors = _first_leg_vectors(atom)
    if chosen == set(vectors):
        return [""]
    candidates: dict[frozenset[int], str] = {}
    for length in (1, 2):
        for letters in map("".join, product(DIRECTION_LETTERS, repeat=length)):
            try:
                candidates.setdefault(frozenset(_select(letters, atom.system, vectors)), letters)
            except BetzaError:
                continue
    cover: list[str] = []
    covered: set[int] = set()
    for picked, letters in sorted(candidates.items(), key=lambda c: (-len(c[0]), len(c[1]), c[1])):
        if picked <= chosen and not picked <= covered:
            cover.append(letters)
            covered |= picked
    joined = "".join(cover)
    try:
        if _select(joined, atom.system, vectors) == chosen:
            return [joined]
    except BetzaError:
        pass
    return cover


def rays_to_betza(rays: list[Ray], *, pawn: bool = False) -> str | None:
    """Betza text (White's view) that :func:`compile_betza` turns into these rays (or
    their one-ray forms, see ``_merge``), or None.

    Leapers, riders, range limits, lame and jumping leapers, hoppers, the Cannon,
    initial pushes and jumps and castling are written; bent two-leg rays and other odd
    modes give None.  A pawn's captures get ``e`` when it has a double push.
    """
    cylinder = any(mode & CYLINDER for _, mode in rays)
    groups: dict[_Part, set[int]] = {}
    for step, mode in rays:
        read = _read_ray(step, mode)
        if read is None:
            return None
        for part, vector in read:
            if part.atom == CASTLING_ATOM:
                compass = _compass_vectors(ORTHOGONAL)
                found = ATOMS[CASTLING_ATOM], next(d for d in compass if compass[d] == vector)
            else:
                found = _atom_and_direction(vector)
                if found is None:
                    return None
                part = replace(part, atom=found[0].letter)
            groups.setdefault(part, set()).add(found[1])
    groups = _join_kings(groups)
    en_passant = pawn and any(part.initial and part.path == "n" for part in groups)
    texts = []
    for part in sorted(groups, key=lambda p: (p.atom == CASTLING_ATOM, p.initial)):
        atom = ATOMS[part.atom]
        wraps = cylinder and part.atom != CASTLING_ATOM and any(_vector(atom, d)[0] for d in groups[part])
        texts += [part.text(directions, en_passant and part.mode == "c", wraps)
                  for directions in _direction_texts(groups[part], atom)]
    text = "".join(texts)
    try:
        same = set(compile_betza(text, pawn=pawn)) == set(_merge(list(rays)))
    except BetzaError:
        return None
    return text if same else None

