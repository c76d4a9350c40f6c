# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Alpha-beta search in H.G. Muller's single-routine design, plus the root driver.

`search()` is the only tree routine (noexcept nogil, no Python objects):

1. count the node; every POLL_INTERVAL nodes poll the stop flag, node limit and clock;
2. draws by rule (50 moves, any repetition; perpetual check loses where the variant
   says so), variant terminals (hill reached, bare royal), mate-distance pruning;
3. check extension (+1 ply when in check, unless the checking move left its piece
   to be taken at a profit: spite_check);
4. static evaluation where it will be needed, corrected by what searches of positions
   with the same side to move and pawn structure found it to be off by (correction
   history, at full-width nodes whose best move is quiet), then the hash probe: a usable bound
   at enough depth is a cutoff; at PV nodes a usable shallower one lets the
   internal-iterative-deepening loop resume after its depth, an unusable one at its
   depth (quiescence nodes probe a small table that stays in the cache, full-width
   nodes the main one: see table_of);
5. null move (non-PV, not in check, side has two pieces other than pawns and royals:
   with fewer, passing is too often the best move), reduced by the variant's
   null_* weights (evaluate.SEARCH_WEIGHTS);
6. the IID loop, iteration depth `it` from the start depth up to max(depth, 0) at
   PV nodes, the full depth alone at null-window nodes;
   it == 0 is quiescence: the iteration starts from the stand-pat evaluation and
   only captures/promotions are searched;
   * moves are supplied lazily: the hash move before any generation, then captures
     by MVV/LVA (selection, so a cutoff leaves the rest unsorted), killers, the
     counter move, quiet moves by history and continuation history (sorted once when
     reached), and last the captures that lose the exchange (SEE; quiescence skips
     them); a new best move floats to the front of the list for the next iteration;
   * PVS, LMR with re-search, futility pruning at the frontier, delta pruning in
     quiescence;
   * after every iteration the result goes to the hash tables with its bound type;
7. no legal move: mated (in check) or the variant's stalemate score.

The root (Searcher.iterate) is a thin Python-level generator: iterative deepening,
aspiration windows, PVS over the root moves, exclude and multi-PV; every root move's
subtree is searched `with nogil`, so stop() works from another thread.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.math cimport log
from libc.string cimport memset, memcpy
from libc.stdint cimport uint64_t, int64_t, int16_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

import threading
from collections import namedtuple

from fairymax.types cimport (move_t, key_t, piece_t, NSQ, MAX_MOVES, MAX_RAYS, TYPE_MASK, COLOUR_MASK,
                             EMPTY, EDGE, colour_bit, mv_from, mv_to, mv_promo, mv_kind, mv_is_drop,
                             piece_index)
from fairymax.variant cimport Rules, Variant, owner_index
from fairymax.board cimport (Position, Board, GEN_CAPTURES, GEN_QUIETS, gen_moves, make_move,
                             attackers_of, capture_from,
                             unmake_move, make_null, unmake_null, in_check, gives_check, is_capture,
                             captured_type, repetitions, occurrence_ply, perpetual_checker, rule_plies,
                             counting_draw, hill_reached, key_after,
                             moving_piece, drop_possible)
from fairymax.tt cimport (TTable, TTEntry, TT, tt_probe, tt_prefetch, tt_store, BOUND_UPPER, BOUND_LOWER,
                          BOUND_EXACT)
from fairymax.evaluate cimport (EvalInfo, EvalCache, eval_info_init, evaluate, psq_total,
                               score_prefetch, W_NULL_BASE, W_NULL_DEPTH_STEP, W_NULL_DEPTH_PLIES,
                               W_NULL_EVAL_STEP, W_NULL_EVAL_PLIES, W_REDUCE_CHECKS,
                               W_IMPROVING_LMR, W_HORIZON_CHECKS)
from fairymax.evaluate import init_psq

SearchInfo = namedtuple("SearchInfo", "depth score nodes time_ms pv multipv seldepth complete",
                        defaults=(1, 0, True))
SearchInfo.__doc__ = """One report of Searcher.iterate.

depth: completed iteration depth (plies); score: centipawns for the side to move,
MATE - n for a mate in n plies (negative: being mated); nodes: nodes searched so far;
time_ms: since the search started; pv: packed moves, all legal in sequence;
multipv: 1-based line number; seldepth: deepest ply reached; complete: False for a
new best move found inside an unfinished iteration."""

cdef enum:
    POLL_INTERVAL = 4096
    QS_HASH_KB = 512            # the quiescence table (SearchState.qtt), within the
                                # level-2 cache (1 MB a core here); 256 KB searched
                                # alike, 1 MB was slower
    CAP_KEY = 1 << 28           # ordering keys >= CAP_KEY: captures and promotions
    HISTORY_MAX = 1 << 14       # history scores stay within +-this (gravity)
    HISTORY_BONUS_SQUARE = 16   # a cutoff's history change: this x depth^2 ...
    HISTORY_BONUS_LINEAR = 32   # ... + this x depth ...
    HISTORY_BONUS_MAX = 1200    # ... up to this
    HISTORY_AGE_DIVISOR = 2     # a new search starts from the last one's quiet and capture
                                # histories over this (8 scored 44.2% against Fairy-Stockfish
                                # in capablanca where 2 scored 48.5%, 300 games each)
    CONT_HIST_AGE_DIVISOR = 8   # ... and from its continuation histories over this
    CONT_PLIES = 2              # continuation histories: of the moves 1 and 2 plies back
    CONT_HIST_MAX_MB = 32       # bigger ones (large boards with many types) are left out
    COUNTER_KEY = (1 + CONT_PLIES) * HISTORY_MAX + 1    # the counter move's ordering key:
                                # above every quiet move's sum of histories
    CAPTURES_TRACKED = 32       # captures per node whose history a cutoff by another move lowers
    QUIETS_TRACKED = 64         # quiet moves per node whose history a cutoff lowers
    LMR_HISTORY_STEP = HISTORY_MAX // 2     # history worth one ply less (or more) of reduction
    STAGE_CAPTURES = 0
    STAGE_KILLER1 = 1
    STAGE_KILLER2 = 2
    STAGE_SORT_QUIETS = 3
    STAGE_QUIETS = 4
    STAGE_DONE = 5
    FUTILITY_MARGIN = 100       # per ply of depth: quiet moves can't lift eval more than this
    FUTILITY_DEPTH = 3          # futility pruning of quiet moves up to this depth
    RFP_MARGIN = 80             # per ply: eval this far above beta fails high without a search
    RFP_DEPTH = 6               # reverse futility pruning up to this depth
    RAZOR_MARGIN = 250          # per ply: eval this far below alpha is checked by quiescence
    RAZOR_DEPTH = 3             # razoring up to this depth
    LMP_BASE = 3                # late-move pruning: quiet moves after LMP_BASE + depth^2 tried
    LMP_DEPTH = 3               # late-move pruning up to this depth
    LMR_MOVES = 64              # the LMR table's range of depths and move numbers
    DELTA_MARGIN = 200          # quiescence: a capture can't gain more than victim + this
    BAD_CAPTURE_MARGIN = 50     # a capture losing more than this in the exchange is a bad one
    BAD_CAPTURE_KEY = -(2 + CONT_PLIES) * HISTORY_MAX   # bad captures' ordering key: after
                                # every quiet move
    SEE_ROYAL_VALUE = 10000     # a royal's worth in an exchange (it is never given up)
    ASPIRATION = 35             # initial half-width of the root window
    MAX_HARD_MS = 1000000000    # longer time limits are no limit (and would overflow)
    NULL_MOVE_PIECES = 2        # fewer pieces (besides pawns and royals): zugzwang is common
    SINGULAR_DEPTH = 8          # singular extension from this depth, when the hash move's
    SINGULAR_SLACK = 3          # entry is at most this much shallower, and the others
    SINGULAR_MARGIN = 2         # stay this much per ply below its score at half depth
    NO_EVAL = -INF - 1
    CORRECTION_LIMIT = 1024     # correction-history entries stay within +-this (gravity) ...
    CORRECTION_PER_CP = 16      # ... in 1/this cp: at most 64 cp
    CORRECTION_DEPTH_DIVISOR = 8    # a node's error moves its entry by error x depth / this ...
    CORRECTION_BONUS_MAX = CORRECTION_LIMIT // 4    # ... at most this at once
    FIFTY_MOVE_PLIES = 100      # plies without a capture or pawn move that draw

# Feature switches (Searcher.features), all on by default; tests and measurements
# turn single ones off to show what each is worth.
cdef enum:
    F_NULL = 1
    F_LMR = 2
    F_FUTILITY = 4
    F_DELTA = 8
    F_PVS = 16
    F_ASPIRATION = 32
    F_KILLERS = 64
    F_HISTORY = 128
    F_IID_HASH = 256            # resume IID at the hash depth even if its bound is unusable
                                # (off: restart at 1)
    F_MOBILITY = 512            # evaluation: mobility term
    F_CHECK_EXT = 1024          # +1 ply in check
    F_BAD_CAPTURES = 2048       # captures that lose the exchange (SEE) go after the quiet moves
                                # and are not searched in quiescence
    F_RFP = 4096                # reverse futility pruning (static null move) near the leaves
    F_LMP = 8192                # late-move pruning of quiet moves near the leaves
    F_SINGULAR = 16384          # singular extension of the hash move
    F_RAZOR = 32768             # razoring: a quiescence search decides hopeless nodes near the leaves
    F_ALL = 65535
    F_DEFAULT = F_ALL

FEATURES = {"null": F_NULL, "lmr": F_LMR, "futility": F_FUTILITY, "delta": F_DELTA,
            "pvs": F_PVS, "aspiration": F_ASPIRATION, "killers": F_KILLERS,
            "history": F_HISTORY, "iid_hash": F_IID_HASH, "mobility": F_MOBILITY,
            "check_ext": F_CHECK_EXT, "bad_captures": F_BAD_CAPTURES, "rfp": F_RFP,
            "lmp": F_LMP, "singular": F_SINGULAR, "razor": F_RAZOR}

# Python-visible copies of the score constants (cdef enums are C only)
globals().update({"MATE": <int>MATE, "INF": <int>INF, "MAX_PLY": <int>MAX_PLY,
                  "MATE_BOUND": <int>MATE_BOUND})

cdef int features = F_DEFAULT       # read by search(); set per Searcher before each search

# Late-move reductions by depth and move number: ln(depth) * ln(moves) / LMR_DIVISOR,
# the shape strong engines use (more for late moves at high depth, none early).
cdef double LMR_BASE = 0.75
cdef double LMR_DIVISOR = 2.25
cdef int lmr_table[LMR_MOVES][LMR_MOVES]


cdef void init_lmr_table() noexcept nogil:
    cdef int d, n
    for d in range(LMR_MOVES):
        for n in range(LMR_MOVES):
            if d < 1 or n < 1:
                lmr_table[d][n] = 0
            else:
                lmr_table[d][n] = <int>(LMR_BASE + log(d) * log(n) / LMR_DIVISOR)


init_lmr_table()


cdef struct Picker:
    move_t* moves
    int* keys
    int n
    int picked                  # moves[0:picked] are in their final order
    int stage
    int captures_only           # no quiet moves (quiescence proper)
    int ply                     # the node's ply: the move lists below it are free for SEE
    int quiets_pending          # the quiet moves are generated when the captures run out
    move_t killer1, killer2
    move_t counter              # the quiet move that last refuted the previous move
    int16_t* cont[CONT_PLIES]   # the continuation-history rows of the moves before (or NULL)


# ---------------------------------------------------------------- helpers

cdef inline int64_t now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <int64_t>ts.tv_sec * 1000000000 + ts.tv_nsec


cdef inline int mate_in(int ply) noexcept nogil:
    return MATE - ply


cdef inline int mated_in(int ply) noexcept nogil:
    return -MATE + ply


cdef inline int repetition_score(const Position* p, const Rules* r, int ply) noexcept nogil:
    """A position met before in the game or search: a draw, but where perpetual check
    loses, a loss for the side that checked with every move since (as if mated)."""
    cdef int checker
    if r.perpetual_check_loses:
        checker = perpetual_checker(p, occurrence_ply(p, r, 1))
        if checker == p.stm:
            return mated_in(ply)
        if checker >= 0:
            return mate_in(ply)
    return 0


cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    """Mate scores become distances from this node."""
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


cdef inline TTable* table_of(SearchState* s, int depth) noexcept nogil:
    """The table a node searched to `depth` probes: quiescence nodes, the great
    majority, probe the small table, which stays in the cache, instead of waiting for
    a bucket of the main table to come from memory."""
    return s.qtt if depth <= 0 else s.tt


cdef inline void store(SearchState* s, key_t key, move_t move, int score, int depth,
                       int bound) noexcept nogil:
    """Store a result: a full-width one in both tables (so quiescence nodes that reach
    the position see it), a quiescence one in the small table only."""
    if depth > 0:
        tt_store(s.tt, key, move, score, depth, bound)
    tt_store(s.qtt, key, move, score, depth, bound)


cdef void poll(SearchState* s) noexcept nogil:
    """Set s.aborted if stop() was called or a node/time limit is reached."""
    if s.stop:
        s.aborted = 1
    elif s.node_limit and s.nodes >= s.node_limit:
        s.aborted = 1
    elif s.deadline_ns and now_ns() >= s.deadline_ns:
        s.aborted = 1
    s.next_poll = s.nodes + POLL_INTERVAL
    if s.node_limit and s.next_poll > s.node_limit:
        s.next_poll = s.node_limit


cdef inline int royal_count(const Position* p, const EvalInfo* e, int side) noexcept nogil:
    cdef int t, n = 0
    for t in range(1, 16):
        if e.royal[t]:
            n += p.type_count[side][t]
    return n


cdef int bare_rule(SearchState* s, int ply) noexcept nogil:
    """Shatranj bare-royal rule at node entry: a score, or 1 to go on searching.

    Both sides bare: draw.  The side that just moved is bare and the side to move
    is not: the bare side failed to bare back at once and lost.  The side to move
    is bare: it loses unless the opponent has exactly one other piece, which it may
    capture (the search of that capture scores it).
    """
    cdef Position* p = s.pos
    cdef int us = p.stm, them = p.stm ^ 1
    cdef int ours = p.pcount[us] - royal_count(p, &s.ev, us)
    cdef int theirs = p.pcount[them] - royal_count(p, &s.ev, them)
    if ours == 0 and theirs == 0:
        return 0
    if theirs == 0:
        return mate_in(ply)
    if ours == 0 and theirs >= 2:
        return mated_in(ply)
    return 1


cdef inline int stalemate_value(const Rules* r, int ply) noexcept nogil:
    """Score of the stalemated side to move: Rules.stalemate_score 0 draw, < 0 loss, > 0 win."""
    if r.stalemate_score < 0:
        return mated_in(ply)
    if r.stalemate_score > 0:
        return mate_in(ply)
    return 0


cdef inline int cont_index(const SearchState* s, int piece, int sq) noexcept nogil:
    """A move's place in a continuation-history row: its piece type and target cell
    (the cell numbered as in a table from White's side, one number per board square)."""
    return (piece & TYPE_MASK) * s.cont_cells + owner_index(s.rules, 0, sq)


cdef inline int16_t* cont_row(const SearchState* s, int ply, int back) noexcept nogil:
    """The continuation-history row, for the side to move at `ply`, of the move made
    `back` plies earlier (NULL before the root or after a null move)."""
    cdef int at = ply - back
    if at < 0 or not s.played[at] or s.cont_hist == NULL:
        return NULL
    return s.cont_hist + (
        ((back - 1) * 2 + s.pos.stm) * s.cont_width
        + cont_index(s, s.played_piece[at], mv_to(s.played[at]))) * <size_t>s.cont_width


cdef int alloc_cont_hist(SearchState* s) except -1:
    """Lay the continuation history out for s.rules' variant: kept (aged by
    CONT_HIST_AGE_DIVISOR) while the variant stays, cleared when it changes; none (NULL)
    where it would take more than CONT_HIST_MAX_MB."""
    cdef int cells = s.rules.width * s.rules.height
    cdef int width = (s.rules.num_types + 1) * cells
    cdef size_t n = <size_t>CONT_PLIES * 2 * width * width, i
    if s.cont_hist != NULL and s.cont_cells == cells and s.cont_width == width:
        for i in range(n):
            s.cont_hist[i] //= CONT_HIST_AGE_DIVISOR
        return 0
    free(s.cont_hist)
    s.cont_hist = NULL
    s.cont_cells = cells
    s.cont_width = width
    if n * sizeof(int16_t) > (<size_t>CONT_HIST_MAX_MB << 20):
        return 0
    s.cont_hist = <int16_t*>calloc(n, sizeof(int16_t))
    if s.cont_hist == NULL:
        raise MemoryError("cannot allocate the continuation history")
    return 0


cdef inline int order_key(SearchState* s, const Picker* k, move_t m) noexcept nogil:
    """MVV/LVA key (>= CAP_KEY) for captures and promotions, a capture's moved by its
    capture history (by up to HISTORY_MAX / 256 = 64 cp of victim value: it reorders
    captures of like victims, the attackers above all); for quiet moves, the history
    plus the continuation histories of the moves before."""
    cdef const Rules* r = s.rules
    cdef const Position* p = s.pos
    cdef int victim = captured_type(p, m)
    cdef int promo = mv_promo(m)
    cdef int piece = moving_piece(p, m)
    cdef int gain, attacker, key, j, at
    if victim or promo:
        gain = 0
        if victim:
            gain = r.value[victim] if r.value[victim] > 0 else 1000
        if promo:
            gain += r.value[promo] if r.value[promo] > 0 else 0
        attacker = r.value[piece & TYPE_MASK]
        if attacker < 0:
            attacker = 0
        key = CAP_KEY + gain * 256 - attacker // 8
        if victim:
            key += s.capture_hist[piece_index(piece)][mv_to(m)][victim]
        return key if key >= CAP_KEY else CAP_KEY
    key = s.history[piece_index(piece)][mv_to(m)]
    at = cont_index(s, piece, mv_to(m))
    for j in range(CONT_PLIES):
        if k.cont[j] != NULL:
            key += k.cont[j][at]
    return key


cdef inline int see_value(const Rules* r, int ptype) noexcept nogil:
    """A piece's worth in an exchange: its value, a royal's far above any other."""
    return r.value[ptype] if r.value[ptype] > 0 else SEE_ROYAL_VALUE


cdef inline int capture_gain(const Position* p, const Rules* r, move_t m) noexcept nogil:
    """Material a capture wins at once: the victim, plus what a promotion adds."""
    cdef int gain = see_value(r, captured_type(p, m))
    if mv_promo(m):
        gain += r.value[mv_promo(m)] - r.value[moving_piece(p, m) & TYPE_MASK]
    return gain


cdef inline bint may_promote_on(const Position* p, const Rules* r, int sq) noexcept nogil:
    """Might a capture on sq by the side to move promote (so gain more than its victim)?"""
    return r.sq_row[sq] == r.promo_row[p.stm] or r.zone_rows[p.stm] != 0


cdef int see_reply(SearchState* s, int sq, int ply, int lo, int hi) noexcept nogil:
    """Static exchange evaluation, clamped to [lo, hi] (lo < hi): the most the side to
    move gains by recapturing on sq with its least valuable piece, and so on in turn
    (0: it need not recapture).  A narrow window ends the exchange as soon as its side
    of the window is certain, as alpha-beta ends a search: a caller that only asks
    whether a capture loses more than a margin plays out no more of it than that needs.
    The captures are real moves made on the board, so every kind of move the rays
    describe (hoppers, lame leaps, ...) and legality count.  Where the variant has
    simple attacks, the attack tables name the pieces that can recapture and only
    their moves are generated; elsewhere the move list of `ply` holds all captures."""
    cdef Position* p = s.pos
    cdef const Rules* r = s.rules
    cdef move_t* moves
    cdef move_t m
    cdef int n, j, best_j, least, value, gain
    cdef int attackers[MAX_RAYS]
    if hi <= 0:
        return hi                       # a reply is never worth less than 0
    if see_value(r, p.sq[sq] & TYPE_MASK) <= lo and not may_promote_on(p, r, sq):
        return lo                       # nor more than the piece on sq
    if lo < 0:
        lo = 0
    if ply >= MAX_PLY:
        return lo
    if r.simple_attacks:
        n = attackers_of(p, r, sq, p.stm, attackers)
        while n > 0:
            best_j = 0
            for j in range(1, n):
                if see_value(r, p.sq[attackers[j]] & TYPE_MASK) < see_value(r, p.sq[attackers[best_j]] & TYPE_MASK):
                    best_j = j
            m = capture_from(p, r, attackers[best_j], sq)
            n -= 1
            attackers[best_j] = attackers[n]
            gain = exchange_gain(s, m, ply, lo, hi) if m else INF
            if gain != INF:
                return gain
        return lo
    moves = s.moves + ply * MAX_MOVES
    n = gen_moves(p, r, moves, GEN_CAPTURES)
    while True:
        best_j = -1
        least = INF
        for j in range(n):
            if moves[j] and mv_to(moves[j]) == sq:
                value = see_value(r, moving_piece(p, moves[j]) & TYPE_MASK)
                if value < least:
                    least = value
                    best_j = j
        if best_j < 0:
            return lo
        m = moves[best_j]
        moves[best_j] = 0               # tried
        gain = exchange_gain(s, m, ply, lo, hi)
        if gain != INF:
            return gain


cdef int exchange_gain(SearchState* s, move_t m, int ply, int lo, int hi) noexcept nogil:
    """What the capture m, made at `ply`, wins once the exchange on its square is
    played out, clamped to [lo, hi] (lo < hi; INF if m is illegal)."""
    cdef int gain = capture_gain(s.pos, s.rules, m)
    if not make_move(s.pos, s.rules, m):
        return INF
    gain -= see_reply(s, mv_to(m), ply + 1, gain - hi, gain - lo)
    unmake_move(s.pos, s.rules)
    return gain


cdef bint bad_capture(SearchState* s, move_t m, int ply) noexcept nogil:
    """Does the capture m lose more than BAD_CAPTURE_MARGIN once the exchange on its
    square is played out?  Only a capture by a piece worth more than its victim can
    (an illegal one is left to the search)."""
    cdef const Rules* r = s.rules
    if (mv_promo(m) or see_value(r, moving_piece(s.pos, m) & TYPE_MASK)
            <= see_value(r, captured_type(s.pos, m)) + BAD_CAPTURE_MARGIN):
        return 0
    return exchange_gain(s, m, ply, -BAD_CAPTURE_MARGIN - 1, -BAD_CAPTURE_MARGIN) < -BAD_CAPTURE_MARGIN


cdef bint spite_check(SearchState* s, int ply) noexcept nogil:
    """Did the move that gave this check (the one before `ply`) leave its piece where
    the side in check wins more than BAD_CAPTURE_MARGIN by taking it?  Such a check
    costs material to delay; extending it had the search chase checks with pieces
    given away.  A drop's check keeps its extension (drop games were not measured)."""
    cdef move_t checker = s.played[ply - 1]
    if not checker or mv_is_drop(checker):
        return 0
    return see_reply(s, mv_to(checker), ply, BAD_CAPTURE_MARGIN, BAD_CAPTURE_MARGIN + 1) > BAD_CAPTURE_MARGIN


cdef inline void swap_in(Picker* k, int j) noexcept nogil:
    """Move entry j to position `picked` and advance it."""
    cdef int i = k.picked
    cdef move_t m = k.moves[j]
    cdef int key = k.keys[j]
    k.moves[j] = k.moves[i]
    k.keys[j] = k.keys[i]
    k.moves[i] = m
    k.keys[i] = key
    k.picked = i + 1


cdef void add_moves(SearchState* s, Picker* k, int kind) noexcept nogil:
    """Generate moves of `kind` (GEN_CAPTURES, GEN_QUIETS) onto the end of the list."""
    cdef int j, n = gen_moves(s.pos, s.rules, k.moves + k.n, kind)
    for j in range(k.n, k.n + n):
        k.keys[j] = order_key(s, k, k.moves[j])
        if k.moves[j] == k.counter and k.keys[j] < CAP_KEY:
            k.keys[j] = COUNTER_KEY
    k.n += n
    if kind == GEN_QUIETS:
        k.quiets_pending = 0


cdef inline int find_move(const Picker* k, move_t m) noexcept nogil:
    """Index of the first m in the list, or -1."""
    cdef int j
    for j in range(k.n):
        if k.moves[j] == m:
            return j
    return -1


cdef void sort_rest(Picker* k) noexcept nogil:
    """Sort the moves not yet picked by key, highest first, ties in list order.

    The quiet moves are sorted once rather than selected one by one: a node that
    gets to them usually searches many, and selection would scan the rest for each."""
    cdef int i, j, key
    cdef move_t m
    for i in range(k.picked + 1, k.n):
        m = k.moves[i]
        key = k.keys[i]
        j = i - 1
        while j >= k.picked and k.keys[j] < key:
            k.moves[j + 1] = k.moves[j]
            k.keys[j + 1] = k.keys[j]
            j -= 1
        k.moves[j + 1] = m
        k.keys[j + 1] = key


cdef move_t pick_next(SearchState* s, Picker* k) noexcept nogil:
    """Put the next move in search order at index `picked`; return it (0: none left)."""
    cdef int j, best_j, best_key
    cdef move_t target
    while k.picked < k.n or k.quiets_pending:
        if k.stage == STAGE_CAPTURES:
            best_j = -1
            best_key = CAP_KEY - 1
            for j in range(k.picked, k.n):
                if k.keys[j] > best_key:
                    best_key = k.keys[j]
                    best_j = j
            if best_j >= 0:
                if features & F_BAD_CAPTURES and bad_capture(s, k.moves[best_j], k.ply):
                    k.keys[best_j] = BAD_CAPTURE_KEY
                    continue
                swap_in(k, best_j)
                return k.moves[k.picked - 1]
            if k.captures_only:
                k.stage = STAGE_DONE
                return 0
            k.stage = STAGE_KILLER1
            if k.quiets_pending:
                add_moves(s, k, GEN_QUIETS)
        elif k.stage == STAGE_KILLER1 or k.stage == STAGE_KILLER2:
            target = k.killer1 if k.stage == STAGE_KILLER1 else k.killer2
            k.stage += 1
            if target:
                for j in range(k.picked, k.n):
                    if k.moves[j] == target:
                        swap_in(k, j)
                        return target
        elif k.stage == STAGE_SORT_QUIETS:
            sort_rest(k)
            k.stage = STAGE_QUIETS
        elif k.stage == STAGE_QUIETS:
            k.picked += 1
            return k.moves[k.picked - 1]
        else:
            return 0
    return 0


cdef inline void float_to_front(Picker* k, int i) noexcept nogil:
    """Move entry i to the front, keeping the order of the others."""
    cdef move_t m = k.moves[i]
    cdef int key = k.keys[i]
    cdef int j = i
    while j > 0:
        k.moves[j] = k.moves[j - 1]
        k.keys[j] = k.keys[j - 1]
        j -= 1
    k.moves[0] = m
    k.keys[0] = key


cdef inline void move_with_gravity(int* h, int bonus, int bound) noexcept nogil:
    """Move a score by `bonus`, less the nearer it already is to +-bound in that
    direction ("gravity"): it stays within +-bound (for |bonus| <= bound) and old
    results fade as new ones come in."""
    h[0] += bonus - h[0] * (bonus if bonus > 0 else -bonus) // bound


cdef inline void update_history(int* h, int bonus) noexcept nogil:
    """move_with_gravity within +-HISTORY_MAX: a move's history score."""
    move_with_gravity(h, bonus, HISTORY_MAX)


cdef inline void update_cont(int16_t** rows, int at, int bonus) noexcept nogil:
    """update_history on entry `at` of each continuation-history row there is."""
    cdef int j, h
    for j in range(CONT_PLIES):
        if rows[j] != NULL:
            h = rows[j][at]
            update_history(&h, bonus)
            rows[j][at] = <int16_t>h


cdef inline move_t* counter_slot(SearchState* s, int ply) noexcept nogil:
    """The counter-move entry of the move that led to `ply` (NULL after a null move)."""
    cdef move_t prev = s.played[ply - 1]
    return &s.counter[s.played_piece[ply - 1]][mv_to(prev)] if prev else NULL


cdef inline int history_bonus(int depth) noexcept nogil:
    """How much a cutoff at `depth` moves the histories."""
    cdef int bonus = depth * depth * HISTORY_BONUS_SQUARE + depth * HISTORY_BONUS_LINEAR
    return bonus if bonus < HISTORY_BONUS_MAX else HISTORY_BONUS_MAX


cdef void reward_quiet(SearchState* s, Picker* k, move_t m, int piece, int depth,
                       const move_t* tried, const int* tried_pieces, int n_tried) noexcept nogil:
    """A quiet move caused a cutoff: make it a killer and the counter move of the
    previous move, raise its histories and lower those of the quiet moves tried before it."""
    cdef int ply = k.ply
    cdef int i, bonus = history_bonus(depth)
    cdef move_t* counter = counter_slot(s, ply)
    if features & F_KILLERS and s.killers[ply][0] != m:
        s.killers[ply][1] = s.killers[ply][0]
        s.killers[ply][0] = m
    if features & F_HISTORY:
        update_history(&s.history[piece_index(piece)][mv_to(m)], bonus)
        update_cont(k.cont, cont_index(s, piece, mv_to(m)), bonus)
        for i in range(n_tried):
            update_history(&s.history[tried_pieces[i]][mv_to(tried[i])], -bonus)
            update_cont(k.cont, cont_index(s, tried_pieces[i], mv_to(tried[i])), -bonus)
        if counter != NULL:
            counter[0] = m


cdef void reward_capture(SearchState* s, move_t m, int piece, int victim, int depth,
                         const move_t* tried, const int* tried_pieces, const int* tried_victims,
                         int n_tried) noexcept nogil:
    """A move caused a cutoff: raise the capture history of m if it is a capture
    (victim != 0), lower those of the captures tried before it."""
    cdef int i, bonus = history_bonus(depth)
    if not features & F_HISTORY:
        return
    if victim:
        update_history(&s.capture_hist[piece_index(piece)][mv_to(m)][victim], bonus)
    for i in range(n_tried):
        update_history(&s.capture_hist[tried_pieces[i]][mv_to(tried[i])][tried_victims[i]], -bonus)


cdef void clear_histories(SearchState* s) noexcept nogil:
    """Forget the killers, the quiet and capture histories, the counter moves and the
    evaluation's corrections."""
    memset(s.killers, 0, sizeof(s.killers))
    memset(s.history, 0, sizeof(s.history))
    memset(s.capture_hist, 0, sizeof(s.capture_hist))
    memset(s.counter, 0, sizeof(s.counter))
    memset(s.correction, 0, sizeof(s.correction))


cdef void age_histories(SearchState* s) noexcept nogil:
    """Scale the quiet and capture histories down at a new search: what the last one
    learnt still orders the moves, but the new results soon outweigh it."""
    cdef int piece, sq, victim
    for piece in range(32):
        for sq in range(NSQ):
            s.history[piece][sq] //= HISTORY_AGE_DIVISOR
            for victim in range(TYPE_MASK + 1):
                s.capture_hist[piece][sq][victim] //= HISTORY_AGE_DIVISOR


cdef inline void note_move(SearchState* s, int ply, move_t m) noexcept nogil:
    """Record the move about to be made at `ply` (before make_move: it reads the
    moving piece), for the counter-move table of the node below."""
    s.played[ply] = m
    s.played_piece[ply] = piece_index(moving_piece(s.pos, m))


cdef inline int* correction_slot(SearchState* s, const Position* p) noexcept nogil:
    """The correction-history entry of p's side to move and pawn structure."""
    return &s.correction[p.stm][p.pawn_key & (CORRECTION_SIZE - 1)]


cdef inline int corrected_eval(SearchState* s, int alpha, int beta) noexcept nogil:
    """The static evaluation plus what searches of positions with the same side to
    move and pawn structure found it to be off by (the lazy window moved alike), short
    of the mate scores."""
    cdef int shift = correction_slot(s, s.pos)[0] // CORRECTION_PER_CP
    cdef int value = evaluate(s.pos, s.rules, &s.ev, alpha - shift, beta - shift) + shift
    if value >= MATE_BOUND:
        return MATE_BOUND - 1
    if value <= -MATE_BOUND:
        return -MATE_BOUND + 1
    return value


cdef inline void update_correction(SearchState* s, int error, int depth) noexcept nogil:
    """A search to `depth` found the position `error` cp better than its corrected
    static evaluation: move the pawn structure's entry that way (with gravity, as the
    move histories)."""
    cdef int bonus = error * depth // CORRECTION_DEPTH_DIVISOR
    if bonus > CORRECTION_BONUS_MAX:
        bonus = CORRECTION_BONUS_MAX
    elif bonus < -CORRECTION_BONUS_MAX:
        bonus = -CORRECTION_BONUS_MAX
    move_with_gravity(correction_slot(s, s.pos), bonus, CORRECTION_LIMIT)


# ---------------------------------------------------------------- the search

cdef int search(SearchState* s, int alpha, int beta, int depth, int ply, int null_ok) noexcept nogil:
    """Score of s.pos for the side to move, searched `depth` plies (<= 0: quiescence).

    Fail-soft alpha-beta; ply >= 1 (the root is Searcher.iterate).  Returns 0 when
    the search is aborted (s.aborted set); callers must then discard the result.
    """
    cdef Position* p = s.pos
    cdef const Rules* r = s.rules
    cdef Picker pk
    cdef TTEntry entry              # a copy: other threads may overwrite the table's
    cdef move_t m, hash_move = 0, best_move = 0
    cdef int in_chk = 0, start, last, it, i, best, score, iter_alpha, bound, tt_score
    cdef int static_eval = NO_EVAL, legal, new_depth, reduction, tactical, piece, victim
    cdef move_t tried = 0
    cdef int generated = 0, rule, pv_node = beta - alpha > 1, qs, j, placed
    cdef int iterates               # runs the IID loop over more than its full depth
    cdef int captures_only          # quiescence proper: a stand pat, then captures and promotions
    cdef int pruned_score           # a pruned move's bound, NO_EVAL when not pruned
    cdef int made, pruned, singular = 0, singular_beta
    cdef int improving = 1          # static eval above that of two plies before (or either unknown)
    cdef move_t excluded = s.excluded[ply]  # searching the others than this (singular test)
    cdef move_t quiets[QUIETS_TRACKED]  # quiet moves searched in this iteration
    cdef int quiet_pieces[QUIETS_TRACKED]
    cdef int n_quiets
    cdef move_t captures[CAPTURES_TRACKED]  # captures searched in this iteration
    cdef int capture_pieces[CAPTURES_TRACKED]
    cdef int capture_victims[CAPTURES_TRACKED]
    cdef int n_captures
    cdef move_t* counter
    cdef key_t child_key

    # 1. node count and polling (the hash bucket and score-cache entry load meanwhile;
    # the parent has asked for them already unless this node follows a null move or a
    # special move)
    tt_prefetch(table_of(s, depth), p.key)
    score_prefetch(&s.ev, p.key)
    s.nodes += 1
    if s.nodes >= s.next_poll:
        poll(s)
    if s.aborted:
        return 0
    s.pv_len[ply] = 0
    if ply > s.seldepth:
        s.seldepth = ply

    # 2. draws by rule, variant terminals, mate-distance pruning
    if p.halfmove >= FIFTY_MOVE_PLIES and rule_plies(p, r) >= FIFTY_MOVE_PLIES:
        return 0
    if (p.halfmove >= 4 or r.drops) and repetitions(p, r) > 0:
        return repetition_score(p, r, ply)
    if p.count_limit and counting_draw(p, r):
        return 0
    if r.hill and hill_reached(p, r, p.stm ^ 1):
        return mated_in(ply)
    if r.bare_king_loses:
        rule = bare_rule(s, ply)
        if rule != 1:
            return rule
    if alpha < mated_in(ply):
        alpha = mated_in(ply)
        if alpha >= beta:
            return alpha
    if beta > mate_in(ply + 1):
        beta = mate_in(ply + 1)
        if alpha >= beta:
            return beta
    if ply >= MAX_PLY - 1:
        return corrected_eval(s, alpha, beta)

    # 3. check extension (not for a check that gives its piece away); where the
    # variant's horizon_checks is set, also at the horizon: a check there is answered
    # by a full-width ply of evasions instead of a stand pat that cannot see the mate
    # (and the evasions of a check that gives its piece away by quiescence without one)
    if depth > 0 or (depth == 0 and s.ev.w[W_HORIZON_CHECKS]):
        in_chk = in_check(p, r)
        if in_chk and features & F_CHECK_EXT and not spite_check(s, ply):
            depth += 1
    qs = depth <= 0
    captures_only = qs and not in_chk   # a quiescence node in check searches every evasion
    last = 0 if qs else depth
    # internal iterative deepening at PV nodes only: a null-window node searches its
    # full depth at once, as the shallower iterations that would order its moves cost
    # more nodes than the ordering saves
    iterates = pv_node and not qs
    start = 1 if iterates else last

    # 4. static evaluation (stand pat, null-move and futility conditions), then the
    # hash probe: the evaluation is nearly always needed, and it runs while the
    # bucket prefetched at entry comes in from memory.  A stand pat that fails high
    # ends a quiescence node before the probe: no hash entry could change that
    # result, and the three quiescence nodes in ten that end so (chess middle
    # games) are spared the wait for the bucket.
    if not in_chk and (qs or depth == 1 or not pv_node):
        static_eval = corrected_eval(s, alpha, beta)
        if qs and static_eval >= beta:
            return static_eval
    if not excluded and tt_probe(table_of(s, last), p.key, &entry):
        hash_move = entry.move
        tt_score = score_from_tt(entry.score, ply)
        bound = entry.gen_bound & 3
        if (tt_score <= alpha or bound & BOUND_LOWER) and (tt_score >= beta or bound & BOUND_UPPER):
            if entry.depth >= last:
                return tt_score
            if iterates:
                start = entry.depth + 1 if entry.depth >= 0 else 1
        elif iterates and hash_move and features & F_IID_HASH and entry.depth > 1:
            start = entry.depth if entry.depth < last else last
        if hash_move:
            # cheap sanity check; the 64-bit key makes a foreign move (nearly) impossible
            piece = p.sq[mv_from(hash_move)]
            if mv_is_drop(hash_move):
                if not drop_possible(p, r, hash_move):
                    hash_move = 0
            elif piece == EMPTY or piece == EDGE or (piece & COLOUR_MASK) != colour_bit(p.stm):
                hash_move = 0
            elif captures_only and not (is_capture(p, hash_move) or mv_promo(hash_move)):
                hash_move = 0
    # kept for full-width nodes only: quiescence reduces nothing, and its descendants
    # are all quiescence nodes
    if not qs:
        s.static_evals[ply] = static_eval
        improving = (static_eval == NO_EVAL or ply < 2 or s.static_evals[ply - 2] == NO_EVAL
                     or static_eval > s.static_evals[ply - 2])

    # 5. reverse futility pruning: near the leaves, an evaluation far above beta
    # would need more than a margin per ply of depth to be brought down; the node
    # fails high half way to the evaluation, which no search has confirmed
    if (features & F_RFP and not qs and not pv_node and not in_chk and depth <= RFP_DEPTH
            and static_eval != NO_EVAL and static_eval - RFP_MARGIN * depth >= beta
            and beta > -MATE_BOUND and static_eval < MATE_BOUND):
        return (static_eval + beta) // 2

    # razoring: near the leaves, an evaluation far below alpha is checked by a
    # quiescence search alone, and the node fails low if that does not rise above alpha
    # (not in drop games: quiescence sees no drop, and a drop can turn a game at once)
    if (features & F_RAZOR and not qs and not pv_node and not in_chk and depth <= RAZOR_DEPTH
            and not r.drops
            and static_eval != NO_EVAL and static_eval + RAZOR_MARGIN * depth <= alpha
            and alpha < MATE_BOUND and static_eval > -MATE_BOUND):
        score = search(s, alpha, alpha + 1, 0, ply, 0)
        if s.aborted:
            return 0
        if score <= alpha:
            return score

    # null move
    if (features & F_NULL and not qs and depth >= 2 and null_ok and not in_chk and not pv_node
            and not excluded
            and static_eval >= beta and beta < MATE_BOUND and p.piece_count[p.stm] >= NULL_MOVE_PIECES):
        reduction = (s.ev.w[W_NULL_BASE]
                     + min(depth // s.ev.w[W_NULL_DEPTH_STEP], s.ev.w[W_NULL_DEPTH_PLIES])
                     + min((static_eval - beta) // s.ev.w[W_NULL_EVAL_STEP], s.ev.w[W_NULL_EVAL_PLIES]))
        s.played[ply] = 0
        make_null(p, r)
        score = -search(s, -beta, -beta + 1, depth - 1 - reduction, ply + 1, 0)
        unmake_null(p, r)
        if s.aborted:
            return 0
        if score >= beta:
            if score >= MATE_BOUND:
                score = beta
            return score

    # singular extension: a hash move that beats every other move by a margin, these
    # searched to half the depth without it, is searched a ply deeper; if even the
    # others reach beta with that margin, more than one move refutes, and the node fails high
    if (features & F_SINGULAR and not qs and depth >= SINGULAR_DEPTH and hash_move
            and entry.depth >= depth - SINGULAR_SLACK and bound & BOUND_LOWER
            and -MATE_BOUND < tt_score < MATE_BOUND):
        singular_beta = tt_score - SINGULAR_MARGIN * depth
        s.excluded[ply] = hash_move
        score = search(s, singular_beta - 1, singular_beta, (depth - 1) // 2, ply, 0)
        s.excluded[ply] = 0
        s.static_evals[ply] = static_eval   # the test's node at this ply set its own
        if s.aborted:
            return 0
        if score < singular_beta:
            singular = 1
        elif singular_beta >= beta:
            return singular_beta

    # 6. internal iterative deepening from `start` (PV nodes only, see `iterates`);
    # it == 0 is quiescence
    pk.moves = s.moves + ply * MAX_MOVES
    pk.keys = s.keys + ply * MAX_MOVES
    pk.n = 0
    pk.picked = 0
    pk.stage = STAGE_CAPTURES
    pk.captures_only = captures_only
    pk.ply = ply
    pk.quiets_pending = 0
    pk.killer1 = s.killers[ply][0]
    pk.killer2 = s.killers[ply][1]
    counter = counter_slot(s, ply)
    pk.counter = counter[0] if counter != NULL else 0
    for j in range(CONT_PLIES):     # quiescence orders and rewards no quiet move
        pk.cont[j] = NULL if qs else cont_row(s, ply, j + 1)
    best = -INF
    best_move = hash_move
    it = start
    while it <= last:
        s.passes += 1
        iter_alpha = alpha
        s.pv_len[ply] = 0
        if captures_only:
            best = static_eval          # stand pat (below beta, see 4.)
            if best > iter_alpha:
                iter_alpha = best
        else:
            best = -INF
        legal = 0
        n_quiets = 0
        n_captures = 0
        i = 0
        if generated:
            m = pk.moves[0] if pk.n > 0 else 0
        else:
            m = best_move
            tried = m
        while True:
            if m and m != excluded:
                # -- search move m (list index i once generated)
                piece = moving_piece(p, m)
                victim = captured_type(p, m)
                tactical = victim != 0 or mv_promo(m) != 0
                pruned_score = NO_EVAL
                if captures_only:
                    if (features & F_DELTA and not mv_promo(m)
                            and static_eval + r.value[victim] + DELTA_MARGIN <= iter_alpha):
                        if static_eval + r.value[victim] + DELTA_MARGIN > best:
                            best = static_eval + r.value[victim] + DELTA_MARGIN
                        m = 0
                elif (not in_chk and not tactical and legal > 0 and it <= FUTILITY_DEPTH
                        and m != pk.killer1 and m != pk.killer2 and iter_alpha > -MATE_BOUND):
                    if (features & F_FUTILITY and static_eval != NO_EVAL
                            and static_eval + FUTILITY_MARGIN * it <= iter_alpha):
                        pruned_score = static_eval + FUTILITY_MARGIN * it
                    elif (features & F_LMP and not pv_node and it <= LMP_DEPTH
                            and legal >= LMP_BASE + it * it):
                        pruned_score = -INF
                made = 0
                # pruned (futility, late move) unless it gives check: a quiet check
                # near the leaves may mate; where gives_check cannot tell, making the
                # move does
                pruned = pruned_score != NO_EVAL and gives_check(p, r, m) == 0
                if m and not pruned:
                    # start loading the child's hash bucket and score-cache entry
                    # now: make_move's time is added to the time they have to arrive
                    child_key = key_after(p, r, m)
                    tt_prefetch(table_of(s, 0 if qs else it - 1), child_key)
                    score_prefetch(&s.ev, child_key)
                    note_move(s, ply, m)
                    made = make_move(p, r, m)
                    if made and pruned_score != NO_EVAL and not in_check(p, r):
                        unmake_move(p, r)
                        made = 0
                        pruned = 1
                if pruned and pruned_score > best:
                    best = pruned_score
                if made:
                    legal += 1
                    new_depth = it - 1
                    if singular and it == last and m == hash_move:
                        new_depth += 1
                    if qs:
                        score = -search(s, -beta, -iter_alpha, -1, ply + 1, 1)
                    elif legal == 1 or not (features & F_PVS):
                        score = -search(s, -beta, -iter_alpha, new_depth, ply + 1, 1)
                    else:
                        reduction = 0
                        if (features & F_LMR and it >= 3 and legal > 3 and not tactical and not in_chk
                                and m != pk.killer1 and m != pk.killer2
                                and not ((pv_node or not s.ev.w[W_REDUCE_CHECKS]) and in_check(p, r))):
                            reduction = lmr_table[it if it < LMR_MOVES else LMR_MOVES - 1][
                                legal if legal < LMR_MOVES else LMR_MOVES - 1]
                            if not improving:
                                reduction += s.ev.w[W_IMPROVING_LMR]
                            reduction -= pk.keys[i] // LMR_HISTORY_STEP if pk.keys[i] < CAP_KEY else 0
                            if pv_node and reduction > 0:
                                reduction -= 1
                            if reduction < 0:
                                reduction = 0
                            if reduction > new_depth - 1:
                                reduction = new_depth - 1
                        score = -search(s, -iter_alpha - 1, -iter_alpha, new_depth - reduction, ply + 1, 1)
                        if reduction and score > iter_alpha and not s.aborted:
                            score = -search(s, -iter_alpha - 1, -iter_alpha, new_depth, ply + 1, 1)
                        if iter_alpha < score < beta and not s.aborted:
                            score = -search(s, -beta, -iter_alpha, new_depth, ply + 1, 1)
                    unmake_move(p, r)
                    if s.aborted:
                        return 0
                    if score > best:
                        best = score
                        if score > iter_alpha:
                            iter_alpha = score
                            best_move = m
                            if generated and i > 0:
                                float_to_front(&pk, i)
                            s.pv[ply][0] = m
                            for j in range(s.pv_len[ply + 1]):
                                s.pv[ply][j + 1] = s.pv[ply + 1][j]
                            s.pv_len[ply] = s.pv_len[ply + 1] + 1
                            if score >= beta:
                                if not tactical and not qs:
                                    reward_quiet(s, &pk, m, piece, it, quiets, quiet_pieces, n_quiets)
                                if not qs:
                                    reward_capture(s, m, piece, victim, it, captures,
                                                   capture_pieces, capture_victims, n_captures)
                                break
                    if not tactical and n_quiets < QUIETS_TRACKED:
                        quiets[n_quiets] = m
                        quiet_pieces[n_quiets] = piece_index(piece)
                        n_quiets += 1
                    elif victim and not qs and n_captures < CAPTURES_TRACKED:
                        captures[n_captures] = m
                        capture_pieces[n_captures] = piece_index(piece)
                        capture_victims[n_captures] = victim
                        n_captures += 1
            # -- next move: generate after the hash move (captures first, the quiet
            # moves only when they are reached), then walk/pick the list
            if not generated:
                add_moves(s, &pk, GEN_CAPTURES)
                pk.quiets_pending = not captures_only
                placed = 0
                if tried:
                    j = find_move(&pk, tried)
                    if j < 0 and pk.quiets_pending:
                        add_moves(s, &pk, GEN_QUIETS)
                        j = find_move(&pk, tried)
                    if j >= 0:
                        placed = 1
                        swap_in(&pk, j)
                generated = 1
                i = placed
            else:
                i += 1
            if i < pk.picked:
                m = pk.moves[i]
            elif i == pk.picked:
                m = pick_next(s, &pk)
            else:
                m = 0
            if m == 0:
                break
        # 7. no legal move: mate or stalemate (futility prunes only after a legal move)
        if legal == 0 and not captures_only:
            if excluded:
                return alpha            # no other move: the excluded one is singular
            if in_chk:
                best = mated_in(ply)
            else:
                best = stalemate_value(r, ply)
            store(s, p.key, 0, score_to_tt(best, ply), 127, BOUND_EXACT)
            return best
        bound = 0
        if best > alpha:
            bound |= BOUND_LOWER
        if best < beta:
            bound |= BOUND_UPPER
        if not excluded:
            store(s, p.key, best_move, score_to_tt(best, ply), it, bound)
            # the evaluation's error, where the result says which way it was off: a
            # quiet best move (or none), a bound on the evaluation's side of it
            if (it == last and not qs and static_eval != NO_EVAL
                    and (best_move == 0 or not (is_capture(p, best_move) or mv_promo(best_move)))
                    and (bound & BOUND_LOWER or best < static_eval)
                    and (bound & BOUND_UPPER or best > static_eval)
                    and -MATE_BOUND < best < MATE_BOUND):
                update_correction(s, best - static_eval, it)
        it += 1
    return best


# ---------------------------------------------------------------- Lazy SMP helpers

cdef void begin_search(SearchState* s) noexcept nogil:
    """What every new search, the main thread's and each helper's, starts from: no
    killers, no static eval at the root (which takes none, so its grandchildren count as
    improving), the counters at zero and no stop asked."""
    memset(s.killers, 0, sizeof(s.killers))
    s.static_evals[0] = NO_EVAL
    s.nodes = 0
    s.passes = 0
    s.next_poll = 0
    s.seldepth = 0
    s.stop = 0
    s.aborted = 0


cdef int helper_root(SearchState* s, int depth, move_t* root, int n, move_t first) noexcept nogil:
    """One iteration of a helper thread over its root moves (PVS, full window at the
    first): the best score, with the best move at root[0] (meaningless if s.aborted).
    `first`, the main thread's best move so far, is searched first, and each new best
    move of the helper moves to the front: a good first move keeps the windows of
    the rest narrow, as in the main thread's own iterations."""
    cdef Position* p = s.pos
    cdef int i, alpha = -INF, score
    cdef move_t m
    for i in range(n):
        if root[i] == first:
            bring_to_front(root, i)
            break
    for i in range(n):
        m = root[i]
        note_move(s, 0, m)
        make_move(p, s.rules, m)
        if i == 0:
            score = -search(s, -INF, INF, depth - 1, 1, 1)
        else:
            score = -search(s, -alpha - 1, -alpha, depth - 1, 1, 1)
            if score > alpha and not s.aborted:
                score = -search(s, -INF, -alpha, depth - 1, 1, 1)
        unmake_move(p, s.rules)
        if s.aborted:
            return alpha
        if score > alpha:
            alpha = score
            bring_to_front(root, i)
    return alpha


cdef inline void bring_to_front(move_t* moves, int i) noexcept nogil:
    """Move moves[i] to the front, the ones before it one place back."""
    cdef move_t m = moves[i]
    while i > 0:
        moves[i] = moves[i - 1]
        i -= 1
    moves[0] = m


cdef int alloc_move_lists(SearchState* s) except -1:
    """A search thread's move lists and their ordering keys, one list per ply (its
    continuation history comes with the variant: alloc_cont_hist)."""
    s.cont_hist = NULL
    s.cont_cells = 0
    s.cont_width = 0
    s.moves = <move_t*>malloc(MAX_PLY * MAX_MOVES * sizeof(move_t))
    s.keys = <int*>malloc(MAX_PLY * MAX_MOVES * sizeof(int))
    if s.moves == NULL or s.keys == NULL:
        free_search_memory(s)
        raise MemoryError("cannot allocate move lists")
    return 0


cdef void free_search_memory(SearchState* s) noexcept:
    """Free what alloc_move_lists and alloc_cont_hist allocated."""
    free(s.moves)
    free(s.keys)
    free(s.cont_hist)
    s.moves = NULL
    s.keys = NULL
    s.cont_hist = NULL


cdef class SearchHelper:
    """A Lazy SMP helper thread: the same search on its own copy of the root, with its
    own move stack, killers, histories, quiescence table and evaluation caches; the
    main hash table is shared (lockless, see tt.pxd).  Helper k keeps 1 + k % 2 plies
    ahead of the main thread's iteration, so that the main thread finds deeper results
    in the table instead of the same ones, and searches the main thread's best move
    first.
    Its last completed iteration (done_depth, done_move, done_score) is there for the
    main thread to take when it is deeper than its own."""

    def __cinit__(self, int index):
        self.qtt_owner = TT(kb=QS_HASH_KB)
        self.eval_cache = EvalCache()
        alloc_move_lists(&self.s)
        clear_histories(&self.s)
        self.lead = 1 + index % 2
        self.main_depth = NULL
        self.main_best = NULL
        self.thread = None

    def __dealloc__(self):
        free_search_memory(&self.s)

    cdef void start(self, Searcher main, Board board, list root):
        """Search the moves `root` of `board` in a new thread until stop(), sharing
        main's hash table."""
        cdef int i
        self.board = board.copy()
        memcpy(&self.s.ev, &main.s.ev, sizeof(EvalInfo))
        self.eval_cache.attach(&self.s.ev)
        self.s.pos = &self.board.pos
        self.s.pos.psq_score = psq_total(self.s.pos, self.board.rules)
        self.s.pos.root_ply = self.s.pos.ply
        self.s.rules = self.board.rules
        alloc_cont_hist(&self.s)
        self.s.tt = main.s.tt
        self.s.qtt = &self.qtt_owner.t
        self.s.qtt.generation = main.s.tt.generation
        begin_search(&self.s)
        self.s.node_limit = 0
        self.s.deadline_ns = main.s.deadline_ns
        self.main_depth = &main.root_depth
        self.main_best = &main.root_best
        self.root_n = len(root)
        for i in range(self.root_n):
            self.root[i] = root[i]
        self.done_depth = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        cdef int depth = 1, score
        with nogil:
            while depth < MAX_PLY - 4 and not self.s.aborted:
                if depth < self.main_depth[0] + self.lead:
                    depth = self.main_depth[0] + self.lead
                score = helper_root(&self.s, depth, self.root, self.root_n, self.main_best[0])
                if not self.s.aborted:
                    self.done_move = self.root[0]
                    self.done_score = score
                    self.done_depth = depth     # last: the main thread reads it first
                depth += 1

    cdef void finish(self):
        self.s.stop = 1
        if self.thread is not None:
            self.thread.join()
            self.thread = None


def static_exchange(Board board not None, move_t move, int lo=-INF, int hi=INF):
    """Centipawns the capture `move` wins on `board` once the exchange on its square
    is played out, least valuable piece first (the search's SEE), clamped to [lo, hi]
    as the search asks for it; None if it is not a legal capture there."""
    cdef SearchState s
    cdef Board b = board.copy()
    if lo >= hi:
        raise ValueError(f"empty window [{lo}, {hi}]")
    if move not in b.legal_moves() or not is_capture(&b.pos, move):
        return None
    s.pos = &b.pos
    s.rules = b.rules
    alloc_move_lists(&s)
    try:
        return exchange_gain(&s, move, 0, lo, hi)
    finally:
        free_search_memory(&s)


# ---------------------------------------------------------------- root driver

cdef class Searcher:
    """Owns the hash tables and search state; `iterate` runs a search on a board copy."""

    def __cinit__(self, size_t hash_mb=64):
        self.tt_owner = TT(hash_mb)
        self.qtt_owner = TT(kb=QS_HASH_KB)
        self.eval_cache = EvalCache()
        alloc_move_lists(&self.s)
        self.s.tt = &self.tt_owner.t
        self.s.qtt = &self.qtt_owner.t
        self.s.stop = 0
        self.features = F_DEFAULT
        self.helpers = []
        self.thread_count = 1
        self.root_depth = 0
        self.root_best = 0
        self._clear_tables()

    def __dealloc__(self):
        free_search_memory(&self.s)

    cdef void _clear_tables(self):
        clear_histories(&self.s)
        free(self.s.cont_hist)      # the next search lays out a cleared one
        self.s.cont_hist = NULL

    @property
    def hash_mb(self):
        return self.tt_owner.size_mb

    def resize(self, size_t mb):
        """Reallocate the hash table at `mb` megabytes (contents are lost)."""
        self.tt_owner.resize(mb)
        self.s.tt = &self.tt_owner.t

    @property
    def threads(self) -> int:
        return self.thread_count

    @threads.setter
    def threads(self, int threads):
        """Search with this many threads (Lazy SMP) from the next search on; 1 is
        deterministic.  Safe to set while a search runs."""
        self.thread_count = max(1, threads)

    cdef tuple _deepest_helper(self, int depth, int depth_limit):
        """(depth, score, move) of the deepest iteration a helper has completed, if it
        is deeper than `depth` and within `depth_limit`; else None."""
        cdef SearchHelper helper, deepest = None
        cdef int done
        for helper in self.helpers:
            done = helper.done_depth
            if depth < done <= depth_limit and (deepest is None or done > deepest.done_depth):
                deepest = helper
        if deepest is None:
            return None
        return deepest.done_depth, deepest.done_score, deepest.done_move

    cdef object _helper_info(self, tuple deeper, int64_t start_ns):
        """The SearchInfo of a helper's completed iteration (see _deepest_helper)."""
        depth, score, move = deeper
        return SearchInfo(depth, score, self._nodes(), (now_ns() - start_ns) // 1000000,
                          self._pv_from([move], depth), 1, self.s.seldepth, True)

    cdef uint64_t _nodes(self):
        """Nodes of all threads."""
        cdef uint64_t total = self.s.nodes
        cdef SearchHelper helper
        for helper in self.helpers:
            total += helper.s.nodes
        return total

    def hashfull(self) -> int:
        """Permille of the main hash table filled by the current search (a sample)."""
        return self.tt_owner.usage()

    def clear(self):
        """Forget everything learnt: hash tables, killers, history (for `new` and bench)."""
        self.tt_owner.clear()
        self.qtt_owner.clear()
        self._clear_tables()

    def correction(self, Board board not None) -> int:
        """The centipawns the correction history adds to board's static evaluation."""
        return correction_slot(&self.s, &board.pos)[0] // CORRECTION_PER_CP

    def stop(self):
        """Ask a running search to stop at once (thread-safe; the search holds no GIL)."""
        self.s.stop = 1

    def set_deadline(self, hard_ms):
        """Stop the running search hard_ms milliseconds from now (a ponder hit turns a
        search without a deadline into a timed one; one int64 store, thread-safe)."""
        self.s.deadline_ns = now_ns() + <int64_t>(min(hard_ms, MAX_HARD_MS) * 1000000)

    @property
    def nodes(self):
        """Nodes (search() calls) of the current/last search."""
        return self.s.nodes

    @property
    def passes(self):
        """IID passes of the current/last search: Fairy-Max's way of counting nodes
        (once per node and iteration, hash cutoffs excluded); for comparisons only."""
        return self.s.passes

    def set_features(self, **flags):
        """Turn search features on/off by name (see FEATURES); for measurements."""
        for name, on in flags.items():
            bit = FEATURES[name]
            self.features = (self.features | bit) if on else (self.features & ~bit)

    cdef list _pv_from(self, list raw, int max_len):
        """`raw` cut at its first illegal move, then extended from the hash table."""
        cdef Board b = self.board
        cdef TTEntry e
        cdef list out = []
        cdef int made = 0
        for m in raw:
            if m not in b.legal_moves():
                break
            make_move(&b.pos, b.rules, m)
            made += 1
            out.append(m)
        while len(out) < max_len:
            if (not tt_probe(self.s.tt, b.pos.key, &e) or e.move == 0
                    or e.move not in b.legal_moves()):
                break
            make_move(&b.pos, b.rules, e.move)
            made += 1
            out.append(e.move)
            if repetitions(&b.pos, b.rules) > 0:
                break
        for _ in range(made):
            unmake_move(&b.pos, b.rules)
        return out

    def iterate(self, Board board not None, max_depth=None, max_nodes=None, hard_ms=None,
                exclude=(), int multipv=1):
        """Iterative deepening on a copy of `board`; yields SearchInfo (see its doc).

        One SearchInfo per multi-PV line after each completed iteration, plus one with
        complete=False when the best root move changes inside an iteration.  Stops
        after max_depth plies, at max_nodes nodes, after hard_ms milliseconds, on
        stop(), or when the consumer closes the generator.  If the position has legal
        moves, at least one SearchInfo (with a legal pv[0]) is always yielded.
        """
        global features
        cdef SearchState* s = &self.s
        cdef Position* p
        cdef const Rules* rr
        cdef int depth, depth_limit, line, lines, idx, alpha, beta, a, best, score, delta
        cdef int prev_score, yielded = 0
        cdef move_t m, best_m, prev_best = 0
        cdef int64_t start_ns

        init_psq(board.variant)
        self.board = board.copy()
        p = &self.board.pos
        rr = self.board.rules
        p.psq_score = psq_total(p, rr)
        p.root_ply = p.ply
        eval_info_init(&s.ev, board.variant)
        self.eval_cache.attach(&s.ev)
        if not (self.features & F_MOBILITY):
            memset(s.ev.mob_weight, 0, sizeof(s.ev.mob_weight))
        s.pos = p
        s.rules = rr
        alloc_cont_hist(s)
        s.tt = &self.tt_owner.t
        s.tt.generation = (s.tt.generation + 1) & 63
        s.qtt = &self.qtt_owner.t
        s.qtt.generation = s.tt.generation
        begin_search(s)
        age_histories(s)
        features = self.features
        s.node_limit = max_nodes if max_nodes else 0
        start_ns = now_ns()
        s.deadline_ns = start_ns + <int64_t>(min(hard_ms, MAX_HARD_MS) * 1000000) if hard_ms else 0
        depth_limit = min(max_depth, MAX_PLY - 4) if max_depth else MAX_PLY - 4

        excluded = set(exclude)
        root = [mv for mv in self.board.legal_moves() if mv not in excluded]
        if not root:
            return
        # order the root moves by a quiescence search of each
        qscore = {}
        for mv in root:
            m = mv
            note_move(s, 0, m)
            make_move(p, rr, m)
            with nogil:
                score = -search(s, -INF, INF, 0, 1, 1)
            unmake_move(p, rr)
            qscore[mv] = score
        s.aborted = 0
        root.sort(key=lambda mv: -qscore[mv])
        prev_score = qscore[root[0]]
        lines = min(max(multipv, 1), len(root))

        self.root_depth = 0
        self.root_best = root[0]
        if len(self.helpers) + 1 != self.thread_count:
            self.helpers = [SearchHelper(k) for k in range(self.thread_count - 1)]
        helpers = self.helpers
        for helper in helpers:
            (<SearchHelper>helper).start(self, self.board, root)
        try:
            depth = 0
            while depth < depth_limit:
                depth += 1
                self.root_depth = depth
                for line in range(lines):
                    delta = ASPIRATION
                    if features & F_ASPIRATION and depth >= 4 and line == 0 and -MATE_BOUND < prev_score < MATE_BOUND:
                        alpha = prev_score - delta
                        beta = prev_score + delta
                    else:
                        alpha = -INF
                        beta = INF
                    while True:                                 # aspiration re-searches
                        best = -INF
                        best_m = 0
                        a = alpha
                        for idx in range(line, len(root)):
                            m = root[idx]
                            note_move(s, 0, m)
                            make_move(p, rr, m)
                            if idx == line or not (features & F_PVS):
                                with nogil:
                                    score = -search(s, -beta, -a, depth - 1, 1, 1)
                            else:
                                with nogil:
                                    score = -search(s, -a - 1, -a, depth - 1, 1, 1)
                                    if a < score < beta and not s.aborted:
                                        score = -search(s, -beta, -a, depth - 1, 1, 1)
                            unmake_move(p, rr)
                            if s.aborted:
                                break
                            if score > best:
                                best = score
                                if score > a:
                                    a = score
                                    best_m = m
                                    if line == 0:
                                        self.root_best = m
                                    root.insert(line, root.pop(idx))
                                    pv = [m] + [s.pv[1][j] for j in range(s.pv_len[1])]
                                    if score >= beta:
                                        break
                                    if line == 0 and idx > line and depth > 1:
                                        yielded = 1
                                        yield SearchInfo(depth, score, self._nodes(), (now_ns() - start_ns) // 1000000,
                                                         self._pv_from(pv, depth), 1, s.seldepth, False)
                        if s.aborted:
                            break
                        if best <= alpha and alpha > -INF:
                            alpha = max(-INF, alpha - delta)
                            delta *= 2
                        elif best >= beta and beta < INF:
                            beta = min(INF, beta + delta)
                            delta *= 2
                        else:
                            break
                    if s.aborted:
                        deeper = self._deepest_helper(depth - 1, depth_limit) if lines == 1 and helpers else None
                        if deeper is not None:
                            yield self._helper_info(deeper, start_ns)
                        elif line == 0 and best_m and best_m != prev_best:
                            yield SearchInfo(depth, best, self._nodes(), (now_ns() - start_ns) // 1000000,
                                             self._pv_from(pv, depth), 1, s.seldepth, False)
                        elif not yielded:
                            yield SearchInfo(depth - 1, prev_score, self._nodes(),
                                             (now_ns() - start_ns) // 1000000, [root[0]], 1, s.seldepth, False)
                        return
                    if line == 0:
                        prev_score = best
                        prev_best = best_m
                    yielded = 1
                    yield SearchInfo(depth, best, self._nodes(), (now_ns() - start_ns) // 1000000,
                                     self._pv_from(pv, depth), line + 1, s.seldepth, True)
                if lines == 1 and helpers:
                    # a helper that completed a deeper iteration: its result is the
                    # better one, and the main thread goes on from there
                    deeper = self._deepest_helper(depth, depth_limit)
                    if deeper is not None:
                        depth, prev_score, prev_best = deeper
                        root.insert(0, root.pop(root.index(prev_best)))
                        self.root_best = prev_best
                        self.root_depth = depth
                        yield self._helper_info(deeper, start_ns)
        finally:
            for helper in helpers:
                (<SearchHelper>helper).finish()
