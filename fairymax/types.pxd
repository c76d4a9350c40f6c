# cython: language_level=3
"""Shared C types, constants and the packed-move layout of the engine core.

Board geometry: rows 16 cells wide (Fairy-Max's step vectors assume this), with
GUARD_ROWS rows of EDGE cells above and below the board and EDGE cells in the
columns right of the last file.  A square index is (GUARD_ROWS + row) * 16 + file,
row 0 being the top rank (Black's back rank), so Fairy-Max's "-16 = toward rank 8"
steps apply unchanged.  Boards up to MAX_FILES x MAX_RANKS.
"""
from libc.stdint cimport uint8_t, int16_t, int32_t, uint64_t

ctypedef int32_t move_t
ctypedef int32_t score_t
ctypedef uint64_t key_t
ctypedef uint8_t piece_t

cdef enum:
    STRIDE = 16
    GUARD_ROWS = 4
    MAX_FILES = 14
    MAX_RANKS = 16
    NSQ = (MAX_RANKS + 2 * GUARD_ROWS) * STRIDE    # 384 cells
    FIRST_SQ = GUARD_ROWS * STRIDE
    MAX_TYPES = 16          # piece types 1..15
    MAX_RAYS = 256
    MAX_PIECES = 64         # per colour
    MAX_MOVES = 1024        # per position (shogi with full hands: ~600 legal moves)
    MAX_GAME_PLY = 4096     # undo stack / repetition history (game + search)
    MAX_HAND = 32           # pieces of one type in one hand (hash keys per count)

# Piece byte: bits 0-3 type (1..15), bit 4 white, bit 5 black, bit 6 has-moved,
# bit 7 promoted (drop games only: a captured promoted piece goes to hand as a Pawn).
# EDGE has both colour bits, so "cell & own_colour" stops a ray at the edge and
# at an own piece with one test.
cdef enum:
    EMPTY = 0
    TYPE_MASK = 0x0F
    WHITE = 0x10
    BLACK = 0x20
    COLOUR_MASK = 0x30
    MOVED = 0x40
    PROMOTED = 0x80
    EDGE = 0x30
    IRON = -665         # pieces valued below this cannot be captured (Fairy-Max l.230)

cdef inline int square(int row, int file) noexcept nogil:
    """Cell index of (row from the top, file from the left)."""
    return (GUARD_ROWS + row) * STRIDE + file

cdef inline int colour_of(int piece) noexcept nogil:
    """0 for a white piece byte, 1 for a black one."""
    return 0 if piece & WHITE else 1

cdef inline int colour_bit(int side) noexcept nogil:
    """The colour bit of side's pieces (WHITE for 0, BLACK for 1)."""
    return WHITE if side == 0 else BLACK

cdef inline int piece_index(int piece) noexcept nogil:
    """Row of the per-piece tables (zobrist, psq, history): type, plus 16 for Black."""
    return (piece & TYPE_MASK) | ((piece & BLACK) >> 1)

# Ray mode bits, as in Fairy-Max's fmax.ini.
cdef enum:
    M_CAPTURE = 1
    M_QUIET = 2
    M_LEAP = 4
    M_HOP = 8
    M_CYLINDER = 0x100
    M_MULTIPATH = 0x200

# Packed move (move_t, always >= 0; 0 = no move):
#   bits  0-8   from square        bits  9-17  to square
#   bits 18-21  promotion type     bits 22-23  kind (MK_*)
#   bits 24-27  kind detail: castling step index (MK_CASTLE) or number of steps
#               of a multi-step pawn push (MK_PUSH)
#   bits 28-29  gating: 1 or 2 = the first or second hand piece of Rules.gate_type
#               is put on the square the mover left (Seirawan)
# A drop has from == to (no piece move can end where it started) and the dropped
# piece type in the detail bits.
cdef enum:
    MK_NORMAL = 0
    MK_EP = 1          # captures the piece on the previous move's destination
    MK_CASTLE = 2      # also moves the corner piece
    MK_PUSH = 3        # pawn multi-step that grants e.p. rights

cdef inline move_t mv_pack(int frm, int to, int promo, int kind, int detail) noexcept nogil:
    return frm | (to << 9) | (promo << 18) | (kind << 22) | (detail << 24)

cdef inline int mv_from(move_t m) noexcept nogil:
    return m & 0x1FF

cdef inline int mv_to(move_t m) noexcept nogil:
    return (m >> 9) & 0x1FF

cdef inline int mv_promo(move_t m) noexcept nogil:
    return (m >> 18) & 0xF

cdef inline int mv_kind(move_t m) noexcept nogil:
    return (m >> 22) & 0x3

cdef inline int mv_detail(move_t m) noexcept nogil:
    return (m >> 24) & 0xF

cdef inline int mv_gate(move_t m) noexcept nogil:
    return (m >> 28) & 0x3


cdef inline move_t mv_drop(int to, int ptype) noexcept nogil:
    return mv_pack(to, to, 0, MK_NORMAL, ptype)

cdef inline bint mv_is_drop(move_t m) noexcept nogil:
    return mv_from(m) == mv_to(m)

cdef inline int mv_drop_type(move_t m) noexcept nogil:
    return mv_detail(m)
