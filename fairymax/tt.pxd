# cython: language_level=3
"""Transposition table in C memory: buckets of 4 entries (one 64-byte cache line).

An entry keeps the full 64-bit key, so a probe never returns a foreign position
(a random match needs 64 equal bits).  Search threads share the table without locks:
an entry's key is stored XORed with its data word, so an entry torn by two threads
writing it at once fails the check and reads as a miss; a probe copies the entry out.  Scores are stored "as seen from this
node": the search converts mate scores to distances from the node before a store
and back after a probe.  The table is a plain struct (TTable) so the search can
reach it without a Python object; the TT class only owns its memory.
"""
from libc.stdint cimport uint8_t, int8_t, int16_t, uint64_t
from fairymax.types cimport move_t, key_t

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1         # true value <= score (failed low)
    BOUND_LOWER = 2         # true value >= score (failed high)
    BOUND_EXACT = 3         # both bits: exact
    BUCKET_SIZE = 4

cdef struct TTEntry:
    key_t key               # the position's key XOR the data word below (8 bytes)
    move_t move
    int16_t score
    int8_t depth            # iteration depth of the stored result (0 = quiescence)
    uint8_t gen_bound       # generation << 2 | bound

cdef struct TTable:
    TTEntry* entries        # buckets * BUCKET_SIZE entries, zeroed, on huge pages if allowed
    uint64_t mask           # buckets - 1 (buckets is a power of two)
    uint8_t generation      # 0..63, bumped once per root search

cdef extern from *:
    """
    #define FM_PREFETCH(addr) __builtin_prefetch(addr)
    """
    void FM_PREFETCH(const void* addr) noexcept nogil

cdef inline void tt_prefetch(TTable* t, key_t key) noexcept nogil:
    """Start loading the bucket of `key` into the cache (probe it a little later)."""
    FM_PREFETCH(t.entries + (key & t.mask) * BUCKET_SIZE)

cdef inline uint64_t data_word(const TTEntry* e) noexcept nogil:
    """The 8 bytes after the key (move, score, depth, gen_bound), read at once."""
    return (<const uint64_t*>&e.move)[0]

cdef inline bint tt_probe(TTable* t, key_t key, TTEntry* out) noexcept nogil:
    """Copy the entry holding `key` to *out and return 1, or return 0."""
    cdef TTEntry* e = t.entries + (key & t.mask) * BUCKET_SIZE
    cdef int i
    cdef uint64_t data
    for i in range(BUCKET_SIZE):
        data = data_word(e + i)
        if e[i].key ^ data == key:
            (<uint64_t*>&out.move)[0] = data
            out.key = key
            return 1
    return 0

cdef void tt_store(TTable* t, key_t key, move_t move, int score, int depth, int bound) noexcept nogil

cdef class TT:
    cdef TTable t
    cdef readonly size_t size_kb
    cdef int resize_c(self, size_t kb) except -1
