# cython: language_level=3
"""Static evaluation driven by variant data (see evaluate.pyx for the terms)."""
from libc.stdint cimport int16_t, uint16_t, int32_t
from fairymax.types cimport key_t, score_t, NSQ, MAX_TYPES, MAX_RAYS
from fairymax.variant cimport Rules, Variant
from fairymax.board cimport Position
from fairymax.tt cimport FM_PREFETCH

cdef enum:
    PAWN_CACHE_SIZE = 1 << 14           # entries (24 bytes each)
    PAWN_CACHE_MASK = PAWN_CACHE_SIZE - 1
    SCORE_CACHE_SIZE = 1 << 16          # entries (16 bytes each)
    SCORE_CACHE_MASK = SCORE_CACHE_SIZE - 1

cdef struct PawnEntry:
    key_t key                   # Position.pawn_key
    int16_t structure[2]        # doubled/isolated penalties per colour
    uint16_t pawn_files[2]      # bit f set: the colour has a pawn on file f
    uint16_t passed_files[2]    # bit f set: the colour's most advanced pawn on file f is passed
    int16_t space[2]            # space squares per colour (evaluate.space_count)

cdef struct ScoreEntry:
    key_t key                   # Position.key
    int32_t partial             # White's view without the piece terms (see evaluate)
    int32_t full                # White's view, all terms; SCORE_UNKNOWN until computed

cdef enum:
    MAX_PAWN_CAPTURES = 8

cdef enum:                              # EvalInfo.w, evaluate.WEIGHT_NAMES order
    W_CENTRE_SPREAD, W_DOUBLED, W_ISOLATED, W_MOBILITY, W_KING_HOME, W_KING_SHELTER,
    W_KING_CENTRE, W_OPEN_FILE, W_SEMI_OPEN_FILE, W_SEVENTH_RANK, W_PIECE_PAIR,
    W_KING_ATTACK, W_PASSED, W_ADVANCE, W_DROP_THREAT, W_PAWN_THREAT, W_PAWN_SUPPORTED,
    W_PAWN_PHALANX, W_PASSER_FREE, W_PASSER_OWN_KING, W_PASSER_ENEMY_KING, W_PIECE_THREAT,
    W_KING_OPEN_FILE, W_LOW_MOBILITY, W_PAWN_PUSH_THREAT, W_PASSER_CAP, W_TEMPO, W_SPACE,
    W_LAZY_MARGIN, W_PIECE_TERMS_MARGIN,
    W_NULL_BASE, W_NULL_DEPTH_STEP, W_NULL_DEPTH_PLIES, W_NULL_EVAL_STEP, W_NULL_EVAL_PLIES,
    W_REDUCE_CHECKS, W_IMPROVING_LMR, W_HORIZON_CHECKS, N_WEIGHTS

cdef struct EvalInfo:
    PawnEntry* pawn_cache       # PAWN_CACHE_SIZE entries (owned by an EvalCache)
    ScoreEntry* score_cache     # SCORE_CACHE_SIZE entries (owned by an EvalCache)
    int royal[MAX_TYPES]        # 1 for royal types (negative ini value)
    int spare[MAX_TYPES]        # royal types with spares: value of each spare (Spartan)
    int has_spares
    # mobility of type t (none for royals, and for types without a sliding ray unless
    # mobility_X weighs them): the first step of the rays
    # mob_step[mob_first[t] .. mob_split[t] - 1], and every square of the sliding rays
    # mob_step[mob_split[t] .. mob_first[t + 1] - 1], mob_weight[t] per square
    int mob_first[MAX_TYPES + 1]
    int mob_split[MAX_TYPES]
    int mob_step[2][MAX_RAYS]        # per colour (Rules.walk_step: Mirror: types differ)
    int mob_weight[MAX_TYPES]
    int mobile_types            # bit t set: type t has a mobility term
    # first steps of the capturing rays of non-royal types without a sliding ray
    # (leapers), atk_step[atk_first[t] .. atk_first[t + 1] - 1]: their attacks on the
    # squares around the enemy royal (the sliders' are counted with their mobility)
    int atk_first[MAX_TYPES + 1]
    int atk_step[2][MAX_RAYS]        # per colour, as mob_step
    int attack_types            # bit t set: type t is counted in king attacks
    int zone_weight[MAX_TYPES]  # per square around the enemy royal that a piece of type t
                                # attacks (king_zone_X), scaled by its side's material
    # the first steps of colour c's pawn's capturing rays (pawn_threats)
    int pawn_captures[2]
    int pawn_capture_step[2][MAX_PAWN_CAPTURES]
    int pawn_push_step[2]       # the first step of colour c's pawn's non-capturing ray (0: none)
    int file_slider[MAX_TYPES]  # slides along files but not diagonals (rook-like)
    int colour_bound[MAX_TYPES] # never leaves its square colour, and worth a pair bonus
    int threat_value[MAX_TYPES] # the ini value, 0 for royals: a piece is threatened by
                                # a piece worth THREAT_GAP less (W_PIECE_THREAT)
    int full_material           # non-pawn material of one side at the start position (>= 1)
    int lone_maters             # bit t set: type t and its royal force mate on a bare
                                # royal (see lone_mater)
    int drawish_lead            # the value of the best piece that cannot mate alone: a lead
                                # of no more, without pawns, seldom wins (the drawish scale)
    int centre[NSQ]             # 0 (edge) .. 16 (centre): closeness to the centre
    int w[N_WEIGHTS]            # the variant's weights

cdef class EvalCache:
    cdef PawnEntry* pawns
    cdef ScoreEntry* scores
    cdef void attach(self, EvalInfo* e) noexcept

cdef int eval_info_init(EvalInfo* e, Variant variant) except -1
cdef int evaluate(const Position* p, const Rules* r, const EvalInfo* e, int alpha, int beta) noexcept nogil
cdef int psq_total(const Position* p, const Rules* r) noexcept nogil


cdef inline void score_prefetch(const EvalInfo* e, key_t key) noexcept nogil:
    """Start loading the score cache's entry of `key`, which evaluate reads first: the
    load of a megabyte-sized table's entry was a quarter of evaluate's time."""
    FM_PREFETCH(e.score_cache + (key & SCORE_CACHE_MASK))
