# cython: language_level=3
"""Static evaluation driven by variant data (see evaluate.pyx for the terms)."""
from libc.stdint cimport int16_t
from fairymax.types cimport key_t, score_t, NSQ, MAX_TYPES, MAX_RAYS
from fairymax.variant cimport Rules, Variant
from fairymax.board cimport Position

cdef enum:
    PAWN_CACHE_SIZE = 1 << 14           # entries (16 bytes each)
    PAWN_CACHE_MASK = PAWN_CACHE_SIZE - 1

cdef struct PawnEntry:
    key_t key                   # Position.pawn_key
    int16_t structure[2]        # doubled/isolated penalties per colour
    int16_t passed[2]           # passed-pawn bonuses per colour, before scaling

cdef class PawnCache:
    cdef PawnEntry* entries
    cdef void clear(self) noexcept

cdef struct EvalInfo:
    PawnEntry* pawn_cache       # PAWN_CACHE_SIZE entries (owned by a PawnCache)
    int royal[MAX_TYPES]        # 1 for royal types (negative ini value)
    int spare[MAX_TYPES]        # royal types with spares: value of each spare (Spartan)
    int has_spares
    # mobility of type t (none for royals and types without a sliding ray): the first
    # step of the rays mob_step[mob_first[t] .. mob_split[t] - 1], and every square of
    # the sliding rays mob_step[mob_split[t] .. mob_first[t + 1] - 1]
    int mob_first[MAX_TYPES + 1]
    int mob_split[MAX_TYPES]
    int mob_step[MAX_RAYS]
    int mobile_types            # bit t set: type t has a mobility term
    int full_material           # non-pawn material of one side at the start position (>= 1)
    int centre[NSQ]             # 0 (corner) .. 16 (centre): closeness to the centre
    int mobility                # centipawns per square (0: no mobility term)
    int lazy_margin             # lazy evaluation skips the slow terms outside this margin

cdef int eval_info_init(EvalInfo* e, Variant variant) except -1
cdef int evaluate(const Position* p, const Rules* r, const EvalInfo* e, int alpha, int beta) noexcept nogil
cdef int psq_total(const Position* p, const Rules* r) noexcept nogil
