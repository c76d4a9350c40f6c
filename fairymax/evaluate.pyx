# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Static evaluation for any piece set, driven by the variant's data.

Terms (centipawns; `evaluate` returns the side to move's view):

* incremental (Board keeps pos.psq_score from Rules.psq, filled by init_psq), tapered:
  a middle-game and an end-game value packed in one int (make_score), blended by
  the game phase (non-pawn material on the board; always middle game in drop games):
  material (the ini values unless the weights say otherwise; royals 0) plus the
  type's piece-square table where the weights give one (a fit makes them), else
  the data-derived default: Fairy-Max's centralisation for lower-case
  (Rules.centralized) pieces; pawn advancement, growing near the promotion zone
  (divided by 8 when the promoted piece is weak, as Fairy-Max);
* per call, walking the piece lists: pawn structure (doubled, isolated, supported,
  side by side, which are passed) and space (safe centre squares on the own side of
  the pawns, times the square of the side's piece count), kept in a cache by
  Position.pawn_key, as they change only with pawn moves; passed pawns by steps to
  promotion, their free path and, in the end game, both royals' distances to the
  square in front of them, each pawn's sum bounded by what its promotion gains where
  passer_cap says; royal safety blended by the opponent's material (stay home, keep
  pawns in front and on the files around in the middle game, centralise in the end
  game); mobility
  (squares reached by the first step of every ray, all squares of sliding rays,
  except those an enemy pawn attacks),
  weighted per type by `mobility` for pieces with a sliding ray plus the type's
  mobility_X (0 unless a variant's weights set it; leapers count only where it is
  set, else they get centralisation alone); rook-like
  sliders on open files and on the rank in front of the enemy's back rank;
  pairs of colour-bound pieces; threats on enemy pieces worth THREAT_GAP more than
  the attacker (and pawns' threats on pieces, made or one safe step away); the
  attack of two or more pieces (leapers included) on the squares around the enemy
  royal, and each piece's attacks on them
  weighted by its type (king_zone_X, 0 unless a variant's weights set them);
  spare royals (Spartan) worth |value| each beyond the first; mop-up
  against a bare royal (drive it to the edge, bring the royals together) with
  pawns, two pieces or one that mates alone; a bare royal against a royal and one
  piece that cannot mate alone (a knight, a khon, a ferz) is a dead draw;
  a drawish-material scale (no pawns, at most the best piece that cannot mate alone
  ahead: a minor in chess, a knight in makruk); a tempo for the
  side to move, by the game phase (a teacher's search scores count the move it has,
  a static score does not; in the end game the move is worth little, or harms);
* in drop games, pieces in hand count as material for the blend by the opponent's
  material, the royal's empty neighbours are a threat by what the enemy holds in
  hand, and there is no mop-up or drawish scale.

Every weight is a named entry of one table (WEIGHT_DEFAULTS; material_mg_X and
material_eg_X per piece letter; tables psq_mg_X and psq_eg_X), overridden per variant
by fairymax/weights/VARIANT.txt (`python -m fairymax tune fit` makes it) and read into
EvalInfo.w and Rules.psq.

Lazy evaluation, in two stages: the per-call terms are skipped when the
incremental score is outside [alpha - lazy_margin, beta + lazy_margin], and
the piece terms, the slowest, when the score without them is outside
[alpha - piece_terms_margin, beta + piece_terms_margin]: two weights, measured per
variant, as those terms weigh far more in some (capablanca's king attack) than in
others (shatranj's short-range pieces).  Both scores are kept in a
cache by Position.key (EvalCache), so that a position evaluated again takes the same
exits without the work.
"""
from array import array

from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memset, memcpy

from fairymax.types cimport (NSQ, MAX_TYPES, MAX_FILES, MAX_RANKS, TYPE_MASK, EMPTY, EDGE, M_CAPTURE,
                             M_QUIET, M_LEAP, M_HOP, STRIDE, COLOUR_MASK, colour_of, colour_bit,
                             piece_index, square)
from fairymax.variant cimport Rules, Variant, owner_index
from fairymax.board cimport Position, Board

# The tunable weights (centipawns, or percent of a table), in EvalInfo.w[W_...] order;
# a variant's weights file (fairymax/weights/VARIANT.txt, made by `python -m fairymax
# tune fit`) overrides them, and adds `material_X` values for its piece letters.
# Mobility, the rook-like slider terms, the threats, the open file at the royal and the
# passer's free square and royal distances take the median, rounded down, of the fits
# that have them (chess, the first capablanca fit, and the Fairy-Stockfish-labelled
# shatranj, makruk and courier fits in results/), none of which made them negative.
# piece_pair and king_attack stay 0 (two and four of those fits left them at 0),
# pawn_supported and pawn_phalanx too (fits of both signs); the rest keep their
# hand-set values.
WEIGHT_DEFAULTS = {
    "centre_spread": 30,    # centralised piece: corner to centre difference
    "doubled": 12,
    "isolated": 10,
    "mobility": 3,          # per reachable square
    "king_home": 12,        # middle game, per rank away from home
    "king_shelter": 8,      # middle game, per own piece right in front of the royal
    "king_centre": 2,       # end game, per unit of centre closeness (0..16)
    "open_file": 28,        # rook-like slider on a file without pawns
    "semi_open_file": 12,   # ... without own pawns
    "seventh_rank": 36,     # rook-like slider on the rank in front of the enemy's back
                            # rank while the enemy royal is on it
    "piece_pair": 0,        # two colour-bound pieces of a type on both colours
    "king_attack": 0,       # percent of the KING_ATTACK table
    "passed": 100,          # percent of the PASSED table
    "advance": 100,         # percent of the ADVANCE table
    "drop_threat": 8,       # drop games: per empty square next to the royal, at full
                            # enemy hand (DROP_THREAT_CAP units: a pawn 1, a piece 2)
    "pawn_threat": 14,      # per enemy piece (not pawn or royal) a pawn attacks
    "pawn_supported": 0,    # per pawn an own pawn defends
    "pawn_phalanx": 0,      # per pair of own pawns side by side
    "passer_free": 2,       # passed pawn with an empty square in front (x PASSER_FACTOR)
    "passer_own_king": 2,   # end game: per step from the own royal to the square in front
                            # of a passed pawn, a penalty (x PASSER_FACTOR; steps counted
                            # up to PASSER_KING_REACH)
    "passer_enemy_king": 2, # end game: per step from the enemy royal to it, a bonus
    "piece_threat": 15,     # per enemy piece attacked by a piece worth THREAT_GAP less
    "king_open_file": 15,   # middle game: per file at or next to the royal without own pawn
    "low_mobility": 0,      # per safe square short of LOW_MOBILITY_SQUARES, for each piece
                            # whose mobility counts: the first few squares matter most
    "pawn_push_threat": 0,  # per enemy piece (not pawn or royal) a pawn would attack
                            # after a step to an empty square no enemy pawn attacks
    "passer_cap": 0,        # percent of what its promotion gains that bounds a passed
                            # pawn's bonuses (0: no bound)
    "tempo": 0,             # for the side to move with all pieces on the board, falling
                            # with the game phase (see the module doc)
    "space": 0,             # per space square (see space_count), times the square of the
                            # side's piece count less SPACE_PIECES_FREE over SPACE_SCALE
    # the lazy evaluation's margins (see the module doc): measured, not fitted, by `tune
    # margins`, near the 99th percentile of the terms each exit skips, so that an exit
    # seldom lands on the wrong side of the window; the defaults were set so over
    # capablanca's self-play positions (587 and 401 cp; chess 457 and 317)
    "lazy_margin": 600,     # all but the incremental score
    "piece_terms_margin": 400,  # the piece terms
    # the search's selectivity (search.pyx), set per variant by matches, not fitted:
    # a null move is reduced null_base plies, one more per null_depth_step plies of
    # depth up to null_depth_plies more, and one more per null_eval_step of static
    # eval above beta up to null_eval_plies more; reduce_checks 1 lets LMR reduce
    # checking moves at null-window nodes; improving_lmr more plies of LMR where the
    # static eval is not above that of two plies before (the side to move is not
    # improving); horizon_checks 1 extends checks at the horizon too, so that a side
    # in check there searches its evasions a ply deep instead of standing pat.  The
    # null-move and check reductions gain in capablanca and lose in the shatranj
    # family, improving_lmr gains in capablanca, shatranj and makruk, horizon_checks
    # in capablanca (docs/measurements.md); the defaults prune less.
    "null_base": 2,
    "null_depth_step": 6,
    "null_depth_plies": 1,
    "null_eval_step": 200,
    "null_eval_plies": 0,
    "reduce_checks": 0,
    "improving_lmr": 0,
    "horizon_checks": 0,
}
WEIGHT_NAMES = tuple(WEIGHT_DEFAULTS)
# weights that `tune margins` measures and `tune fit` leaves alone
MARGIN_WEIGHTS = ("lazy_margin", "piece_terms_margin")
# weights of the search; the steps divide, so they are positive
SEARCH_WEIGHTS = ("null_base", "null_depth_step", "null_depth_plies", "null_eval_step",
                  "null_eval_plies", "reduce_checks", "improving_lmr", "horizon_checks")
# weights that `tune fit` leaves alone: measured or set by matches, not fitted to labels
UNFITTED_WEIGHTS = MARGIN_WEIGHTS + SEARCH_WEIGHTS
POSITIVE_WEIGHTS = ("null_depth_step", "null_eval_step")
# weights that only shape the data-derived tables: a variant whose weights give every
# type a table (psq_mg_X, psq_eg_X) no longer uses them
TABLE_DEFAULT_WEIGHTS = ("centre_spread", "advance")

cdef enum:
    MOPUP_EDGE = 10
    MOPUP_CLOSE = 6
    DEAD_DRAW_SCALE = 16    # a lone piece that cannot mate against a bare royal
    DRAWISH_SCALE = 4       # no pawns and no more than drawish_lead ahead
    SCORE_UNKNOWN = -0x7fffffff     # ScoreEntry.full before the piece terms are computed
    PAIR_MIN_VALUE = 250    # (bishops; not ferzes or alfils)
    WEAK_PROMOTION = 250    # a pawn promoting to a piece worth less (met, ferz) gains less
                            # from advancing and from being passed
    KING_ATTACK_CAP = 15    # attacked squares around the royal counted at most
    DROP_THREAT_CAP = 8     # hand units (pawn 1, other piece 2) that make the full threat
    FIRST_PIECE_TYPE = 3    # types 1 and 2 are the two colours' pawns (Fairy-Max)
    THREAT_GAP = 100        # piece_threat: the victim is worth this much more than the attacker
    PASSER_KING_REACH = 5   # royal distances to a passer's path count up to this
    LOW_MOBILITY_SQUARES = 3    # low_mobility: a piece with fewer safe squares is cramped
    # space: the weight's multiplier is (pieces - SPACE_PIECES_FREE)^2 / SPACE_SCALE, pawns
    # and royal counted: 1 for chess's full army, 1.71 for capablanca's (Stockfish weighs
    # its space by the square of the piece count too)
    SPACE_PIECES_FREE = 3
    SPACE_SCALE = 169
    SPACE_RANKS = 3             # space squares lie on the own 2nd to 4th ranks,
    SPACE_EDGE_SHARE = 4        # off the outer quarter of files on each side, and count
    SPACE_PAWN_REACH = 3        # twice with an own pawn up to this many squares in front

# passed-pawn bonus by steps to promotion (index 1 = one step away)
cdef int PASSED[8]
PASSED[:] = [0, 70, 45, 28, 16, 10, 6, 4]
# passed pawns' free path and royal distances by steps to promotion: only the advanced
# ones race
cdef int PASSER_FACTOR[8]
PASSER_FACTOR[:] = [0, 5, 4, 3, 2, 1, 0, 0]
# attack on the enemy royal by the number of hits on the squares around it, when two
# or more pieces take part; grows faster than linearly, as one defender cannot cover
# many attacked squares; scaled by the attacker's material
cdef int KING_ATTACK[KING_ATTACK_CAP + 1]
KING_ATTACK[:] = [0, 0, 4, 10, 18, 28, 40, 54, 70, 88, 108, 130, 150, 170, 185, 200]
# what piece_terms knows of each cell for one side's pieces, one byte a cell
cdef enum:
    SAFE_CELL = 1           # no enemy pawn attacks it
    ZONE_CELL = 2           # the enemy royal's square or next to it (edge cells too)
# advancement bonus by steps to promotion, Fairy-Max's +64 on the 6th, +128 on the 7th
cdef int ADVANCE[8]
ADVANCE[:] = [0, 128, 64, 20, 8, 3, 0, 0]


cdef struct PsqSource:                 # what init_psq hands fill_psq
    int material[2][MAX_TYPES]          # [phase][type]: middle game, end game
    int has_table[MAX_TYPES]
    int table[2][MAX_TYPES][MAX_FILES * MAX_RANKS]  # [phase][type][owner_index]


cdef inline int iabs(int x) noexcept nogil:
    return -x if x < 0 else x


cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b


cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline int empty_neighbours(const Position* p, int sq) noexcept nogil:
    """Empty squares next to sq: where a piece from hand could be dropped against it."""
    return ((p.sq[sq - STRIDE - 1] == EMPTY) + (p.sq[sq - STRIDE] == EMPTY) + (p.sq[sq - STRIDE + 1] == EMPTY)
            + (p.sq[sq - 1] == EMPTY) + (p.sq[sq + 1] == EMPTY)
            + (p.sq[sq + STRIDE - 1] == EMPTY) + (p.sq[sq + STRIDE] == EMPTY) + (p.sq[sq + STRIDE + 1] == EMPTY))


cdef inline int is_pawn_of(int cell, int c) noexcept nogil:
    """Is the cell's piece colour c's pawn (type 1 + c, Fairy-Max's numbering)?"""
    return (cell & (TYPE_MASK | COLOUR_MASK)) == ((1 + c) | colour_bit(c))


cdef int steps_to_promotion(const Rules* r, int colour, int row) noexcept nogil:
    """Pawn steps from `row` to the colour's promotion row (99 if it never promotes)."""
    cdef int target = r.promo_row[colour]
    if target < 0:
        return 99
    return row - target if colour == 0 else target - row


cdef inline score_t make_score(int mg, int eg) noexcept nogil:
    """A middle-game and an end-game value packed in one int (|eg| < 32768), so that
    Board adds and subtracts both halves with one operation."""
    return mg + eg * 65536


cdef inline int end_game_half(score_t packed) noexcept nogil:
    """The end-game value of a packed score (see make_score)."""
    return (packed + 32768) >> 16


cdef inline int taper(score_t packed, int phase) noexcept nogil:
    """The packed score's blend: all middle game at phase 256, all end game at 0."""
    cdef int eg = end_game_half(packed)
    cdef int mg = packed - eg * 65536
    return (mg * phase + eg * (256 - phase)) // 256


cdef int default_bonus(const Rules* r, int t, int c, int sq, int centre_spread,
                       int advance) noexcept nogil:
    """The data-derived positional value of a piece of type t and colour c on sq, when
    the weights give no table: Fairy-Max's centralisation for lower-case pieces, pawn
    advancement (percent of ADVANCE; divided by 8 when the promoted piece is weak)."""
    cdef int row = r.sq_row[sq], file = r.sq_file[sq], steps, promo, bonus = 0
    cdef double cx = (r.width - 1) / 2.0, cy = (r.height - 1) / 2.0
    cdef double d2, maxd2 = cx * cx + cy * cy
    if t == 1 + c:          # the colour's pawn
        steps = steps_to_promotion(r, c, row)
        if 0 < steps < 8:
            bonus = ADVANCE[steps] * advance // 100
            promo = r.promo_type[c][file]
            if promo > 0 and r.value[promo] < WEAK_PROMOTION:
                bonus = bonus // 8
        # central pawns gain a little per step from their start row
        if r.pawn_row[c] >= 0 and 2 * file >= r.width // 2 - 1 and 2 * file <= r.width + r.width // 2 - 1:
            bonus += 4 * imax(0, iabs(row - r.pawn_row[c]))
    elif r.centralized[t] and r.value[t] > 0:
        d2 = (file - cx) * (file - cx) + (row - cy) * (row - cy)
        bonus = <int>(centre_spread * (1.0 - d2 / maxd2)) - centre_spread // 2
    return bonus


cdef void fill_psq(Rules* r, const PsqSource* src, int centre_spread, int advance) noexcept nogil:
    """Fill r.psq[type | colour << 4][sq] (packed middle and end game, owner's view):
    the type's material plus its table, or default_bonus where it has none; and
    r.hand_psq, the material of a piece in hand (Seirawan's gating hand stays unvalued)."""
    cdef int t, c, sq, i, mg, eg
    for t in range(32):
        r.hand_psq[t] = 0
        for sq in range(NSQ):
            r.psq[t][sq] = 0
    for t in range(1, r.num_types + 1):
        for c in range(2):
            if r.drops:
                r.hand_psq[t | (c << 4)] = make_score(src.material[0][t], src.material[1][t])
            for sq in range(NSQ):
                if not r.is_board[sq]:
                    continue
                if src.has_table[t]:
                    i = owner_index(r, c, sq)
                    mg = src.table[0][t][i]
                    eg = src.table[1][t][i]
                else:
                    mg = eg = default_bonus(r, t, c, sq, centre_spread, advance)
                r.psq[t | (c << 4)][sq] = make_score(src.material[0][t] + mg, src.material[1][t] + eg)


# weights by variant name, from its weights file or the defaults (set_weights changes them)
_variant_weights: dict = {}
PHASES = ("mg", "eg")       # middle game, end game: the halves of a tapered weight


def type_letters(Variant variant) -> dict:
    """{type: its ini letter}; types sharing a letter (the two pawns, a king before and
    after castling) share their weights."""
    return {t: variant.spec.pieces[t - 1].letter for t in range(1, variant.rules.num_types + 1)}


def material_name(Variant variant, int t, str phase) -> str:
    """The weight name of type t's material value in a phase: material_mg_ and its letter."""
    return f"material_{phase}_{variant.spec.pieces[t - 1].letter}"


def table_name(Variant variant, int t, str phase) -> str:
    """The weight name of type t's piece-square table in a phase (a list of width x height
    values seen from the owner's side, its first rank first): psq_mg_ and its letter."""
    return f"psq_{phase}_{variant.spec.pieces[t - 1].letter}"


# terms weighted per piece type (0 unless a variant's weights set them): TERM_X
PER_TYPE_TERMS = (
    "king_zone",    # per square around the enemy royal that the piece attacks
    "mobility",     # per square it reaches, on top of `mobility` for sliding pieces
)


def type_weight_name(Variant variant, str term, int t) -> str:
    """The weight name of a per-type term (PER_TYPE_TERMS) of type t: the term and its letter."""
    return f"{term}_{variant.spec.pieces[t - 1].letter}"


def weighted_types(Variant variant) -> list:
    """The types with per-type weights: the non-royal pieces other than pawns."""
    return [t for t in range(FIRST_PIECE_TYPE, variant.rules.num_types + 1) if variant.rules.value[t] > 0]


def type_weight_names(Variant variant) -> list:
    """The variant's per-type weight names (types sharing a letter share one)."""
    return sorted({type_weight_name(variant, term, t)
                   for term in PER_TYPE_TERMS for t in weighted_types(variant)})


def table_size(Variant variant) -> int:
    return variant.rules.width * variant.rules.height


def default_weights(Variant variant) -> dict:
    """WEIGHT_DEFAULTS, the ini values of the variant's non-royal types in both phases
    and no per-type terms, overridden by its weights file where it has one (which may
    add tables)."""
    weights = dict(WEIGHT_DEFAULTS)
    weights.update({name: 0 for name in type_weight_names(variant)})
    for t in range(1, variant.rules.num_types + 1):
        if variant.rules.value[t] > 0:
            for phase in PHASES:
                weights[material_name(variant, t, phase)] = variant.rules.value[t]
    from fairymax import tune
    path = tune.weights_path(variant.spec.name)
    if path.is_file():
        weights.update(checked_weights(variant, weights, tune.read_weights(path), str(path)))
    return weights


def checked_weights(Variant variant, dict known, dict weights, str source) -> dict:
    """weights if every name is known (or names a table of the right size), else ValueError."""
    tables = {table_name(variant, t, phase) for t in type_letters(variant) for phase in PHASES}
    for name, value in weights.items():
        if name in tables:
            if not isinstance(value, list) or len(value) != table_size(variant):
                raise ValueError(f"{source}: {name} needs {table_size(variant)} values")
        elif name not in known:
            raise ValueError(f"{source}: unknown weight {name}")
        elif isinstance(value, list):
            raise ValueError(f"{source}: {name} takes one value")
        elif name in POSITIVE_WEIGHTS and value <= 0:
            raise ValueError(f"{source}: {name} must be positive")
    return weights


def get_weights(Variant variant) -> dict:
    name = variant.spec.name
    if name not in _variant_weights:
        _variant_weights[name] = default_weights(variant)
    return dict(_variant_weights[name])


def forget_weights(Variant variant):
    """Go back to the variant's weights file, or the defaults (init_psq must follow)."""
    _variant_weights.pop(variant.spec.name, None)


def set_weights(Variant variant, dict weights):
    """Use these weights for the variant from now on (init_psq must follow)."""
    known = get_weights(variant)
    known.update(checked_weights(variant, known, weights, "set_weights"))
    _variant_weights[variant.spec.name] = known


def init_psq(Variant variant):
    """Fill variant.rules.psq (material + positional terms). Idempotent and cheap.

    Must be called before searching a variant; a Board created earlier keeps a stale
    psq_score, which the Searcher recomputes on its own copy (psq_total).
    """
    cdef PsqSource src
    cdef int t, k, i
    memset(&src, 0, sizeof(src))
    weights = get_weights(variant)
    for t in range(1, variant.rules.num_types + 1):
        for k, phase in enumerate(PHASES):
            if variant.rules.value[t] > 0:
                src.material[k][t] = weights[material_name(variant, t, phase)]
            table = weights.get(table_name(variant, t, phase))
            if table is not None:
                src.has_table[t] = 1
                for i in range(len(table)):
                    src.table[k][t][i] = table[i]
    cdef int spread = weights["centre_spread"], advance = weights["advance"]
    with nogil:
        fill_psq(&variant.rules, &src, spread, advance)


def psq_tables(Variant variant) -> dict:
    """Every type letter's tables in both phases as init_psq made them (material taken
    out): the weights' own tables, or the data-derived defaults; for the tuner."""
    cdef const Rules* r = &variant.rules
    cdef int t, k, sq, packed, value
    init_psq(variant)
    weights = get_weights(variant)
    tables = {}
    for t, letter in type_letters(variant).items():
        if table_name(variant, t, "mg") in tables:
            continue
        for k, phase in enumerate(PHASES):
            material = weights[material_name(variant, t, phase)] if r.value[t] > 0 else 0
            table = [0] * table_size(variant)
            for sq in range(NSQ):
                if r.is_board[sq]:
                    packed = r.psq[t][sq]
                    value = taper(packed, 256 if k == 0 else 0)
                    table[owner_index(r, 0, sq)] = value - material
            tables[table_name(variant, t, phase)] = table
    return tables


cdef int psq_total(const Position* p, const Rules* r) noexcept nogil:
    """Sum of Rules.psq over all pieces and Rules.hand_psq over the pieces in hand, White's
    view (what Board maintains incrementally)."""
    cdef int c, k, sq, t, total = 0
    for c in range(2):
        for t in range(1, r.num_types + 1):
            total += (1 - 2 * c) * p.hand[c][t] * r.hand_psq[t | (c << 4)]
        for k in range(p.pcount[c]):
            sq = p.plist[c][k]
            if c == 0:
                total += r.psq[piece_index(p.sq[sq])][sq]
            else:
                total -= r.psq[piece_index(p.sq[sq])][sq]
    return total


ORTHOGONAL_STEPS = frozenset({1, -1, STRIDE, -STRIDE})     # a rook's ray steps
DIAGONAL_STEPS = frozenset({STRIDE - 1, STRIDE + 1, -STRIDE - 1, -STRIDE + 1})   # a bishop's


cdef inline bint plain_ray(int mode):
    """Is the ray a plain step, leap or slide, with none of Fairy-Max's higher mode bits
    (bent, multi-leg or cylinder rays)?"""
    return (mode & ~(M_CAPTURE | M_QUIET | M_LEAP | M_HOP)) == 0


cdef set capture_slides(const Rules* r, int t):
    """The steps of type t's plain capturing slides."""
    cdef int k
    return {r.ray_step[k] for k in range(r.first_ray[t], r.first_ray[t + 1])
            if r.ray_mode[k] & M_CAPTURE and not r.ray_mode[k] & (M_LEAP | M_HOP) and plain_ray(r.ray_mode[k])}


cdef bint keeps_square_colour(const Rules* r, int t):
    """Does every ray of type t keep to its square colour (a bishop, ferz, alfil)?"""
    cdef int k
    return all(plain_ray(r.ray_mode[k]) and step_parity(r.ray_step[k]) == 0
               for k in range(r.first_ray[t], r.first_ray[t + 1]))


cdef bint lone_mater(const Rules* r, int t):
    """Can one piece of type t, with its royal's help, force mate on a bare royal?
    Read off the rays: capturing slides in the four directions of ranks and files
    (rook, queen, chancellor; not a lance), the four diagonal ones on a piece that
    can change its square colour (archbishop; a bishop cannot), or steps that
    capture in all eight directions around it (a commoner, a second king).
    Knights, khons, ferzes, alfils and the like cannot."""
    cdef int k
    slides = capture_slides(r, t)
    steps = {r.ray_step[k] for k in range(r.first_ray[t], r.first_ray[t + 1])
             if r.ray_mode[k] & M_CAPTURE and not r.ray_mode[k] & M_HOP and plain_ray(r.ray_mode[k])}
    return (ORTHOGONAL_STEPS <= slides or (DIAGONAL_STEPS <= slides and not keeps_square_colour(r, t))
            or ORTHOGONAL_STEPS | DIAGONAL_STEPS <= steps)


cdef int lone_mater_types(const Rules* r):
    """Bit t set: type t mates a bare royal alone (lone_mater).  Only types worth more than
    0 count: royals are worth less (see eval_info_init), so none of them is set."""
    cdef int t, types = 0
    for t in range(FIRST_PIECE_TYPE, r.num_types + 1):
        if r.value[t] > 0 and lone_mater(r, t):
            types |= 1 << t
    return types


cdef int eval_info_init(EvalInfo* e, Variant variant) except -1:
    """Derive the per-variant constants of the evaluation from its Rules and start setup."""
    cdef const Rules* r = &variant.rules
    cdef int t, k, sq, row, file, c, n = 0
    cdef double cx = (r.width - 1) / 2.0, cy = (r.height - 1) / 2.0, d
    for t in range(MAX_TYPES):
        e.royal[t] = 0
        e.spare[t] = 0
    e.has_spares = 0
    for t in range(1, r.num_types + 1):
        if r.value[t] < 0:
            e.royal[t] = 1
            if r.value[t] < -2 and r.value[t] >= -665:
                e.spare[t] = -r.value[t]
                e.has_spares = 1
    weights = get_weights(variant)
    own_mobility = {t: weights[type_weight_name(variant, "mobility", t)] for t in weighted_types(variant)}
    for t in range(MAX_TYPES):
        # mobility counts for non-royal types with a sliding ray or a mobility_X
        # weight: one step of every other ray (leapers, hoppers, bent rays), then the
        # whole sliding rays
        e.mob_first[t] = n
        rays = range(r.first_ray[t], r.first_ray[t + 1]) if 1 <= t <= r.num_types else ()
        counted = [k for k in rays if r.ray_mode[k] & (M_CAPTURE | M_QUIET)]
        slides = [k for k in counted if not (r.ray_mode[k] & (M_LEAP | M_HOP)) and plain_ray(r.ray_mode[k])]
        if e.royal[t] or not (slides or own_mobility.get(t, 0)):
            counted = slides = []
        e.mob_weight[t] = (weights["mobility"] if slides else 0) + own_mobility.get(t, 0)
        for k in counted:
            if k not in slides:
                e.mob_step[0][n] = r.walk_step[0][k]
                e.mob_step[1][n] = r.walk_step[1][k]
                n += 1
        e.mob_split[t] = n
        for k in slides:
            e.mob_step[0][n] = r.walk_step[0][k]
            e.mob_step[1][n] = r.walk_step[1][k]
            n += 1
    e.mob_first[MAX_TYPES] = n
    e.mobile_types = 0
    for t in range(MAX_TYPES):
        if e.mob_first[t + 1] > e.mob_first[t]:
            e.mobile_types |= 1 << t
    n = 0
    e.attack_types = e.mobile_types
    for t in range(MAX_TYPES):
        e.atk_first[t] = n
        e.file_slider[t] = 0
        e.colour_bound[t] = 0
        if not FIRST_PIECE_TYPE <= t <= r.num_types or e.royal[t] or r.value[t] <= 0:
            continue
        rays = range(r.first_ray[t], r.first_ray[t + 1])
        slides = capture_slides(r, t)
        e.file_slider[t] = (STRIDE in slides or -STRIDE in slides) and not (
            slides & DIAGONAL_STEPS)
        e.colour_bound[t] = r.value[t] >= PAIR_MIN_VALUE and keeps_square_colour(r, t)
        if not slides:
            for k in rays:
                if r.ray_mode[k] & M_CAPTURE:
                    e.atk_step[0][n] = r.walk_step[0][k]
                    e.atk_step[1][n] = r.walk_step[1][k]
                    n += 1
            if n > e.atk_first[t]:
                e.attack_types |= 1 << t
    e.atk_first[MAX_TYPES] = n
    for c in range(2):          # the first steps of the colour's pawn's capturing rays,
        e.pawn_captures[c] = 0  # and of its first non-capturing one
        e.pawn_push_step[c] = 0
        if r.num_types < 1 + c:
            continue
        for k in range(r.first_ray[1 + c], r.first_ray[2 + c]):
            if r.ray_mode[k] & M_CAPTURE and e.pawn_captures[c] < MAX_PAWN_CAPTURES:
                e.pawn_capture_step[c][e.pawn_captures[c]] = r.walk_step[c][k]
                e.pawn_captures[c] += 1
            elif r.ray_mode[k] & M_QUIET and not r.ray_mode[k] & M_CAPTURE and not e.pawn_push_step[c]:
                e.pawn_push_step[c] = r.walk_step[c][k]
    for t in range(MAX_TYPES):
        e.threat_value[t] = r.value[t] if 1 <= t <= r.num_types and r.value[t] > 0 else 0
    # what Position.piece_material counts, of one side's pieces at the start
    total = sum(r.value[t] for t in variant.spec.white_setup if 2 < t < MAX_TYPES and r.value[t] > 0)
    e.full_material = max(total, 1)
    e.lone_maters = lone_mater_types(r)
    e.drawish_lead = max([r.value[t] for t in range(FIRST_PIECE_TYPE, r.num_types + 1)
                          if r.value[t] > 0 and not (e.lone_maters >> t) & 1], default=0)
    for sq in range(NSQ):
        e.centre[sq] = 0
        if r.is_board[sq]:
            row = r.sq_row[sq]
            file = r.sq_file[sq]
            d = max(abs(file - cx) / max(cx, 0.5), abs(row - cy) / max(cy, 0.5))   # 0 centre .. 1 edge
            e.centre[sq] = <int>(16 * (1.0 - d) + 0.5)
    for k, name in enumerate(WEIGHT_NAMES):
        e.w[k] = weights[name]
    for t in range(MAX_TYPES):
        e.zone_weight[t] = 0
    for t in weighted_types(variant):
        e.zone_weight[t] = weights[type_weight_name(variant, "king_zone", t)]
    return 0


cdef inline int step_parity(int step):
    """Parity of the rows plus files a ray step moves (0: it keeps the square colour).
    Its file part is -8..7 (boards are 16 cells wide); the bit operations are exact
    for negative steps, where this module's C division would truncate."""
    cdef int file = ((step + STRIDE // 2) & (STRIDE - 1)) - STRIDE // 2
    return ((step - file) // STRIDE + file) & 1


cdef class EvalCache:
    """Owner of the caches that an EvalInfo points to: pawn-structure terms by
    Position.pawn_key, and scores by Position.key (a node searched again, in the next
    iteration of its parent's deepening loop, evaluates the same position again)."""

    def __cinit__(self):
        self.pawns = <PawnEntry*>calloc(PAWN_CACHE_SIZE, sizeof(PawnEntry))
        self.scores = <ScoreEntry*>calloc(SCORE_CACHE_SIZE, sizeof(ScoreEntry))
        if self.pawns == NULL or self.scores == NULL:
            raise MemoryError("cannot allocate the evaluation caches")

    def __dealloc__(self):
        free(self.pawns)
        free(self.scores)

    cdef void attach(self, EvalInfo* e) noexcept:
        """Empty both caches (other weights or another variant would mean other terms)
        and make them e's."""
        memset(self.pawns, 0, PAWN_CACHE_SIZE * sizeof(PawnEntry))
        memset(self.scores, 0, SCORE_CACHE_SIZE * sizeof(ScoreEntry))
        e.pawn_cache = self.pawns
        e.score_cache = self.scores


cdef inline int threatens(const Position* p, const EvalInfo* e, int to, int own, int worth) noexcept nogil:
    """Is an enemy piece worth at least `worth` on `to`?  (EDGE has the `own` bit too.)"""
    cdef int cell = p.sq[to]
    return cell != EMPTY and (cell & own) == 0 and e.threat_value[cell & TYPE_MASK] >= worth


cdef inline int mobility(const Position* p, const EvalInfo* e, int sq, int t, int side,
                         const unsigned char* cells, int* hits, int* threats) noexcept nogil:
    """Squares a piece of type t and colour side on sq reaches (see EvalInfo.mob_*),
    not counting those an enemy pawn attacks (`cells`, see SAFE_CELL); its colour bit
    `own` is shared by the edge cells, so one test stops a ray at both.  Adds the
    squares reached around the enemy royal to *hits, and the enemy pieces worth
    THREAT_GAP more than it that it attacks to *threats."""
    cdef int k, step, to, info, n = 0, zone = 0, victims = 0, own = colour_bit(side)
    cdef int worth = e.threat_value[t] + THREAT_GAP
    cdef const int* steps = e.mob_step[side]
    for k in range(e.mob_first[t], e.mob_split[t]):
        to = sq + steps[k]
        info = cells[to]
        n += (p.sq[to] & own) == 0 and (info & SAFE_CELL) != 0
        zone += (info & ZONE_CELL) != 0
        victims += threatens(p, e, to, own, worth)
    for k in range(e.mob_split[t], e.mob_first[t + 1]):
        step = steps[k]
        to = sq + step
        while p.sq[to] == EMPTY:
            info = cells[to]
            n += (info & SAFE_CELL) != 0
            zone += (info & ZONE_CELL) != 0
            to += step
        info = cells[to]
        n += (p.sq[to] & own) == 0 and (info & SAFE_CELL) != 0
        zone += (info & ZONE_CELL) != 0
        victims += threatens(p, e, to, own, worth)
    hits[0] += zone
    threats[0] += victims
    return n


cdef inline int leaper_hits(const Position* p, const EvalInfo* e, int sq, int t, int side,
                            const unsigned char* cells, int* threats) noexcept nogil:
    """Squares around the enemy royal that a leaper of type t and colour side on sq
    attacks; adds the enemy pieces worth THREAT_GAP more than it that it attacks to
    *threats."""
    cdef int k, to, hits = 0, own = colour_bit(side)
    cdef int worth = e.threat_value[t] + THREAT_GAP
    for k in range(e.atk_first[t], e.atk_first[t + 1]):
        to = sq + e.atk_step[side][k]
        hits += (cells[to] & ZONE_CELL) != 0
        threats[0] += threatens(p, e, to, own, worth)
    return hits


cdef inline bint pawn_attacked_by(const Position* p, const EvalInfo* e, int sq, int c) noexcept nogil:
    """Does a pawn of colour c attack sq?"""
    cdef int j
    for j in range(e.pawn_captures[c]):
        if is_pawn_of(p.sq[sq - e.pawn_capture_step[c][j]], c):
            return True
    return False


cdef int space_count(const Position* p, const Rules* r, const EvalInfo* e, int c) noexcept nogil:
    """Colour c's space: the squares of the centre files (all but the outer quarter on
    each side) on its second to fourth ranks that neither an own pawn stands on nor an
    enemy pawn attacks, those with an own pawn one to three squares in front counted
    twice (from the pawns alone, so it is kept in the pawn cache)."""
    cdef int f, rank, sq, k, n = 0
    cdef int forward = -STRIDE if c == 0 else STRIDE
    for rank in range(1, imin(1 + SPACE_RANKS, r.height)):
        for f in range(r.width // SPACE_EDGE_SHARE, r.width - r.width // SPACE_EDGE_SHARE):
            sq = square(r.height - 1 - rank if c == 0 else rank, f)
            if is_pawn_of(p.sq[sq], c) or pawn_attacked_by(p, e, sq, 1 - c):
                continue
            n += 1
            for k in range(1, 1 + SPACE_PAWN_REACH):
                if is_pawn_of(p.sq[sq + k * forward], c):
                    n += 1
                    break
    return n


cdef void pawn_terms(const Position* p, const Rules* r, const EvalInfo* e, int* structure,
                     int* passed_files) noexcept nogil:
    """Per colour: doubled, isolated, supported and side-by-side pawns, and the files
    of the passed pawns."""
    cdef int c, k, sq, f, row, n, passed
    cdef int pawn_count[2][16]
    cdef int pawn_front[2][16]      # most advanced pawn row per file (White: min row, Black: max row)
    cdef int pawn_back[2][16]       # least advanced pawn row per file (White: max row, Black: min row)
    for c in range(2):
        structure[c] = 0
        passed_files[c] = 0
        for f in range(r.width):
            pawn_count[c][f] = 0
            pawn_front[c][f] = 99 if c == 0 else -99
            pawn_back[c][f] = -99 if c == 0 else 99
    for c in range(2):
        for k in range(p.pcount[c]):
            sq = p.plist[c][k]
            if (p.sq[sq] & TYPE_MASK) != 1 + c:
                continue
            if pawn_attacked_by(p, e, sq, c):
                structure[c] += e.w[W_PAWN_SUPPORTED]
            if is_pawn_of(p.sq[sq + 1], c):
                structure[c] += e.w[W_PAWN_PHALANX]
            f = r.sq_file[sq]
            row = r.sq_row[sq]
            pawn_count[c][f] += 1
            if c == 0:
                pawn_front[0][f] = imin(pawn_front[0][f], row)
                pawn_back[0][f] = imax(pawn_back[0][f], row)
            else:
                pawn_front[1][f] = imax(pawn_front[1][f], row)
                pawn_back[1][f] = imin(pawn_back[1][f], row)
    for c in range(2):
        if p.type_count[c][1 + c] == 0:
            continue
        for f in range(r.width):
            n = pawn_count[c][f]
            if n == 0:
                continue
            if n > 1:
                structure[c] -= e.w[W_DOUBLED] * (n - 1)
            if (f == 0 or pawn_count[c][f - 1] == 0) and (f + 1 >= r.width or pawn_count[c][f + 1] == 0):
                structure[c] -= e.w[W_ISOLATED] * n
            # passed: no enemy pawn ahead on this or an adjacent file
            row = pawn_front[c][f]
            passed = 1
            for k in range(imax(f - 1, 0), imin(f + 2, r.width)):
                if c == 0 and pawn_back[1][k] < row:
                    passed = 0
                elif c == 1 and pawn_back[0][k] > row:
                    passed = 0
            if passed and 0 < steps_to_promotion(r, c, row) < 8:
                passed_files[c] |= 1 << f


cdef int pawn_file_mask(const Position* p, const Rules* r, int c) noexcept nogil:
    """Bit f set: colour c has a pawn on file f."""
    cdef int k, sq, mask = 0
    for k in range(p.pcount[c]):
        sq = p.plist[c][k]
        if (p.sq[sq] & TYPE_MASK) == 1 + c:
            mask |= 1 << r.sq_file[sq]
    return mask


cdef inline const PawnEntry* cached_pawn_terms(const Position* p, const Rules* r,
                                               const EvalInfo* e) noexcept nogil:
    """The pawn cache's entry for this pawn structure, filled in on a miss (an empty
    entry's key 0 is not the key of any position with pawns)."""
    cdef PawnEntry* entry = e.pawn_cache + (p.pawn_key & PAWN_CACHE_MASK)
    cdef int structure[2]
    cdef int passed_files[2]
    if entry.key != p.pawn_key:
        pawn_terms(p, r, e, structure, passed_files)
        entry.key = p.pawn_key
        entry.structure[0] = structure[0]
        entry.structure[1] = structure[1]
        entry.pawn_files[0] = pawn_file_mask(p, r, 0)
        entry.pawn_files[1] = pawn_file_mask(p, r, 1)
        entry.passed_files[0] = passed_files[0]
        entry.passed_files[1] = passed_files[1]
        entry.space[0] = space_count(p, r, e, 0) if e.w[W_SPACE] else 0
        entry.space[1] = space_count(p, r, e, 1) if e.w[W_SPACE] else 0
    return entry


cdef int piece_terms(const Position* p, const Rules* r, const EvalInfo* e, int c,
                     int enemy_royal, const int* pawn_files, int phase) noexcept nogil:
    """Colour c's mobility and cramped pieces (safe squares short of
    LOW_MOBILITY_SQUARES), rook-like sliders on open files and on the rank in front of
    the enemy's back rank, colour-bound pairs, threats on greater pieces, and the
    attack on the enemy royal, by type and as a whole (scaled by c's material, `phase`
    0..256)."""
    cdef int k, sq, t, bit, hits = 0, attackers = 0, mobility_score = 0, bonus = 0, h, threats = 0
    cdef int zone = 0, squares, cramped = 0, push_to
    cdef int light = 0, dark = 0, j
    cdef int seventh = r.back_row[1] + 1 if c == 0 else r.back_row[0] - 1
    cdef int enemy_home = enemy_royal >= 0 and r.sq_row[enemy_royal] == r.back_row[1 - c]
    cdef unsigned char cells[NSQ]       # SAFE_CELL and ZONE_CELL bits
    memset(cells, SAFE_CELL, NSQ)
    for k in range(p.pcount[1 - c]):
        sq = p.plist[1 - c][k]
        if is_pawn_of(p.sq[sq], 1 - c):
            for j in range(e.pawn_captures[1 - c]):
                cells[sq + e.pawn_capture_step[1 - c][j]] = 0
    if enemy_royal >= 0:
        for j in range(-1, 2):
            cells[enemy_royal - STRIDE + j] |= ZONE_CELL
            cells[enemy_royal + j] |= ZONE_CELL
            cells[enemy_royal + STRIDE + j] |= ZONE_CELL
    for k in range(p.pcount[c]):
        sq = p.plist[c][k]
        t = p.sq[sq] & TYPE_MASK
        h = 0
        if (e.mobile_types >> t) & 1:
            squares = mobility(p, e, sq, t, c, cells, &h, &threats)
            mobility_score += e.mob_weight[t] * squares
            if squares < LOW_MOBILITY_SQUARES:
                cramped += LOW_MOBILITY_SQUARES - squares
        elif (e.attack_types >> t) & 1:
            h = leaper_hits(p, e, sq, t, c, cells, &threats)
        if h:
            hits += h
            attackers += 1
            zone += e.zone_weight[t] * h
        if e.file_slider[t]:
            bit = 1 << r.sq_file[sq]
            if not (pawn_files[c] & bit):
                bonus += e.w[W_SEMI_OPEN_FILE] if pawn_files[1 - c] & bit else e.w[W_OPEN_FILE]
            if enemy_home and r.sq_row[sq] == seventh:
                bonus += e.w[W_SEVENTH_RANK]
        elif e.colour_bound[t]:
            if (r.sq_row[sq] + r.sq_file[sq]) & 1:
                dark |= 1 << t
            else:
                light |= 1 << t
        elif t == 1 + c:
            if e.w[W_PAWN_THREAT]:
                bonus += e.w[W_PAWN_THREAT] * pawn_threats(p, e, sq, c)
            push_to = sq + e.pawn_push_step[c]
            if (e.w[W_PAWN_PUSH_THREAT] and e.pawn_push_step[c] and p.sq[push_to] == EMPTY
                    and cells[push_to] & SAFE_CELL):
                bonus += e.w[W_PAWN_PUSH_THREAT] * pawn_threats(p, e, push_to, c)
    if light & dark:
        bonus += e.w[W_PIECE_PAIR]
    if attackers >= 2:
        bonus += KING_ATTACK[imin(hits, KING_ATTACK_CAP)] * e.w[W_KING_ATTACK] // 100 * phase // 256
    bonus += zone * phase // 256
    return bonus + mobility_score + e.w[W_PIECE_THREAT] * threats - e.w[W_LOW_MOBILITY] * cramped


cdef inline int pawn_threats(const Position* p, const EvalInfo* e, int sq, int c) noexcept nogil:
    """Enemy pieces, not pawns or royals, that colour c's pawn on sq attacks."""
    cdef int k, cell, n = 0, enemy_pawn = 2 - c
    for k in range(e.pawn_captures[c]):
        cell = p.sq[sq + e.pawn_capture_step[c][k]]
        if (cell & COLOUR_MASK) == colour_bit(1 - c) and (cell & TYPE_MASK) != enemy_pawn \
                and not e.royal[cell & TYPE_MASK]:
            n += 1
    return n


cdef inline int royal_distance(const Rules* r, int a, int b) noexcept nogil:
    """Royal (Chebyshev) distance between squares a and b."""
    return imax(iabs(r.sq_row[a] - r.sq_row[b]), iabs(r.sq_file[a] - r.sq_file[b]))


cdef int passer_terms(const Position* p, const Rules* r, const EvalInfo* e, int c, int files,
                      int own_royal, int enemy_royal, int opponent_phase) noexcept nogil:
    """Colour c's passed pawns (the most advanced pawn on each file of `files`): a bonus
    by steps to promotion and for a free square in front, both scaled up as the
    opponent's pieces go, and in the end game the royals' distances to that square.
    With passer_cap set, a pawn's sum is at most that percent of what promoting gains
    in the end game (the promoted piece on its promotion square less the pawn where it
    stands): fitted weights can make a pawn one step from a weak promotion (makruk's
    met) worth more than the piece it becomes, and then it would never promote."""
    cdef int k, sq, to, steps, factor, bonus, gain, promoted, total = 0
    cdef int forward = -STRIDE if c == 0 else STRIDE
    cdef int more = 512 - opponent_phase, end_game = 256 - opponent_phase
    for k in range(p.pcount[c]):
        sq = p.plist[c][k]
        if (p.sq[sq] & TYPE_MASK) != 1 + c or not (files >> r.sq_file[sq]) & 1:
            continue
        to = sq + forward
        while p.sq[to] != EDGE and not is_pawn_of(p.sq[to], c):
            to += forward
        if p.sq[to] != EDGE:
            continue            # a pawn of its own further up the file is the passer
        steps = steps_to_promotion(r, c, r.sq_row[sq])
        promoted = r.promo_type[c][r.sq_file[sq]]
        bonus = PASSED[steps] * e.w[W_PASSED] // 100
        if r.value[promoted] < WEAK_PROMOTION:
            bonus = bonus // 4
        bonus = bonus * more // 256
        factor = PASSER_FACTOR[steps]
        to = sq + forward
        if p.sq[to] == EMPTY:
            bonus += factor * e.w[W_PASSER_FREE] * more // 256
        if own_royal >= 0:
            bonus -= (factor * e.w[W_PASSER_OWN_KING] * imin(royal_distance(r, own_royal, to), PASSER_KING_REACH)
                      * end_game // 256)
        if enemy_royal >= 0:
            bonus += (factor * e.w[W_PASSER_ENEMY_KING] * imin(royal_distance(r, enemy_royal, to), PASSER_KING_REACH)
                      * end_game // 256)
        if e.w[W_PASSER_CAP]:
            gain = (end_game_half(r.psq[piece_index(promoted | colour_bit(c))][sq + steps * forward])
                    - end_game_half(r.psq[piece_index(p.sq[sq])][sq]))
            bonus = imin(bonus, imax(gain, 0) * e.w[W_PASSER_CAP] // 100)
        total += bonus
    return total


cdef int last_royal(const Position* p, const EvalInfo* e, int c) noexcept nogil:
    """Square of the last royal piece in c's piece list (-1 if none): for positions
    with several royals, where Position.royal_sq does not say."""
    cdef int k, found = -1
    for k in range(p.pcount[c]):
        if e.royal[p.sq[p.plist[c][k]] & TYPE_MASK]:
            found = p.plist[c][k]
    return found


cdef inline int game_phase(const Position* p, const Rules* r, const EvalInfo* e) noexcept nogil:
    """256 with all pieces (pawns and royals aside) on the board, falling to 0 as they go;
    always 256 in drop games, where captured pieces come back."""
    if r.drops:
        return 256
    return imin(256, (p.piece_material[0] + p.piece_material[1]) * 128 // e.full_material)


cdef inline bint pawns_on_both_sides(const Position* p) noexcept nogil:
    """Then neither the mop-up nor the drawish scale applies (see evaluate)."""
    return p.type_count[0][1] != 0 and p.type_count[1][2] != 0


cdef inline int incremental_score(const Position* p, const Rules* r, const EvalInfo* e) noexcept nogil:
    """White's view of the terms Board keeps up to date, tapered, of the tempo and of
    the spare royals (Spartan kings), worth |value| each beyond the first: what the
    first lazy exit looks at."""
    cdef int t, phase = game_phase(p, r, e)
    cdef int tempo = e.w[W_TEMPO] * phase // 256
    cdef int score = taper(p.psq_score, phase) + (tempo if p.stm == 0 else -tempo)
    if e.has_spares:
        for t in range(1, r.num_types + 1):
            if e.spare[t]:
                score += e.spare[t] * (imax(p.type_count[0][t] - 1, 0) - imax(p.type_count[1][t] - 1, 0))
    return score


cdef int evaluate(const Position* p, const Rules* r, const EvalInfo* e, int alpha, int beta) noexcept nogil:
    """Score of the position for the side to move, in centipawns (see the module doc)."""
    cdef int c, k, sq, piece, t, row, f, bonus, n
    cdef int score[2]
    cdef int npm[2]
    cdef int pawns[2]
    cdef int others[2]              # non-royal, non-pawn piece count
    cdef int royal_sq[2]
    cdef const PawnEntry* pawn_entry
    cdef int pawn_files[2]          # bit f: the colour has a pawn on file f
    cdef int phase[2]               # material of colour c relative to the start, 0..256
    cdef int fast = incremental_score(p, r, e)
    cdef int total, partial, winner, loser, dist, maters, loser_bare
    cdef int hand_units[2]          # drop games: what each side could drop (pawn 1, piece 2)
    cdef ScoreEntry* cached

    if p.stm:
        fast = -fast

    if fast + e.w[W_LAZY_MARGIN] <= alpha or fast - e.w[W_LAZY_MARGIN] >= beta:
        return fast

    # the score cache holds what the code below computes, so a hit takes the same exits
    cached = e.score_cache + (p.key & SCORE_CACHE_MASK)
    if cached.key == p.key:
        if pawns_on_both_sides(p):
            partial = cached.partial if p.stm == 0 else -cached.partial
            if partial + e.w[W_PIECE_TERMS_MARGIN] <= alpha or partial - e.w[W_PIECE_TERMS_MARGIN] >= beta:
                return partial
        if cached.full != SCORE_UNKNOWN:
            return cached.full if p.stm == 0 else -cached.full

    for c in range(2):
        score[c] = 0
        pawns[c] = p.type_count[c][1 + c]
        royal_sq[c] = p.royal_sq[c] if p.royal_sq[c] >= 0 else last_royal(p, e, c)
        npm[c] = p.piece_material[c]
        others[c] = p.piece_count[c]
        hand_units[c] = 0
        if r.drops:     # pieces in hand are material that never leaves the game
            for t in range(FIRST_PIECE_TYPE, r.num_types + 1):
                if r.value[t] > 0:
                    npm[c] += p.hand[c][t] * r.value[t]
                    hand_units[c] += 2 * p.hand[c][t]
            hand_units[c] += p.hand[c][1 + c]
        phase[c] = imin(256, npm[c] * 256 // e.full_material)

    # pawn structure; passed pawns count more as the opponent's pieces go
    pawn_files[0] = pawn_files[1] = 0
    if pawns[0] or pawns[1]:
        pawn_entry = cached_pawn_terms(p, r, e)
        pawn_files[0] = pawn_entry.pawn_files[0]
        pawn_files[1] = pawn_entry.pawn_files[1]
        for c in range(2):
            score[c] += pawn_entry.structure[c]
            if pawn_entry.space[c]:
                n = imax(p.pcount[c] - SPACE_PIECES_FREE, 0)
                score[c] += e.w[W_SPACE] * pawn_entry.space[c] * n * n // SPACE_SCALE
            if pawn_entry.passed_files[c]:
                score[c] += passer_terms(p, r, e, c, pawn_entry.passed_files[c], royal_sq[c],
                                         royal_sq[1 - c], phase[1 - c])

    # royal safety / activity, blended by the opponent's material
    for c in range(2):
        sq = royal_sq[c]
        if sq < 0:
            continue
        row = r.sq_row[sq]
        bonus = 0
        # middle game: stay on the home ranks, keep own pieces in front
        if c == 0:
            n = imin(3, r.height - 1 - row)
            f = -STRIDE
        else:
            n = imin(3, row)
            f = STRIDE
        bonus -= e.w[W_KING_HOME] * n
        for k in range(-1, 2):
            piece = p.sq[sq + f + k]
            if piece != EDGE and piece != EMPTY and colour_of(piece) == c:
                bonus += e.w[W_KING_SHELTER]
        for k in range(imax(r.sq_file[sq] - 1, 0), imin(r.sq_file[sq] + 2, r.width)):
            if not (pawn_files[c] >> k) & 1:
                bonus -= e.w[W_KING_OPEN_FILE]
        score[c] += bonus * phase[1 - c] // 256
        score[c] += e.w[W_KING_CENTRE] * e.centre[sq] * (256 - phase[1 - c]) // 256
        if hand_units[1 - c]:
            score[c] -= (e.w[W_DROP_THREAT] * empty_neighbours(p, sq)
                         * imin(hand_units[1 - c], DROP_THREAT_CAP) // DROP_THREAT_CAP)

    total = score[0] - score[1] + (fast if p.stm == 0 else -fast)     # White's view
    cached.key = p.key
    cached.partial = total
    cached.full = SCORE_UNKNOWN

    # the slow terms, unless the rest decides: with pawns on both sides neither the
    # mop-up nor the drawish scale below applies, so the score is final
    if pawns_on_both_sides(p):
        partial = total if p.stm == 0 else -total
        if partial + e.w[W_PIECE_TERMS_MARGIN] <= alpha or partial - e.w[W_PIECE_TERMS_MARGIN] >= beta:
            return partial
    for c in range(2):
        if p.types_present[c] & e.attack_types:
            bonus = piece_terms(p, r, e, c, royal_sq[1 - c], pawn_files, phase[c])
            total += bonus if c == 0 else -bonus

    # a bare royal: mated with pawns, two pieces or one that mates alone (mop-up),
    # else a dead draw (not where a bare royal loses); drawish material without pawns
    # (none of these in drop games, where captured pieces come back)
    if not r.drops:
        winner = 0 if total > 0 else 1
        loser = 1 - winner
        loser_bare = pawns[loser] == 0 and others[loser] == 0
        maters = p.types_present[winner] & e.lone_maters
        if (loser_bare and royal_sq[0] >= 0 and royal_sq[1] >= 0
                and (pawns[winner] or others[winner] >= 2 or maters)):
            dist = royal_distance(r, royal_sq[0], royal_sq[1])
            bonus = MOPUP_EDGE * (16 - e.centre[royal_sq[loser]]) + MOPUP_CLOSE * (8 - imin(dist, 8))
            total += bonus if winner == 0 else -bonus
        elif loser_bare and pawns[winner] == 0 and others[winner] == 1 and not r.bare_king_loses:
            total = total // DEAD_DRAW_SCALE
        elif pawns[winner] == 0 and npm[winner] - npm[loser] <= e.drawish_lead and not r.bare_king_loses:
            total = total // DRAWISH_SCALE
    cached.full = total
    return total if p.stm == 0 else -total


cdef class PositionSet:
    """Positions of one variant for the tuner, packed without their undo stacks (a
    Board's is 160 KB; the evaluation never reads it)."""
    cdef char* data
    cdef size_t stride
    cdef readonly int count
    cdef readonly Variant variant

    def __cinit__(self, Variant variant, list fens):
        cdef Board board = Board(variant)
        cdef int i
        self.variant = variant
        self.stride = <size_t>(<char*>&board.pos.undo[0] - <char*>&board.pos)
        self.data = <char*>malloc(self.stride * max(len(fens), 1))
        if self.data == NULL:
            raise MemoryError("cannot allocate the positions")
        self.count = 0
        for i, fen in enumerate(fens):
            try:
                board.set_fen(fen)
            except ValueError as exc:
                raise ValueError(f"position {i + 1} ({fen}): {exc}") from None
            memcpy(self.data + i * self.stride, &board.pos, self.stride)
            self.count = i + 1

    def __dealloc__(self):
        free(self.data)

    def __len__(self):
        return self.count

    def evaluate(self) -> list:
        """Full static evaluations (side to move's view) with the variant's current
        weights: the tuner's inner loop."""
        return self._evaluations(False)[0]

    def skipped_terms(self) -> tuple:
        """What each lazy exit of evaluate would skip, in centipawns: (for every position,
        the full evaluation less the incremental score; for those with pawns on both
        sides, where the second exit is taken, less the score without the piece terms).
        `tune margins` sets the margins from them."""
        return self._evaluations(True)[1:]

    def _evaluations(self, bint skipped) -> tuple:
        """(full evaluations, and where `skipped` says, skipped_terms' two lists)."""
        cdef EvalInfo info
        cdef EvalCache cache = EvalCache()
        cdef const Rules* r = &self.variant.rules
        cdef Position* p
        cdef const ScoreEntry* cached
        cdef int i, full
        cdef list scores = [], all_terms = [], piece_terms = []
        init_psq(self.variant)
        eval_info_init(&info, self.variant)
        cache.attach(&info)
        for i in range(self.count):
            p = <Position*>(self.data + i * self.stride)
            p.psq_score = psq_total(p, r)
            full = evaluate(p, r, &info, -100000, 100000)
            scores.append(full)
            if skipped:
                if p.stm:
                    full = -full        # White's view, as the incremental score and the cache's
                all_terms.append(full - incremental_score(p, r, &info))
                if pawns_on_both_sides(p):
                    cached = info.score_cache + (p.key & SCORE_CACHE_MASK)
                    piece_terms.append(full - cached.partial)
        return scores, all_terms, piece_terms

    def psq_features(self) -> tuple:
        """What the piece-square part of each evaluation is made of, for the tuner's
        linear fit: (phases, offsets, types, squares, signs), int arrays.  Position i has
        game phase phases[i] (0..256) and the entries offsets[i] .. offsets[i + 1] - 1:
        a piece of type types[k] on owner_index squares[k] (-1: signs[k] such pieces in
        hand), counted +1 for the side to move's pieces and -1 for the opponent's."""
        cdef EvalInfo info
        cdef const Rules* r = &self.variant.rules
        cdef const Position* p
        cdef int i, c, k, t, sq, n = 0, side_sign
        eval_info_init(&info, self.variant)
        for i in range(self.count):
            p = <const Position*>(self.data + i * self.stride)
            n += p.pcount[0] + p.pcount[1] + (2 * r.num_types if r.drops else 0)
        phases, offsets = array("i", bytes(4 * self.count)), array("i", bytes(4 * (self.count + 1)))
        types, squares, signs = (array("i", bytes(4 * n)) for _ in range(3))
        cdef int[:] ph = phases, off = offsets, ty = types, sqs = squares, sg = signs
        n = 0
        for i in range(self.count):
            p = <const Position*>(self.data + i * self.stride)
            ph[i] = game_phase(p, r, &info)
            off[i] = n
            for c in range(2):
                side_sign = 1 if c == p.stm else -1
                for k in range(p.pcount[c]):
                    sq = p.plist[c][k]
                    ty[n] = p.sq[sq] & TYPE_MASK
                    sqs[n] = owner_index(r, c, sq)
                    sg[n] = side_sign
                    n += 1
                if r.drops:
                    for t in range(1, r.num_types + 1):
                        if p.hand[c][t]:
                            ty[n] = t
                            sqs[n] = -1
                            sg[n] = side_sign * p.hand[c][t]
                            n += 1
        off[self.count] = n
        return phases, offsets, types[:n], squares[:n], signs[:n]


def evaluate_board(Board board):
    """Static evaluation of `board` for the side to move (full, not lazy); for tests and tuning."""
    cdef EvalInfo info
    cdef EvalCache cache = EvalCache()
    init_psq(board.variant)
    eval_info_init(&info, board.variant)
    cache.attach(&info)
    board.pos.psq_score = psq_total(&board.pos, board.rules)
    return evaluate(&board.pos, board.rules, &info, -100000, 100000)


def lone_mater_letters(Variant variant) -> str:
    """The letters of the piece types that mate a bare royal alone (see lone_mater)."""
    cdef int types = lone_mater_types(&variant.rules)
    return "".join(sorted({letter for t, letter in type_letters(variant).items() if (types >> t) & 1}))
