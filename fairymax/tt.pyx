# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Transposition table: buckets on huge pages, depth/age replacement (see tt.pxd)."""
from libc.stdlib cimport free
from libc.string cimport memset
from libc.stdint cimport uint64_t
from fairymax.types cimport move_t, key_t
from fairymax.tt cimport data_word

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef extern from "<sys/mman.h>" nogil:
    int madvise(void* addr, size_t length, int advice)
    int MADV_HUGEPAGE

cdef enum:
    HUGE_PAGE = 2 * 1024 * 1024


cdef TTEntry* alloc_table(size_t nbytes) noexcept nogil:
    """Zeroed memory for the table, on 2 MB pages where the kernel allows it.

    Probes hit random buckets, so with 4 KB pages nearly every probe also misses
    the TLB; huge pages (transparent, asked for with madvise) remove most of that.
    """
    cdef void* mem = NULL
    if posix_memalign(&mem, HUGE_PAGE, nbytes) != 0:
        return NULL
    madvise(mem, nbytes, MADV_HUGEPAGE)
    memset(mem, 0, nbytes)
    return <TTEntry*>mem


cdef void tt_store(TTable* t, key_t key, move_t move, int score, int depth, int bound) noexcept nogil:
    """Store a search result for `key`.

    The slot is the entry with the same key if there is one (its move is kept when
    the new result has none), else the entry worth least: an empty one, or the one
    with the lowest depth, where each generation of age costs 4 plies of depth.
    """
    cdef TTEntry* e = t.entries + (key & t.mask) * BUCKET_SIZE
    cdef TTEntry* victim = e
    cdef int i, age, worth, worst = 1 << 30
    for i in range(BUCKET_SIZE):
        if e[i].key ^ data_word(e + i) == key:
            victim = e + i
            if move == 0:
                move = victim.move
            break
        if e[i].key == 0 and e[i].gen_bound == 0:
            victim = e + i
            break
        age = (t.generation - (e[i].gen_bound >> 2)) & 63
        worth = e[i].depth - 4 * age
        if worth < worst:
            worst = worth
            victim = e + i
    if depth < -100:
        depth = -100
    elif depth > 127:
        depth = 127
    victim.move = move
    victim.score = score
    victim.depth = depth
    victim.gen_bound = (t.generation << 2) | bound
    victim.key = key ^ data_word(victim)


cdef class TT:
    """Owner of a TTable of `mb` megabytes, or `kb` kilobytes if given (rounded down to
    a power of two buckets)."""

    def __cinit__(self, size_t mb=64, size_t kb=0):
        self.t.entries = NULL
        self.t.mask = 0
        self.t.generation = 0
        self.resize_c(kb if kb else mb * 1024)

    def __dealloc__(self):
        free(self.t.entries)
        self.t.entries = NULL

    cdef int resize_c(self, size_t kb) except -1:
        cdef uint64_t want = (<uint64_t>max(kb, 1)) * 1024 // (sizeof(TTEntry) * BUCKET_SIZE)
        cdef uint64_t buckets = 1
        while buckets * 2 <= want:
            buckets *= 2
        cdef TTEntry* fresh = alloc_table(buckets * BUCKET_SIZE * sizeof(TTEntry))
        if fresh == NULL:
            raise MemoryError(f"cannot allocate a {kb} KB hash table")
        free(self.t.entries)
        self.t.entries = fresh
        self.t.mask = buckets - 1
        self.t.generation = 0
        self.size_kb = max(kb, 1)
        return 0

    def resize(self, size_t mb):
        """Reallocate the table at `mb` megabytes (contents are lost)."""
        self.resize_c(mb * 1024)

    @property
    def size_mb(self):
        return self.size_kb // 1024

    def clear(self):
        """Forget every entry."""
        memset(self.t.entries, 0, (self.t.mask + 1) * BUCKET_SIZE * sizeof(TTEntry))
        self.t.generation = 0

    def new_search(self):
        """Age the table: entries from earlier searches become cheaper to replace."""
        self.t.generation = (self.t.generation + 1) & 63

    @property
    def entries(self):
        """Number of entries (buckets * BUCKET_SIZE)."""
        return (self.t.mask + 1) * BUCKET_SIZE

    def usage(self):
        """Permille of the first 1000 entries that hold a result of the current generation."""
        cdef int i, n = 0
        cdef int limit = min(1000, <int>((self.t.mask + 1) * BUCKET_SIZE))
        for i in range(limit):
            if self.t.entries[i].key != 0 and (self.t.entries[i].gen_bound >> 2) == self.t.generation:
                n += 1
        return n * 1000 // limit
