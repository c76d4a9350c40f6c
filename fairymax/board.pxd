# cython: language_level=3
"""Position on a 16-wide guarded board, move generation from ray tables, make/unmake."""
from fairymax.types cimport (move_t, score_t, key_t, piece_t, NSQ, MAX_PIECES,
                             MAX_GAME_PLY, MAX_MOVES, STRIDE, EMPTY, TYPE_MASK, COLOUR_MASK, MOVED, PROMOTED, MK_EP,
                             mv_from, mv_to, mv_kind, mv_is_drop, mv_drop_type, colour_bit,
                             piece_index)
from fairymax.variant cimport Rules, Variant

cdef struct Undo:
    move_t move
    piece_t moved           # mover's byte before the move
    piece_t captured        # captured byte (EMPTY if none)
    piece_t corner          # castling: corner piece's byte
    int capture_sq
    int capture_index       # victim's slot in its colour's piece list
    int ep_sq, ep_sq2, ep_victim
    int halfmove
    int count_limit, count_ply
    int checked
    key_t key
    key_t pawn_key
    score_t psq_score

cdef struct Position:
    piece_t sq[NSQ]
    int plist[2][MAX_PIECES]    # squares of each colour's pieces
    int pcount[2]
    int pindex[NSQ]             # slot of the piece on a square in its list
    int type_count[2][16]       # pieces of each type per colour
    int types_present[2]        # bit t set: the colour has a piece of type t
    int piece_count[2]          # pieces other than pawns and royals (worth more than 0)
    int piece_material[2]       # their summed values
    int hand[2][16]             # pieces in hand per colour and type (gating, drops)
    int stm                     # side to move: 0 white, 1 black
    int ep_sq, ep_sq2           # squares a pawn may capture e.p. on (-1 none)
    int ep_victim               # square of the pawn taken e.p.
    int halfmove                # plies since capture or pawn move
    int count_limit             # Thai counting: the running count's limit in plies (0: none)
    int count_ply               # ... and its plies so far
    int checked                 # side to move in check: 1/0, -1 not yet known
    int royal_sq[2]             # square of a colour's only royal, -1 if it has 0 or several
    int ply                     # undo stack height
    int root_ply                # history before this is the game, after it the search
    key_t key
    key_t pawn_key              # the pawns' part of key (types 1 and 2), for the pawn cache
    score_t psq_score           # sum of Rules.psq, White's view
    Undo undo[MAX_GAME_PLY]

# what gen_moves generates: GEN_CAPTURES and GEN_QUIETS split GEN_ALL in two
cdef enum:
    GEN_ALL = 0
    GEN_CAPTURES = 1        # captures and promotions (to the first promotion choice)
    GEN_QUIETS = 2          # the rest: non-captures and all under-promotions

cdef bint attacked(const Position* p, const Rules* r, int sq, int by_side) noexcept nogil
cdef int attackers_of(const Position* p, const Rules* r, int sq, int by_side, int* out) noexcept nogil
cdef move_t capture_from(const Position* p, const Rules* r, int frm, int sq) noexcept nogil
cdef int gen_moves(const Position* p, const Rules* r, move_t* out, int kind) noexcept nogil
cdef bint make_move(Position* p, const Rules* r, move_t m) noexcept nogil
cdef void unmake_move(Position* p, const Rules* r) noexcept nogil
cdef void make_null(Position* p, const Rules* r) noexcept nogil
cdef void unmake_null(Position* p, const Rules* r) noexcept nogil
cdef bint hill_reached(const Position* p, const Rules* r, int side) noexcept nogil
cdef bint bared_out(const Position* p, const Rules* r) noexcept nogil
cdef bint in_check_of(const Position* p, const Rules* r, int side) noexcept nogil
cdef bint check_after_move(const Position* p, const Rules* r) noexcept nogil
cdef int gives_check(const Position* p, const Rules* r, move_t m) noexcept nogil
cdef int repetitions(const Position* p, const Rules* r) noexcept nogil
cdef int occurrence_ply(const Position* p, const Rules* r, int nth) noexcept nogil
cdef int perpetual_checker(const Position* p, int since) noexcept nogil
cdef int rule_plies(const Position* p, const Rules* r) noexcept nogil
cdef bint counting_draw(Position* p, const Rules* r) noexcept nogil
cdef bint has_legal_move(Position* p, const Rules* r) noexcept nogil
cdef int legal_moves(Position* p, const Rules* r, move_t* out) noexcept nogil
cdef unsigned long long perft(Position* p, const Rules* r, int depth) noexcept nogil

cdef class Board:
    cdef Position pos
    cdef readonly Variant variant
    cdef const Rules* rules
    cdef public list history          # moves pushed since the last reset/set_fen
    cdef public int fullmove_offset   # plies before the set-up position (FEN move number)
    cdef void _clear(self)
    cdef void _finish_setup(self)
    cdef int _canonical(self, int t)
    cdef _parse_fen(self, str fen)
    cdef bint _has_royal(self, int side)
    cdef bint _setup_has_royal(self, int side)
    cdef void _set_virgin(self, str rights)
    cdef int _castling_royal_file(self, int side)
    cdef int _parse_square(self, str text)


# Per-move helpers of the search, inline here so that other modules compile them in
# instead of calling through Cython's cross-module function table.

cdef inline bint in_check(Position* p, const Rules* r) noexcept nogil:
    """Could the opponent capture a royal of the side to move if it passed?  The answer
    is kept in p.checked until the position changes (make_move uses it too)."""
    if p.checked < 0:
        p.checked = check_after_move(p, r)
    return p.checked


cdef inline piece_t moving_piece(const Position* p, move_t m) noexcept nogil:
    """The piece m moves; for a drop, the piece it puts on the board."""
    if mv_is_drop(m):
        return colour_bit(p.stm) | mv_drop_type(m)
    return p.sq[mv_from(m)]


cdef inline bint drop_possible(const Position* p, const Rules* r, move_t m) noexcept nogil:
    """Could the drop m be made here (a hash move from another position could not)?"""
    cdef int to = mv_to(m), t = mv_drop_type(m), row
    cdef piece_t own
    if not (p.sq[to] == EMPTY and 0 < t < 16 and p.hand[p.stm][t] > 0
            and (r.drop_rows[p.stm][t] >> r.sq_row[to]) & 1):
        return False
    if r.drop_one_per_file[t]:
        own = colour_bit(p.stm) | t
        for row in range(r.height):
            if (p.sq[to + (row - r.sq_row[to]) * STRIDE] & (COLOUR_MASK | TYPE_MASK)) == own:
                return False
    return True


cdef inline bint is_capture(const Position* p, move_t m) noexcept nogil:
    return mv_kind(m) == MK_EP or p.sq[mv_to(m)] != EMPTY


cdef inline int captured_type(const Position* p, move_t m) noexcept nogil:
    if mv_kind(m) == MK_EP:
        return p.sq[p.ep_victim] & TYPE_MASK
    return p.sq[mv_to(m)] & TYPE_MASK


cdef inline key_t piece_key(const Rules* r, piece_t pc, int sq) noexcept nogil:
    """Hash of a piece on a square; whether it is unmoved counts only where that can
    change its moves (a knight that went out and back repeats the position)."""
    cdef key_t k = r.zobrist[piece_index(pc)][sq]
    if not (pc & MOVED) and (r.has_initial_moves[pc & TYPE_MASK] or r.castle_corner[sq]):
        k ^= r.zobrist_virgin[sq]
    return k


cdef inline key_t hand_change_key(const Position* p, const Rules* r, int side, int t,
                                  int delta) noexcept nogil:
    """What the hash of the hands changes by when side's hand of type t changes by
    delta (+1 or -1): each piece held has a key of its own, by how many were held
    before it."""
    return r.zobrist_hand[side][t][p.hand[side][t] if delta > 0 else p.hand[side][t] - 1]


cdef inline piece_t dropped_piece(const Position* p, const Rules* r, int side, int t,
                                  int to) noexcept nogil:
    """The piece byte a drop of type t puts on `to`: a Pawn dropped on its start row
    keeps its first moves (crazyhouse), every other piece counts as moved."""
    if t <= 2 and r.sq_row[to] == r.pawn_row[side]:
        return colour_bit(side) | t
    return colour_bit(side) | t | MOVED


cdef inline int hand_type_of_capture(const Rules* r, int side, piece_t victim) noexcept nogil:
    """In a drop game, the type side's hand gains by capturing victim (0: none)."""
    return r.demoted_type[side] if victim & PROMOTED else r.hand_type[side][victim & TYPE_MASK]


cdef inline key_t key_after(const Position* p, const Rules* r, move_t m) noexcept nogil:
    """The hash key make_move(m) will give, exact for plain moves, captures and drops
    (other kinds may differ): the search prefetches the child's hash bucket with it."""
    cdef int frm = mv_from(m), to = mv_to(m), side = p.stm, gained
    cdef piece_t piece = p.sq[frm], victim = p.sq[to]
    cdef key_t key
    if mv_is_drop(m):
        key = (p.key ^ r.zobrist_side ^ hand_change_key(p, r, side, mv_drop_type(m), -1)
               ^ piece_key(r, dropped_piece(p, r, side, mv_drop_type(m), to), to))
    else:
        key = p.key ^ r.zobrist_side ^ piece_key(r, piece, frm) ^ piece_key(r, piece | MOVED, to)
    if victim != EMPTY:
        key ^= piece_key(r, victim, to)
        if r.drops:
            gained = hand_type_of_capture(r, side, victim)
            if gained:
                key ^= hand_change_key(p, r, side, gained, 1)
    if p.ep_sq >= 0:
        key ^= r.zobrist_ep[p.ep_sq]
    return key
