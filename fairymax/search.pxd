# cython: language_level=3
"""Alpha-beta search in H.G. Muller's single-routine design (see search.pyx)."""
from libc.stdint cimport uint64_t, int64_t, int16_t
from fairymax.types cimport move_t, key_t, NSQ, MAX_MOVES, TYPE_MASK
from fairymax.variant cimport Rules
from fairymax.board cimport Position, Board
from fairymax.tt cimport TTable, TT
from fairymax.evaluate cimport EvalInfo, EvalCache

cdef enum:
    CORRECTION_SIZE = 16384     # correction-history entries per side (a power of two)
    MAX_PLY = 100
    MATE = 30000
    INF = 32000
    MATE_BOUND = MATE - 2 * MAX_PLY     # |score| >= MATE_BOUND means a mate score

cdef struct SearchState:
    Position* pos
    const Rules* rules
    TTable* tt                  # the main table (`memory` MB): full-width results
    TTable* qtt                 # a small one that stays in the processor's cache:
                                # quiescence results, and a copy of the others
    EvalInfo ev
    move_t* moves               # MAX_PLY * MAX_MOVES move lists (one per ply)
    int* keys                   # their ordering keys
    move_t killers[MAX_PLY][2]
    int history[32][NSQ]        # quiet-move history, [type | colour << 4][to]
    move_t counter[32][NSQ]     # the quiet reply that last refuted [piece][to]
    int capture_hist[32][NSQ][TYPE_MASK + 1]    # capture history, [type | colour << 4][to][victim type]
    int correction[2][CORRECTION_SIZE]  # the static evaluation's error by side to move and
                                # pawn structure (see corrected_eval)
    int16_t* cont_hist          # continuation history: [back - 1][side][earlier move][move],
                                # each move as (piece type, board cell): see cont_row
    int cont_cells              # board cells of the variant it is laid out for
    int cont_width              # entries per row: (types + 1) x cells
    move_t played[MAX_PLY]      # the move made at each ply (0: a null move)
    int played_piece[MAX_PLY]   # its piece index (piece_index)
    move_t excluded[MAX_PLY]    # a move each ply's node leaves out (0: none; singular test)
    int static_evals[MAX_PLY]   # each ply's static evaluation (NO_EVAL: none taken)
    move_t pv[MAX_PLY][MAX_PLY] # triangular PV array
    int pv_len[MAX_PLY]
    uint64_t nodes
    uint64_t passes             # IID iterations run (Fairy-Max's node count)
    uint64_t node_limit         # 0: none
    uint64_t next_poll
    int64_t deadline_ns         # 0: none
    int seldepth
    volatile int stop           # set by stop() from any thread
    int aborted                 # the current search was cut short: results invalid

cdef int search(SearchState* s, int alpha, int beta, int depth, int ply, int null_ok) noexcept nogil

cdef class Searcher

cdef class SearchHelper:
    cdef SearchState s
    cdef TT qtt_owner
    cdef EvalCache eval_cache
    cdef Board board            # its own copy of the root position
    cdef int lead               # plies ahead of the main thread's iteration
    cdef const int* main_depth  # the main thread's current iteration depth
    cdef const move_t* main_best  # the main thread's best root move so far
    cdef move_t root[MAX_MOVES]  # the root moves, the helper's best first
    cdef int root_n
    cdef int done_depth         # its last completed iteration (0: none yet)
    cdef move_t done_move       # and that iteration's best move and score
    cdef int done_score
    cdef object thread
    cdef void start(self, Searcher main, Board board, list root)
    cdef void finish(self)

cdef class Searcher:
    cdef SearchState s
    cdef TT tt_owner
    cdef TT qtt_owner
    cdef EvalCache eval_cache
    cdef Board board            # private copy of the position being searched
    cdef public int features    # F_* bits (search.FEATURES); see F_DEFAULT
    cdef list helpers           # SearchHelper per extra thread (Lazy SMP)
    cdef int thread_count       # threads wanted from the next search on
    cdef int root_depth         # the iteration the main thread is searching
    cdef move_t root_best       # its best move so far (helpers search it first)
    cdef void _clear_tables(self)
    cdef tuple _deepest_helper(self, int depth, int depth_limit)
    cdef object _helper_info(self, tuple deeper, int64_t start_ns)
    cdef uint64_t _nodes(self)
    cdef list _pv_from(self, list raw, int max_len)
