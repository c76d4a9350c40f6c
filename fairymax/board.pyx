# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Board state, move generation from Fairy-Max ray tables, make/unmake and legality.

One ray walker (walk_ray) serves the generic legality test and the generation of
every ray that is not a plain leap or slide; plain rays, nearly all in most variants,
take short per-type loops (plain_captures, plain_quiets).  The walker's semantics
are Fairy-Max 5.0b's: for each ray (step, mode) the piece steps repeatedly; at each
square the low mode digit says whether it may capture (1) or move (2) there, whether
the ray ends after this step (4, leaper) or hops over an occupied square (8); the
toggle digit is XORed into the low digit once, after the first step (plus the delay
count of the third digit), or on hopping; the step then becomes the second step
vector.  A low digit of exactly 4 is an initial move (pawn multi-step with e.p. rights,
castling, e.p.-immune jumps) that only unmoved pieces have.
"""
from libc.string cimport memset, memcpy

from fairymax.types cimport (move_t, score_t, key_t, piece_t, NSQ, STRIDE,
                             MAX_MOVES, MAX_GAME_PLY, MAX_HAND, EMPTY, TYPE_MASK, WHITE,
                             BLACK, COLOUR_MASK, MOVED, PROMOTED, EDGE, IRON, M_CAPTURE, M_QUIET,
                             M_LEAP, M_HOP, M_CYLINDER, M_MULTIPATH, MK_NORMAL, MK_EP, MK_CASTLE,
                             MK_PUSH, colour_bit, square, mv_pack, mv_from, mv_to, mv_promo, mv_kind, mv_detail,
                             mv_gate, mv_drop, mv_is_drop, mv_drop_type, colour_of, piece_index)
from fairymax.variant cimport Rules, Variant, StepRuns, CHECK_LEAP_ROWS, CHECK_LEAP_FILES

import re

cdef enum:
    GEN_ATTACKS = 3      # walk_rays only: does a royal capture exist?
    HISTORY_RESERVE = 256    # undo slots kept free for the search
    DOUBLE_PUSH = 0x24       # ray mode of a pawn's blockable first-move double step

# castling step, by the detail code stored in a castling move
cdef int CASTLE_STEP[4]
CASTLE_STEP[:] = [1, -1, 16, -16]


cdef struct AttackScan:
    int castle_e         # square the castling royal stepped over first, -1 if none
    int castle_d         # castling royal's destination
    int royal_hit        # first attacked royal of a kind that has spares (duple check)


# ---------------------------------------------------------------- small helpers

cdef inline key_t pawn_part(const Rules* r, piece_t pc, int sq) noexcept nogil:
    """piece_key for pawns (types 1 and 2), else 0: what Position.pawn_key sums."""
    return piece_key(r, pc, sq) if (pc & TYPE_MASK) <= 2 else 0

cdef inline score_t piece_psq(const Rules* r, piece_t pc, int sq) noexcept nogil:
    cdef score_t v = r.psq[piece_index(pc)][sq]
    return v if pc & WHITE else -v

cdef key_t hand_key(const Position* p, const Rules* r) noexcept nogil:
    """Hash of the pieces in hand (a key per piece held, by how many were held before)."""
    cdef key_t k = 0
    cdef int side, t, i
    for side in range(2):
        for t in range(16):
            for i in range(p.hand[side][t]):
                k ^= r.zobrist_hand[side][t][i]
    return k


cdef inline score_t hand_psq(const Rules* r, int side, int t) noexcept nogil:
    """Rules.hand_psq of a piece in side's hand, White's view (as piece_psq)."""
    cdef score_t v = r.hand_psq[t | (side << 4)]
    return -v if side else v


cdef inline bint occupied(piece_t cell) noexcept nogil:
    """Occupied for Fairy-Max's path tests, where off-board cells read as empty."""
    return cell != EMPTY and cell != EDGE

cdef inline bint in_region(const Rules* r, int side, int ptype, int sq) noexcept nogil:
    """May a piece of this type and side stand on sq (Rules.region_rows/files)?"""
    return ((r.region_rows[side][ptype] >> r.sq_row[sq]) & 1) and ((r.region_files[side][ptype] >> r.sq_file[sq]) & 1)


cdef inline bint royals_face(const Position* p, const Rules* r) noexcept nogil:
    """Do the two royals stand on one file with nothing between them (illegal where
    Rules.royals_may_not_face: xiangqi's flying general)?"""
    cdef int top = p.royal_sq[1], bottom = p.royal_sq[0], sq
    if not r.royals_may_not_face or top < 0 or bottom < 0 or r.sq_file[top] != r.sq_file[bottom]:
        return False
    if top > bottom:
        top, bottom = bottom, top
    sq = top + STRIDE
    while sq < bottom:
        if p.sq[sq] != EMPTY:
            return False
        sq += STRIDE
    return True


cdef inline bint on_hill(const Rules* r, int sq) noexcept nogil:
    cdef int row = r.sq_row[sq], f = r.sq_file[sq]
    return (row == 3 or row == 4) and (f == r.width // 2 or f == r.width // 2 - 1)


cdef void recompute_royal(Position* p, const Rules* r, int side) noexcept nogil:
    """royal_sq[side] = the square of side's only royal piece, or -1."""
    cdef int k, sq, found = -1, count = 0
    for k in range(p.pcount[side]):
        sq = p.plist[side][k]
        if r.value[p.sq[sq] & TYPE_MASK] < 0:
            found = sq
            count += 1
    p.royal_sq[side] = found if count == 1 else -1


# ---------------------------------------------------------------- the ray walker

cdef inline int emit(const Position* p, const Rules* r, int kind, move_t* out, int n,
                     int frm, int to, int capsq, piece_t piece, int marker,
                     int castle_code, int nsteps) noexcept nogil:
    """Append the move(s) for one reached square; promotions may give several."""
    cdef int ptype = piece & TYPE_MASK, colour, promo = 0, i, mkind = MK_NORMAL, detail = 0
    cdef bint tactical
    if marker >= 0:
        if ptype <= 2:
            mkind = MK_PUSH
            detail = nsteps
        else:
            mkind = MK_CASTLE
            detail = castle_code
    elif capsq != to:
        mkind = MK_EP
    if r.promotes_to[ptype]:
        colour = colour_of(piece)
        if ((r.zone_rows[colour] >> r.sq_row[to]) | (r.zone_rows[colour] >> r.sq_row[frm])) & 1:
            return shogi_promotions(p, r, kind, out, n, frm, to, capsq, piece, mkind, detail)
    if ptype <= 2:
        colour = ptype - 1
        if r.sq_row[to] == r.promo_row[colour]:
            if r.promo_choices[colour][0]:
                if kind != GEN_QUIETS:
                    out[n] = mv_pack(frm, to, r.promo_choices[colour][0], mkind, detail)
                    n += 1
                if kind != GEN_CAPTURES:
                    i = 1
                    while i < 15 and r.promo_choices[colour][i]:
                        out[n] = mv_pack(frm, to, r.promo_choices[colour][i], mkind, detail)
                        n += 1
                        i += 1
                return n
            promo = r.promo_type[colour][r.sq_file[to]]
    tactical = capsq != to or p.sq[to] != EMPTY or promo != 0
    if (kind == GEN_CAPTURES and not tactical) or (kind == GEN_QUIETS and tactical):
        return n
    out[n] = mv_pack(frm, to, promo, mkind, detail)
    return n + 1


cdef int shogi_promotions(const Position* p, const Rules* r, int kind, move_t* out, int n,
                          int frm, int to, int capsq, piece_t piece, int mkind, int detail) noexcept nogil:
    """emit() for a move of a Promotes: piece that starts or ends in its zone: the
    promotion (tactical), and the move without it (tactical only if it captures) unless
    the piece could never move again from `to`."""
    cdef int ptype = piece & TYPE_MASK
    cdef bint capture = capsq != to or p.sq[to] != EMPTY
    if kind != GEN_QUIETS:
        out[n] = mv_pack(frm, to, r.promotes_to[ptype], mkind, detail)
        n += 1
    if (r.dead_rows[colour_of(piece)][ptype] >> r.sq_row[to]) & 1:
        return n
    if kind == GEN_ALL or (kind == GEN_CAPTURES) == capture:
        out[n] = mv_pack(frm, to, 0, mkind, detail)
        n += 1
    return n


cdef inline int plain_captures(const Position* p, const Rules* r, int side, move_t* out, int n,
                               int frm, const StepRuns* runs) noexcept nogil:
    """Captures along the plain rays `runs` of the piece on frm.  A move is written for
    every ray and kept only if it hits a capturable piece (so out needs one slot more
    than the moves it gets)."""
    cdef const unsigned char* victim = r.capturable[side]
    cdef int j, step, to
    for j in range(runs.first, runs.slide):
        to = frm + r.run_step[j]
        out[n] = mv_pack(frm, to, 0, MK_NORMAL, 0)
        n += victim[p.sq[to]]
    for j in range(runs.slide, runs.end):
        step = r.run_step[j]
        to = frm + step
        while p.sq[to] == EMPTY:
            to += step
        out[n] = mv_pack(frm, to, 0, MK_NORMAL, 0)
        n += victim[p.sq[to]]
    return n


cdef inline int plain_quiets(const Position* p, const Rules* r, move_t* out, int n, int frm,
                             const StepRuns* runs) noexcept nogil:
    """Non-captures along the plain rays `runs` of the piece on frm."""
    cdef int j, step, to
    for j in range(runs.first, runs.slide):
        to = frm + r.run_step[j]
        out[n] = mv_pack(frm, to, 0, MK_NORMAL, 0)
        n += p.sq[to] == EMPTY
    for j in range(runs.slide, runs.end):
        step = r.run_step[j]
        to = frm + step
        while p.sq[to] == EMPTY:
            out[n] = mv_pack(frm, to, 0, MK_NORMAL, 0)
            n += 1
            to += step
    return n


cdef inline int add_gatings(const Position* p, const Rules* r, int side, move_t* out, int n,
                            move_t base) noexcept nogil:
    """Copies of base that also gate a hand piece onto the square the mover leaves."""
    cdef int g
    for g in range(2):
        if r.gate_type[side][g] and p.hand[side][r.gate_type[side][g]] > 0:
            out[n] = base | ((g + 1) << 28)
            n += 1
    return n


cdef inline int pawn_step(const Position* p, const Rules* r, int own, int kind, move_t* out,
                          int n, int frm, int step, int mode, bint use_ep) noexcept nogil:
    """The common case of walk_rays for a pawn: one plain step (push or capture,
    e.p. and promotion included)."""
    cdef int to = frm + step, capsq = to
    cdef piece_t cell = p.sq[to]
    if cell == EDGE:
        return n
    if use_ep and (mode & M_CAPTURE) and (to == p.ep_sq or to == p.ep_sq2):
        capsq = p.ep_victim
        cell = p.sq[capsq]
    if not (mode & (M_CAPTURE if cell else M_QUIET)) or (cell & own):
        return n
    if cell and r.value[cell & TYPE_MASK] < IRON:
        return n
    return emit(p, r, kind, out, n, frm, to, capsq, p.sq[frm], -1, 0, 1)


cdef inline int pawn_moves(const Position* p, const Rules* r, int side, int kind, move_t* out,
                           int n, int frm, int t, bint use_ep) noexcept nogil:
    """Moves of `kind` along the plain leaper rays of a pawn (type t) on frm.  Cheap
    tests pass over the rays that cannot give such a move before pawn_step looks."""
    cdef int i, j, to, mode, promo_row = r.promo_row[t - 1]
    cdef bint wanted
    for i in range(r.pawn_first[t], r.pawn_first[t + 1]):
        j = r.pawn_ray[i]
        mode = r.ray_mode[j]
        to = frm + r.ray_step[j]
        if kind == GEN_ALL or r.sq_row[to] == promo_row:
            wanted = True
        elif kind == GEN_CAPTURES:
            wanted = (mode & M_CAPTURE) and (r.capturable[side][p.sq[to]]
                                             or (use_ep and (to == p.ep_sq or to == p.ep_sq2)))
        else:
            wanted = (mode & M_QUIET) and p.sq[to] == EMPTY
        if wanted:
            n = pawn_step(p, r, colour_bit(side), kind, out, n, frm, r.ray_step[j], mode, use_ep)
    return n


cdef inline int walk_ray(const Position* p, const Rules* r, int side, int kind, move_t* out, int n,
                  AttackScan* scan, int frm, int j) noexcept nogil:
    """Walk ray j of the piece on frm with Fairy-Max's full semantics.

    kind GEN_ALL / GEN_CAPTURES / GEN_QUIETS: append the moves of that kind to out[n:],
    return the new count.  kind GEN_ATTACKS: return -1 if the ray lets `side` capture a
    royal in a way that loses the game for its owner (or cross a square the castling
    royal passed), else n.
    """
    cdef int own = colour_bit(side)
    cdef piece_t piece = p.sq[frm], cell
    cdef int ptype = piece & TYPE_MASK
    cdef bint virgin = (piece & MOVED) == 0
    cdef bint use_ep = kind != GEN_ATTACKS and p.ep_sq >= 0
    cdef int step = r.walk_step[side][j], mode = r.walk_mode[side][j]
    cdef int to, capsq, step2, low, delay, nsteps, f, value, marker, castle_code, path
    cdef int victim_type, first
    cdef bint moved_push, stop, platform, may_land = True
    if r.confined and not (r.ray_rows[side][j] >> r.sq_row[frm]) & 1:
        return n
    if mode == DOUBLE_PUSH and ptype <= 2 and kind != GEN_ATTACKS:
        # a pawn's double push, the common odd ray, without the generic walk below
        # unless it lands on the promotion row
        to = frm + 2 * step
        if not virgin or p.sq[frm + step] != EMPTY or p.sq[to] != EMPTY:
            return n
        if r.sq_row[to] != r.promo_row[ptype - 1]:
            if kind != GEN_CAPTURES:
                out[n] = mv_pack(frm, to, 0, MK_PUSH, 2)
                n += 1
            return n
    to = frm
    delay = (mode >> 10) & 3
    moved_push = False
    if delay > ptype:
        # C24 pawn: triple push when unmoved; a moved pawn on its own 3rd
        # rank may still double-push (Wildebeest)
        if not virgin and r.sq_row[frm] == (r.height - 3 if ptype == 1 else 2):
            delay = 0
            moved_push = True
        else:
            delay = 1
    marker = -1
    castle_code = 0
    nsteps = 0
    while True:
        to += step
        nsteps += 1
        if mode & M_CYLINDER:
            f = to & 15
            if f > 13:
                to += r.width
            elif f >= r.width:
                to -= r.width
        cell = p.sq[to]
        if cell == EDGE:
            break
        if mode & M_MULTIPATH:
            # Falcon: some empty path of unit steps must lead here
            path = mode >> 12
            if occupied(p.sq[frm + path]):
                if occupied(p.sq[to - 2 * path]) or occupied(p.sq[to - path]):
                    break
            elif occupied(p.sq[frm + 2 * path]) and occupied(p.sq[to - path]):
                break
        if kind == GEN_ATTACKS and scan.castle_e >= 0 and (mode & M_CAPTURE):
            if to < scan.castle_d:
                if to >= scan.castle_e - 1:
                    return -1
            elif to <= scan.castle_e + 1:
                return -1
        capsq = to
        if use_ep and ptype <= 2 and (mode & M_CAPTURE) and (to == p.ep_sq or to == p.ep_sq2):
            capsq = p.ep_victim
            cell = p.sq[capsq]
        if r.confined:
            may_land = in_region(r, side, ptype, to)
        if may_land and mode & (M_CAPTURE if cell else M_QUIET):
            if cell & own:
                break
            if cell:
                victim_type = cell & TYPE_MASK
                value = r.value[victim_type]
                if value < IRON:
                    break
                if kind == GEN_ATTACKS and value < 0:
                    if value == -1 or p.type_count[1 - side][victim_type] < 2:
                        return -1
                    if scan.royal_hit >= 0 and scan.royal_hit != capsq and (victim_type & 8):
                        return -1
                    scan.royal_hit = capsq
            if kind != GEN_ATTACKS and (marker < 0 or ptype <= 2 or castle_code >= 0):
                first = n
                n = emit(p, r, kind, out, n, frm, to, capsq, piece, marker, castle_code, nsteps)
                if r.gating and virgin and ptype > 2 and n > first:
                    n = add_gatings(p, r, side, out, n, out[first])
        # how the ray goes on
        stop = cell != EMPTY
        platform = stop and ((delay & 2) == 0 or (cell & own) != 0)
        step2 = step ^ (mode >> 12)
        low = mode & 15
        if low != 4:
            if mode & M_LEAP:
                stop = True
        elif not virgin and not moved_push:
            stop = True
        elif ptype > 2 and not (mode & 0x80) and not castling_possible(p, r, frm, to, step, step2):
            stop = True
        elif mode & 0x40:
            if mode & 0x80:
                stop = False
            mode &= 63
        else:
            marker = to
            if ptype > 2:
                castle_code = castle_code_of(step)
        if (mode & M_HOP) and platform:
            if delay & 1:
                to -= step
            stop = False
            step = step2
            mode ^= (mode >> 4) & 15
        elif not (mode & 0x80):
            if delay == 0:
                step = step2
                mode ^= (mode >> 4) & 15
            delay -= 1
        if stop:
            break
    return n


cdef inline int walk_piece(const Position* p, const Rules* r, int side, int kind, move_t* out, int n,
                           AttackScan* scan, int frm, bint use_ep) noexcept nogil:
    """Walk every ray of the piece of `side` on frm (see walk_rays); returns the new
    count, or -1 for a royal capture under GEN_ATTACKS."""
    cdef int i, j, odd_end
    cdef piece_t piece = p.sq[frm]
    cdef int ptype = piece & TYPE_MASK
    if kind == GEN_ATTACKS or (r.gating and ptype > 2 and not (piece & MOVED)) or r.generic_type[ptype]:
        # every ray the generic way: the attack test, pieces that may gate, and
        # pieces whose region or ray rows the fast loops do not test
        for j in range(r.first_ray[ptype], r.first_ray[ptype + 1]):
            n = walk_ray(p, r, side, kind, out, n, scan, frm, j)
            if n < 0:
                return -1
        return n
    if ptype <= 2 and (use_ep or (r.promo_near[ptype] >> r.sq_row[frm]) & 1):
        n = pawn_moves(p, r, side, kind, out, n, frm, ptype, use_ep)
    else:
        if kind != GEN_QUIETS:
            n = plain_captures(p, r, side, out, n, frm, &r.cap_runs[ptype])
        if kind != GEN_CAPTURES:
            n = plain_quiets(p, r, out, n, frm, &r.quiet_runs[ptype])
    # the other rays; for captures only those that may give one, for a piece that
    # has moved no first moves (see Rules.odd_split)
    if kind == GEN_CAPTURES:
        odd_end = r.odd_split[ptype]
    elif piece & MOVED:
        odd_end = r.odd_moved_end[ptype]
    else:
        odd_end = r.odd_first[ptype + 1]
    for i in range(r.odd_first[ptype], odd_end):
        n = walk_ray(p, r, side, kind, out, n, scan, frm, r.odd_ray[i])
    return n


cdef inline int walk_rays(const Position* p, const Rules* r, int side, int kind,
                          move_t* out, AttackScan* scan) noexcept nogil:
    """Walk every ray of every piece of `side`.

    kind GEN_ALL / GEN_CAPTURES / GEN_QUIETS: append pseudo-legal moves of that kind to
    out, return the count.  Plain rays take the per-type loops (a pawn only where it
    cannot promote or capture e.p.), the others walk_ray.
    kind GEN_ATTACKS: return 1 as soon as `side` could capture a royal in a way that
    loses the game for its owner (or cross a square the castling royal passed), else 0.
    """
    cdef int n = 0, k
    cdef bint use_ep = kind != GEN_ATTACKS and p.ep_sq >= 0
    for k in range(p.pcount[side]):
        n = walk_piece(p, r, side, kind, out, n, scan, p.plist[side][k], use_ep)
        if n < 0:
            return 1
    return n


cdef int attackers_of(const Position* p, const Rules* r, int sq, int by_side, int* out) noexcept nogil:
    """The squares of by_side's pieces that can capture on sq, into out (at most
    Rules.num_attack_dirs[by_side]); returns their number.  Only for variants with
    simple_attacks (see attacked)."""
    cdef int i, s, n = 0
    for i in range(r.num_attack_dirs[by_side]):
        s = attacker_from(p, r, sq, by_side, i)
        if s >= 0:
            out[n] = s
            n += 1
    return n


cdef move_t capture_from(const Position* p, const Rules* r, int frm, int sq) noexcept nogil:
    """The pseudo-legal capture on sq by the side to move's piece on frm (promoting
    to the first choice where it promotes), 0 if it has none."""
    cdef move_t moves[MAX_MOVES]
    cdef int j, n = walk_piece(p, r, p.stm, GEN_CAPTURES, moves, 0, NULL, frm, 0)
    for j in range(n):
        if mv_to(moves[j]) == sq:
            return moves[j]
    return 0


cdef inline int castle_code_of(int step) noexcept nogil:
    cdef int i
    for i in range(4):
        if CASTLE_STEP[i] == step:
            return i
    return -1            # a castling ray in another direction is not supported


cdef bint castling_possible(const Position* p, const Rules* r, int frm, int first, int step,
                            int step2) noexcept nogil:
    """Fairy-Max's castling conditions, checked after the royal's first step `first`:
    an unmoved piece in the corner it steps toward, and empty squares next to it,
    on the royal's path and where the corner piece lands."""
    cdef int corner = frm - r.sq_file[frm] + (r.width - 1 if step > 0 else 0)
    cdef piece_t c = p.sq[corner]
    if c == EMPTY or c == EDGE or (c & MOVED):
        return False
    return (p.sq[corner - step] == EMPTY and p.sq[corner - 2 * step] == EMPTY
            and p.sq[first + step2 - step] == EMPTY and p.sq[first + step] == EMPTY)


cdef inline int attacker_from(const Position* p, const Rules* r, int sq, int by_side,
                              int i) noexcept nogil:
    """The square of the piece of by_side that can capture on sq from attack direction
    i (Rules.attack_step), or -1; a line is walked only if by_side still has a type
    that slides along it."""
    cdef int own = colour_bit(by_side), d = r.attack_step[by_side][i], s = sq - d
    cdef int sliders = r.attack_sliders[by_side][i]
    cdef piece_t cell = p.sq[s]
    if (cell & COLOUR_MASK) == own:
        return s if ((r.attack_leapers[by_side][i] | sliders) >> (cell & TYPE_MASK)) & 1 else -1
    if cell == EMPTY and sliders & p.types_present[by_side]:
        s -= d
        cell = p.sq[s]
        while cell == EMPTY:
            s -= d
            cell = p.sq[s]
        if (cell & COLOUR_MASK) == own and (sliders >> (cell & TYPE_MASK)) & 1:
            return s
    return -1


cdef bint attacked(const Position* p, const Rules* r, int sq, int by_side) noexcept nogil:
    """Can a piece of by_side capture on sq?  Only for variants with simple_attacks.
    The directions that only other pieces attack from are skipped when those are all
    gone, so endings do not test the squares of knights or walk the lines of sliders
    that have left the board."""
    cdef int i
    cdef int ndirs = (r.num_attack_dirs[by_side] if p.types_present[by_side] & r.late_attack_types[by_side]
                      else r.royal_attack_dirs[by_side])
    for i in range(ndirs):
        if attacker_from(p, r, sq, by_side, i) >= 0:
            return True
    return False


cdef bint royal_capturable(const Position* p, const Rules* r, int by_side, int castle_e,
                           int castle_d) noexcept nogil:
    """Could by_side, moving now, end the game by capturing a royal (or cross a square
    a castling royal just passed)?  The generic test, valid in every variant."""
    cdef AttackScan scan
    scan.castle_e = castle_e
    scan.castle_d = castle_d
    scan.royal_hit = -1
    return walk_rays(p, r, by_side, GEN_ATTACKS, NULL, &scan) != 0


cdef bint hill_reached(const Position* p, const Rules* r, int side) noexcept nogil:
    cdef int k, sq
    for k in range(p.pcount[side]):
        sq = p.plist[side][k]
        if r.value[p.sq[sq] & TYPE_MASK] < 0 and on_hill(r, sq):
            return True
    return False


cdef bint bare(const Position* p, const Rules* r, int side) noexcept nogil:
    """Has side nothing left but royal pieces?"""
    cdef int k
    for k in range(p.pcount[side]):
        if r.value[p.sq[p.plist[side][k]] & TYPE_MASK] >= 0:
            return False
    return True


cdef inline bint pawns_on_board(const Position* p) noexcept nogil:
    return p.type_count[0][1] + p.type_count[1][2] > 0


cdef int count_moves_of(const Position* p, const Rules* r, int side) noexcept nogil:
    """The limit in moves of a count side would start now (Counting:): none (0) while
    the other side is bare; while side has more than its royal, the board's honour
    limit, if no pawns are left (or, with count_board_max, if side has at most that
    many pieces); else, once no pawns are left, the pieces' honour limit that the
    other side's pieces set."""
    cdef int other = side ^ 1, k, t, pieces
    cdef bint pawns = pawns_on_board(p)
    if (pawns and not r.count_board_max) or bare(p, r, other):
        return 0            # the usual case in the middle game, told without a piece walk
    if not bare(p, r, side):
        if r.count_board_max:
            return r.count_moves if p.pcount[side] <= r.count_board_max else 0
        return r.count_moves
    if pawns:
        return 0
    for k in range(r.count_honours):
        pieces = 0
        for t in range(1, r.num_types + 1):
            if (r.count_types[k] >> t) & 1:
                pieces += p.type_count[other][t]
        if pieces >= r.count_needed[k]:
            return r.count_honour_moves[k]
    return r.count_else_moves


cdef void update_count(Position* p, const Rules* r, piece_t victim, int promoted) noexcept nogil:
    """Thai counting after a move (p.stm is the side to move next), as Fairy-Stockfish
    counts.  A running count goes on.  A bare royal that took the last pawn starts its
    pieces' honour count.  Else, while no count runs, the side to move starts one when
    it may; and a side just left bare by a capture or a promotion starts its pieces'
    honour count, which begins at the number of pieces on the board (or at 0:
    count_from_zero, where the bare royal's capture starts nothing)."""
    cdef int mover = p.stm ^ 1, moves, pieces = p.pcount[0] + p.pcount[1]
    if p.count_limit:
        p.count_ply += 1
    if victim and (victim & TYPE_MASK) <= 2 and bare(p, r, mover) and not r.count_from_zero:
        moves = count_moves_of(p, r, mover)
        if moves:
            p.count_limit = 2 * moves
            p.count_ply = 2 * pieces - 1        # counted as if from before the capture
    if not p.count_limit or ((victim or promoted) and bare(p, r, p.stm)):
        moves = count_moves_of(p, r, p.stm)
        if moves:
            p.count_limit = 2 * moves
            p.count_ply = 2 * pieces if bare(p, r, p.stm) and not r.count_from_zero else 0


cdef bint counting_draw(Position* p, const Rules* r) noexcept nogil:
    """The count has passed its limit and the side to move is not mated: a draw."""
    if not (r.counting_draws and p.count_limit and p.count_ply > p.count_limit):
        return False
    return not in_check(p, r) or has_legal_move(p, r)


cdef bint bared_out(const Position* p, const Rules* r) noexcept nogil:
    """Shatranj's rule (BareKing: loss): the side that just moved is left with only its
    royal while the side to move has more, so the side to move has won."""
    return r.bare_king_loses and bare(p, r, p.stm ^ 1) and not bare(p, r, p.stm)


cdef inline int queen_line_step(int drow, int dfile) noexcept nogil:
    """The one-square step from a square toward another drow rows and dfile files away,
    if they share a rank, file or diagonal; else 0."""
    if drow != 0 and dfile != 0 and drow != dfile and drow != -dfile:
        return 0
    return (drow > 0) * STRIDE - (drow < 0) * STRIDE + (dfile > 0) - (dfile < 0)


cdef bint discovers_attack(const Position* p, const Rules* r, int royal, int vacated,
                           int filled, int by_side) noexcept nogil:
    """Does a move from `vacated` to `filled` open a slider line of by_side onto
    `royal`?  Either square may still hold what it held before the move: `vacated`
    counts as empty, `filled` as occupied.  (For a position whose royal was not
    attacked before, in a queen-lines-only variant.)"""
    cdef int d = queen_line_step(r.sq_row[vacated] - r.sq_row[royal],
                                 r.sq_file[vacated] - r.sq_file[royal])
    cdef int s, mask
    cdef piece_t cell
    if d == 0:
        return False
    mask = r.slider_mask_by_step[by_side][64 - d]
    if not mask:
        return False
    s = royal + d
    while (p.sq[s] == EMPTY or s == vacated) and s != filled:
        s += d
    if s == filled or ((s < vacated) if d > 0 else (s > vacated)):
        return False              # the line is blocked, by the moved piece or before it
    cell = p.sq[s]
    return (cell & COLOUR_MASK) == colour_bit(by_side) and (mask >> (cell & TYPE_MASK)) & 1


cdef bint move_checks(const Position* p, const Rules* r, int royal, int mover, piece_t piece,
                      int frm, int to) noexcept nogil:
    """Does mover's plain move or drop of `piece` from `frm` to `to` attack `royal`,
    which was not attacked before it?  Only the moved piece and a line through the
    square it left can (a drop leaves none: its `frm` is `to`, which stays filled);
    the board may be read before or after the move (see discovers_attack)."""
    cdef int drow = r.sq_row[royal] - r.sq_row[to], dfile = r.sq_file[royal] - r.sq_file[to], d, s
    if (-CHECK_LEAP_ROWS <= drow <= CHECK_LEAP_ROWS and -CHECK_LEAP_FILES <= dfile <= CHECK_LEAP_FILES
            and (r.leaper_mask_by_step[mover][royal - to + 64] >> (piece & TYPE_MASK)) & 1):
        return True
    d = queen_line_step(drow, dfile)
    if d and (r.slider_mask_by_step[mover][d + 64] >> (piece & TYPE_MASK)) & 1:
        # before the move this walk could only meet `frm` if the piece slid away from
        # the royal along the line, and then it attacked the royal already
        s = to + d
        while p.sq[s] == EMPTY:
            s += d
        if s == royal:
            return True
    return discovers_attack(p, r, royal, frm, to, mover)


cdef inline bint check_readable(const Rules* r, int royal, move_t m) noexcept nogil:
    """Can move_checks tell whether m attacks `royal`: the variant allows it
    (Rules.checks_from_move), there is one royal, and m moves or removes no second
    piece (e.p., castling, gating)?"""
    return (r.checks_from_move and royal >= 0 and mv_kind(m) != MK_EP and mv_kind(m) != MK_CASTLE
            and not mv_gate(m))


cdef bint check_after_move(const Position* p, const Rules* r) noexcept nogil:
    """Is the side to move in check?  Read off the last move where check_readable
    allows: the position before it was legal, so the side to move was not in check
    then, and after a pass nothing attacks it.  Else the full test."""
    cdef int side = p.stm, royal = p.royal_sq[side]
    cdef move_t m
    if p.ply > 0:
        m = p.undo[p.ply - 1].move
        if check_readable(r, royal, m):
            if m == 0:
                return False            # a pass (null move)
            return move_checks(p, r, royal, side ^ 1, p.sq[mv_to(m)], mv_from(m), mv_to(m))
    return in_check_of(p, r, side)


cdef int gives_check(const Position* p, const Rules* r, move_t m) noexcept nogil:
    """Would the legal move m put the opponent in check: 1 or 0, read off the move
    before it is made where check_after_move could read it after; -1 where only
    making it tells (check_readable, and promotions, whose new piece is not yet on
    the board)."""
    cdef int royal = p.royal_sq[p.stm ^ 1]
    if check_readable(r, royal, m) and not mv_promo(m):
        return move_checks(p, r, royal, p.stm, moving_piece(p, m), mv_from(m), mv_to(m))
    return -1


cdef bint illegal_after(const Position* p, const Rules* r, move_t m) noexcept nogil:
    """Is the move just made (by the side not to move now) illegal?"""
    cdef int mover = p.stm ^ 1, frm = mv_from(m), to = mv_to(m), s, e = -1, lo, hi
    if mv_kind(m) == MK_CASTLE:
        e = frm + CASTLE_STEP[mv_detail(m)]
    if r.simple_attacks and p.royal_sq[mover] >= 0:
        if mv_is_drop(m) and p.undo[p.ply - 1].checked == 0:
            return False            # a drop uncovers nothing
        if e < 0 and p.undo[p.ply - 1].checked == 0 and p.royal_sq[mover] != to \
                and mv_kind(m) != MK_EP and r.queen_lines_only:
            return discovers_attack(p, r, p.royal_sq[mover], frm, to, p.stm)
        if e >= 0:
            lo = frm if frm < to else to
            hi = to if frm < to else frm
            for s in range(lo, hi + 1):
                if (s >= e - 1 if s < to else s <= e + 1) and attacked(p, r, s, p.stm):
                    return True
        return attacked(p, r, p.royal_sq[mover], p.stm)
    if r.hill and hill_reached(p, r, p.stm):
        return True
    if royals_face(p, r):
        return True
    return royal_capturable(p, r, p.stm, e, to)


cdef int gen_drops(const Position* p, const Rules* r, move_t* out, int n) noexcept nogil:
    """Append the drops of the side to move: each type in its hand on each empty square
    of the rows it may be dropped on (and of the files it may: Rules.drop_one_per_file)."""
    cdef int side = p.stm, t, row, f, sq, rows, k, taken_files
    for t in range(1, r.num_types + 1):
        if p.hand[side][t] <= 0:
            continue
        rows = r.drop_rows[side][t]
        taken_files = 0
        if r.drop_one_per_file[t]:
            for k in range(p.pcount[side]):
                sq = p.plist[side][k]
                if (p.sq[sq] & TYPE_MASK) == t:
                    taken_files |= 1 << r.sq_file[sq]
        for row in range(r.height):
            if not (rows >> row) & 1:
                continue
            sq = square(row, 0)
            for f in range(r.width):
                if p.sq[sq + f] == EMPTY and not (taken_files >> f) & 1:
                    out[n] = mv_drop(sq + f, t)
                    n += 1
    return n


# ---------------------------------------------------------------- public C API

cdef int gen_moves(const Position* p, const Rules* r, move_t* out, int kind) noexcept nogil:
    """Pseudo-legal moves of the side to move: all of them (GEN_ALL), or the captures
    and promotions (GEN_CAPTURES), or the others (GEN_QUIETS), drops last."""
    cdef int n
    # constant kinds, so the compiler makes a specialised copy of the walker for each
    if kind == GEN_CAPTURES:
        return walk_rays(p, r, p.stm, GEN_CAPTURES, out, NULL)
    if kind == GEN_QUIETS:
        n = walk_rays(p, r, p.stm, GEN_QUIETS, out, NULL)
    else:
        n = walk_rays(p, r, p.stm, GEN_ALL, out, NULL)
    if r.drops:
        n = gen_drops(p, r, out, n)
    return n


cdef inline void remove_from_list(Position* p, int side, int sq) noexcept nogil:
    cdef int idx = p.pindex[sq]
    p.pcount[side] -= 1
    cdef int last = p.plist[side][p.pcount[side]]
    p.plist[side][idx] = last
    p.pindex[last] = idx


cdef inline void restore_to_list(Position* p, int side, int sq, int idx) noexcept nogil:
    """Undo remove_from_list: put sq back in slot idx, the piece now there to the end."""
    cdef int moved
    if idx < p.pcount[side]:
        moved = p.plist[side][idx]
        p.plist[side][p.pcount[side]] = moved
        p.pindex[moved] = p.pcount[side]
    p.pcount[side] += 1
    p.plist[side][idx] = sq
    p.pindex[sq] = idx


cdef inline void relocate(Position* p, int side, int frm, int to) noexcept nogil:
    cdef int idx = p.pindex[frm]
    p.plist[side][idx] = to
    p.pindex[to] = idx


cdef inline void count_type(Position* p, const Rules* r, int side, int t, int delta) noexcept nogil:
    """Add delta to side's count of type t, keeping its bit in types_present and, for a
    piece other than a pawn or royal, piece_count and piece_material."""
    p.type_count[side][t] += delta
    if t > 2 and r.value[t] > 0:
        p.piece_count[side] += delta
        p.piece_material[side] += delta * r.value[t]
    p.types_present[side] = (p.types_present[side] & ~(1 << t)) | ((p.type_count[side][t] != 0) << t)


cdef inline void save_state(const Position* p, Undo* u) noexcept nogil:
    """Keep what a move changes but cannot recompute when it is taken back."""
    u.ep_sq = p.ep_sq
    u.ep_sq2 = p.ep_sq2
    u.ep_victim = p.ep_victim
    u.halfmove = p.halfmove
    u.count_limit = p.count_limit
    u.count_ply = p.count_ply
    u.checked = p.checked
    u.key = p.key
    u.pawn_key = p.pawn_key
    u.psq_score = p.psq_score


cdef inline void restore_state(Position* p, const Undo* u) noexcept nogil:
    p.ep_sq = u.ep_sq
    p.ep_sq2 = u.ep_sq2
    p.ep_victim = u.ep_victim
    p.halfmove = u.halfmove
    p.count_limit = u.count_limit
    p.count_ply = u.count_ply
    p.checked = u.checked
    p.key = u.key
    p.pawn_key = u.pawn_key
    p.psq_score = u.psq_score


cdef inline void add_to_hand(Position* p, const Rules* r, int side, int t, int delta) noexcept nogil:
    """Change side's hand of type t by delta (+1/-1), its hash key and psq score."""
    p.key ^= hand_change_key(p, r, side, t, delta)
    p.hand[side][t] += delta
    p.psq_score += delta * hand_psq(r, side, t)


cdef inline bint pass_turn(Position* p, const Rules* r, move_t m) noexcept nogil:
    """The end of making m: the other side is to move; an illegal m is taken back (0)."""
    p.stm ^= 1
    p.checked = -1
    p.ply += 1
    if illegal_after(p, r, m):
        unmake_move(p, r)
        return False
    if r.keeps_check_state:         # rules that read every position's check
        in_check(p, r)
    return True


cdef bint make_drop(Position* p, const Rules* r, move_t m) noexcept nogil:
    """make_move for a drop."""
    cdef int to = mv_to(m), t = mv_drop_type(m), side = p.stm
    cdef Undo* u = &p.undo[p.ply]
    cdef piece_t piece = dropped_piece(p, r, side, t, to)
    if r.simple_attacks:
        in_check(p, r)          # the legality test needs to know
    save_state(p, u)
    u.move = m
    u.moved = piece
    u.captured = EMPTY
    if p.ep_sq >= 0:
        p.key ^= r.zobrist_ep[p.ep_sq]
    p.ep_sq = p.ep_sq2 = p.ep_victim = -1
    add_to_hand(p, r, side, t, -1)
    p.sq[to] = piece
    p.pindex[to] = p.pcount[side]
    p.plist[side][p.pcount[side]] = to
    p.pcount[side] += 1
    count_type(p, r, side, t, 1)
    p.key ^= piece_key(r, piece, to) ^ r.zobrist_side
    p.pawn_key ^= pawn_part(r, piece, to)
    p.psq_score += piece_psq(r, piece, to)
    p.halfmove = 0 if t <= 2 else p.halfmove + 1
    if r.value[t] < 0:
        recompute_royal(p, r, side)
    if not pass_turn(p, r, m):
        return False
    if r.drop_may_not_mate[t] and in_check(p, r) and not has_legal_move(p, r):
        unmake_move(p, r)           # a pawn drop that mates (uchifuzume)
        return False
    return True


cdef bint has_legal_move(Position* p, const Rules* r) noexcept nogil:
    """Has the side to move a legal move?  (For NoDropMate: a drop that is legal itself
    is tested before this, so a reply drop nests the test only while it checks back.)"""
    cdef move_t moves[MAX_MOVES]
    cdef int n = gen_moves(p, r, moves, GEN_ALL), i
    for i in range(n):
        if make_move(p, r, moves[i]):
            unmake_move(p, r)
            return True
    return False


cdef void unmake_drop(Position* p, const Rules* r, const Undo* u) noexcept nogil:
    """unmake_move for a drop (p.ply and p.stm already taken back)."""
    cdef int to = mv_to(u.move), t = mv_drop_type(u.move), side = p.stm
    remove_from_list(p, side, to)
    p.sq[to] = EMPTY
    count_type(p, r, side, t, -1)
    p.hand[side][t] += 1
    if r.value[t] < 0:
        recompute_royal(p, r, side)
    restore_state(p, u)


cdef bint make_move(Position* p, const Rules* r, move_t m) noexcept nogil:
    """Make m (pseudo-legal for the side to move).  Returns 0 and leaves the position
    unchanged if the move is illegal, else 1."""
    if mv_is_drop(m):
        return make_drop(p, r, m)
    cdef int frm = mv_from(m), to = mv_to(m), kind = mv_kind(m), promo = mv_promo(m)
    cdef int side = p.stm, opp = side ^ 1, capsq, corner, rook_to, step, ep, gained
    cdef Undo* u = &p.undo[p.ply]
    cdef piece_t piece = p.sq[frm], victim, moved_piece, corner_piece, gated
    cdef key_t key = p.key
    cdef score_t psq = p.psq_score
    capsq = p.ep_victim if kind == MK_EP else to
    victim = p.sq[capsq]
    if r.simple_attacks:
        in_check(p, r)          # the legality test below needs to know
    save_state(p, u)
    u.move = m
    u.moved = piece
    u.captured = victim
    u.capture_sq = capsq
    if p.ep_sq >= 0:
        key ^= r.zobrist_ep[p.ep_sq]
    if victim:
        key ^= piece_key(r, victim, capsq)
        p.pawn_key ^= pawn_part(r, victim, capsq)
        psq -= piece_psq(r, victim, capsq)
        u.capture_index = p.pindex[capsq]
        remove_from_list(p, opp, capsq)
        count_type(p, r, opp, victim & TYPE_MASK, -1)
        p.sq[capsq] = EMPTY
        if r.drops:
            gained = hand_type_of_capture(r, side, victim)
            if gained:          # add_to_hand's work on the locals key and psq
                key ^= hand_change_key(p, r, side, gained, 1)
                p.hand[side][gained] += 1
                psq += hand_psq(r, side, gained)
    moved_piece = piece | MOVED
    if promo:
        moved_piece = (piece & ~TYPE_MASK) | MOVED | promo
        if r.promoted_bit:
            moved_piece |= PROMOTED
        count_type(p, r, side, piece & TYPE_MASK, -1)
        count_type(p, r, side, promo, 1)
    key ^= piece_key(r, piece, frm) ^ piece_key(r, moved_piece, to)
    p.pawn_key ^= pawn_part(r, piece, frm) ^ pawn_part(r, moved_piece, to)
    psq += piece_psq(r, moved_piece, to) - piece_psq(r, piece, frm)
    p.sq[frm] = EMPTY
    p.sq[to] = moved_piece
    relocate(p, side, frm, to)
    if kind == MK_CASTLE:
        step = CASTLE_STEP[mv_detail(m)]
        corner = frm - r.sq_file[frm] + (r.width - 1 if step > 0 else 0)
        rook_to = to - step
        corner_piece = p.sq[corner]
        u.corner = corner_piece
        key ^= piece_key(r, corner_piece, corner) ^ piece_key(r, corner_piece | MOVED, rook_to)
        psq += piece_psq(r, corner_piece, rook_to) - piece_psq(r, corner_piece, corner)
        p.sq[corner] = EMPTY
        p.sq[rook_to] = corner_piece | MOVED
        relocate(p, colour_of(corner_piece), corner, rook_to)
    if mv_gate(m):
        gated = colour_bit(side) | r.gate_type[side][mv_gate(m) - 1] | MOVED
        p.sq[frm] = gated
        p.pindex[frm] = p.pcount[side]
        p.plist[side][p.pcount[side]] = frm
        p.pcount[side] += 1
        count_type(p, r, side, gated & TYPE_MASK, 1)
        key ^= piece_key(r, gated, frm) ^ hand_change_key(p, r, side, gated & TYPE_MASK, -1)
        p.hand[side][gated & TYPE_MASK] -= 1
        psq += piece_psq(r, gated, frm) - hand_psq(r, side, gated & TYPE_MASK)
    p.ep_sq = p.ep_sq2 = p.ep_victim = -1
    if kind == MK_PUSH:
        ep = to - (to - frm) // mv_detail(m)
        p.ep_sq = ep
        p.ep_sq2 = (ep ^ 16) if r.triple_ep else -1
        p.ep_victim = to
        key ^= r.zobrist_ep[ep]
    # a pawn's sideways step (xiangqi's soldier) can be undone, so it counts on, as in XBoard
    p.halfmove = 0 if (victim or ((piece & TYPE_MASK) <= 2 and r.sq_row[frm] != r.sq_row[to])) \
        else p.halfmove + 1
    if r.value[piece & TYPE_MASK] < 0 and p.royal_sq[side] == frm:
        p.royal_sq[side] = to
    if victim and r.value[victim & TYPE_MASK] < 0:
        recompute_royal(p, r, opp)
    p.key = key ^ r.zobrist_side
    p.psq_score = psq
    if not pass_turn(p, r, m):
        return False
    if r.counting:
        update_count(p, r, victim, promo)
    return True


cdef void unmake_move(Position* p, const Rules* r) noexcept nogil:
    """Take back the last move made with make_move."""
    p.ply -= 1
    cdef Undo* u = &p.undo[p.ply]
    cdef move_t m = u.move
    cdef int frm = mv_from(m), to = mv_to(m), side = p.stm ^ 1, opp = p.stm
    cdef int step, corner, rook_to, promo = mv_promo(m), gained
    cdef piece_t gated
    p.stm = side
    if mv_is_drop(m):
        unmake_drop(p, r, u)
        return
    if mv_gate(m):
        gated = p.sq[frm]
        remove_from_list(p, side, frm)
        count_type(p, r, side, gated & TYPE_MASK, -1)
        p.hand[side][gated & TYPE_MASK] += 1
    if mv_kind(m) == MK_CASTLE:
        step = CASTLE_STEP[mv_detail(m)]
        corner = frm - r.sq_file[frm] + (r.width - 1 if step > 0 else 0)
        rook_to = to - step
        p.sq[rook_to] = EMPTY
        p.sq[corner] = u.corner
        relocate(p, colour_of(u.corner), rook_to, corner)
    p.sq[to] = EMPTY
    p.sq[frm] = u.moved
    relocate(p, side, to, frm)
    if promo:
        count_type(p, r, side, promo, -1)
        count_type(p, r, side, u.moved & TYPE_MASK, 1)
    if u.captured:
        p.sq[u.capture_sq] = u.captured
        restore_to_list(p, opp, u.capture_sq, u.capture_index)
        count_type(p, r, opp, u.captured & TYPE_MASK, 1)
        if r.value[u.captured & TYPE_MASK] < 0:
            recompute_royal(p, r, opp)
        if r.drops:
            gained = hand_type_of_capture(r, side, u.captured)
            if gained:
                p.hand[side][gained] -= 1
    if r.value[u.moved & TYPE_MASK] < 0 and p.royal_sq[side] == to:
        p.royal_sq[side] = frm
    restore_state(p, u)


cdef void make_null(Position* p, const Rules* r) noexcept nogil:
    """Pass: only the side to move (and the e.p. right) changes."""
    cdef Undo* u = &p.undo[p.ply]
    save_state(p, u)
    u.move = 0
    if p.ep_sq >= 0:
        p.key ^= r.zobrist_ep[p.ep_sq]
    p.ep_sq = p.ep_sq2 = p.ep_victim = -1
    p.checked = -1
    p.key ^= r.zobrist_side
    p.stm ^= 1
    p.ply += 1


cdef void unmake_null(Position* p, const Rules* r) noexcept nogil:
    p.ply -= 1
    cdef Undo* u = &p.undo[p.ply]
    p.stm ^= 1
    restore_state(p, u)


cdef inline int repetition_window(const Position* p, const Rules* r) noexcept nogil:
    """The first ply a repetition of the current position can start from: the last
    capture or pawn move; in a drop game, where a captured piece can be dropped back,
    the start of the game."""
    cdef int limit = 0 if r.drops else p.ply - p.halfmove
    return limit if limit > 0 else 0


cdef inline int repetitions_since(const Position* p, int first) noexcept nogil:
    """How often the current position occurred from ply `first` on (same side to move)."""
    cdef int count = 0, i = p.ply - 2
    while i >= first:
        if p.undo[i].key == p.key:
            count += 1
        i -= 2
    return count


cdef int repetitions(const Position* p, const Rules* r) noexcept nogil:
    """How often the current position occurred before (same side to move)."""
    return repetitions_since(p, repetition_window(p, r))


cdef int occurrence_ply(const Position* p, const Rules* r, int nth) noexcept nogil:
    """The ply of the current position's nth-latest earlier occurrence (1: the last
    one), -1 if it occurred fewer times."""
    cdef int i = p.ply - 2, limit = repetition_window(p, r)
    while i >= limit:
        if p.undo[i].key == p.key:
            nth -= 1
            if nth == 0:
                return i
        i -= 2
    return -1


cdef int perpetual_checker(const Position* p, int since) noexcept nogil:
    """The side that gave check with every one of its moves from ply `since` to now,
    or -1 (neither side, or both).  Reads the check state that make_move keeps in
    variants where perpetual check loses."""
    cdef int ply, side, checked
    cdef int checking[2]
    checking[0] = checking[1] = 1
    for ply in range(since + 1, p.ply + 1):
        checked = p.checked if ply == p.ply else p.undo[ply].checked
        side = p.stm ^ ((p.ply - ply) & 1)          # to move at that ply
        if checked != 1:
            checking[side ^ 1] = 0
    if checking[0] == checking[1]:
        return -1
    return 0 if checking[0] else 1


cdef int rule_plies(const Position* p, const Rules* r) noexcept nogil:
    """The plies that count toward the fifty-move rule: those since the last capture or
    pawn move, less, where checks do not count (xiangqi, as XBoard referees it), one for
    every position among them in check or just out of one."""
    cdef int ply, checked, was_checked = 0, plies = p.halfmove
    if not r.checks_not_counted:
        return plies
    for ply in range(max(p.ply - p.halfmove, 0), p.ply + 1):
        checked = (p.checked if ply == p.ply else p.undo[ply].checked) == 1
        if checked or was_checked:
            plies -= 1
        was_checked = checked
    return plies


cdef int dedupe(move_t* moves, int n) noexcept nogil:
    """Drop repeated moves (cylinder and bent rays can reach a square twice)."""
    cdef int i, j, k = 0
    for i in range(n):
        for j in range(k):
            if moves[j] == moves[i]:
                break
        else:
            moves[k] = moves[i]
            k += 1
    return k


cdef int legal_moves(Position* p, const Rules* r, move_t* out) noexcept nogil:
    """Legal moves of the side to move, without duplicates."""
    cdef move_t moves[MAX_MOVES]
    cdef int n = gen_moves(p, r, moves, GEN_ALL), i, k = 0
    if r.may_duplicate:
        n = dedupe(moves, n)
    for i in range(n):
        if make_move(p, r, moves[i]):
            unmake_move(p, r)
            out[k] = moves[i]
            k += 1
    return k


cdef unsigned long long perft(Position* p, const Rules* r, int depth) noexcept nogil:
    """Leaf count of the legal-move tree; every leaf move is made and unmade."""
    cdef move_t moves[MAX_MOVES]
    cdef int n, i
    cdef unsigned long long total = 0
    if depth <= 0:
        return 1
    if bared_out(p, r):
        return 0
    n = gen_moves(p, r, moves, GEN_ALL)
    if r.may_duplicate:
        n = dedupe(moves, n)
    for i in range(n):
        if make_move(p, r, moves[i]):
            total += perft(p, r, depth - 1) if depth > 1 else 1
            unmake_move(p, r)
    return total


# ---------------------------------------------------------------- Python surface

_MOVE_RE = re.compile(r"^([a-n])(\d{1,2})([a-n])(\d{1,2})=?([a-zA-Z+]?)$")
_DROP_RE = re.compile(r"^([A-Za-z])@([a-n]\d{1,2})$")


def winner_text(int side) -> str:
    return "1-0" if side == 0 else "0-1"


def colour_name(int side) -> str:
    return "White" if side == 0 else "Black"


EP_FIELD = re.compile(r"^[a-z]\d+$")
MAX_FEN_COUNTER = 1000000       # half-move clock and move number (kept in C ints)


def split_fen_tail(list fields, bint counting=False):
    """The FEN fields after the side to move -> (castling, e.p. square, [counters]).

    XBoard leaves the castling field out for variants without castling and the e.p.
    field for variants without e.p. (`w - 0 1`, `b 0 1`), so the fields are told apart
    by their content: trailing numbers are the move counters, a square is the e.p.
    field, anything else (KQkq, file letters, '-') comes first and is the castling field.
    With counting (Counting:), a third number before the counters stands in the e.p.
    field's place: the running count's limit in plies, as Fairy-Stockfish writes it
    (`b - 128 18 74`: limit 128, count 18, move 74); it is returned as the e.p. field."""
    rest = list(fields)
    counters = []
    while rest and len(counters) < 2 and rest[len(rest) - 1].isdigit():   # no wraparound here
        counters.insert(0, int(rest.pop()))
        if counters[0] > MAX_FEN_COUNTER:
            raise ValueError(f"move counter {counters[0]} out of range")
    limit = rest[len(rest) - 1] if rest else ""
    if counting and len(counters) == 2 and limit.isdigit() and len(rest) <= 2:
        if int(limit) > MAX_FEN_COUNTER:
            raise ValueError(f"count limit {limit} out of range")
        return (rest[0] if len(rest) == 2 else "-"), limit, counters
    if len(rest) > 2 or any(text.lstrip("-").isdigit() for text in rest):
        raise ValueError(f"bad FEN fields '{' '.join(fields)}'")
    if len(rest) == 2:
        return rest[0], rest[1], counters
    if rest and EP_FIELD.match(rest[0]):
        return "-", rest[0], counters
    return (rest[0] if rest else "-"), "-", counters


cdef class Board:
    """A position of one variant, with the game's move history for undo and repetition."""

    def __init__(self, Variant variant not None):
        self.variant = variant
        self.rules = &variant.rules
        self.reset()

    @classmethod
    def from_name(cls, str name, ini=None):
        """Board at the start position of a named variant of pieces.ini (or of `ini`)."""
        from fairymax import loader
        specs = loader.load_file(ini) if ini else loader.load_default()
        if name not in specs:
            raise KeyError(f"unknown variant: {name}")
        return cls(Variant(specs[name]))

    # ---- setting up
    cdef void _clear(self):
        cdef int sq
        memset(&self.pos, 0, sizeof(Position))
        for sq in range(NSQ):
            self.pos.sq[sq] = EMPTY if self.rules.is_board[sq] else EDGE
        self.pos.ep_sq = self.pos.ep_sq2 = self.pos.ep_victim = -1
        self.pos.royal_sq[0] = self.pos.royal_sq[1] = -1
        self.pos.checked = -1

    cdef void _finish_setup(self):
        """Rebuild piece lists, counts, key and psq score from the squares."""
        cdef Position* p = &self.pos
        cdef const Rules* r = self.rules
        cdef int sq, side, t
        cdef piece_t pc
        p.pcount[0] = p.pcount[1] = 0
        memset(p.type_count, 0, sizeof(p.type_count))
        p.types_present[0] = p.types_present[1] = 0
        p.piece_count[0] = p.piece_count[1] = 0
        p.piece_material[0] = p.piece_material[1] = 0
        p.key = r.zobrist_side if p.stm else 0
        p.pawn_key = 0
        p.psq_score = 0
        for sq in range(NSQ):
            pc = p.sq[sq]
            if pc == EMPTY or pc == EDGE:
                continue
            side = colour_of(pc)
            p.pindex[sq] = p.pcount[side]
            p.plist[side][p.pcount[side]] = sq
            p.pcount[side] += 1
            count_type(p, r, side, pc & TYPE_MASK, 1)
            p.key ^= piece_key(r, pc, sq)
            p.pawn_key ^= pawn_part(r, pc, sq)
            p.psq_score += piece_psq(r, pc, sq)
        if p.ep_sq >= 0:
            p.key ^= r.zobrist_ep[p.ep_sq]
        p.key ^= hand_key(p, r)
        for side in range(2):
            for t in range(1, 16):
                p.psq_score += p.hand[side][t] * hand_psq(r, side, t)
        recompute_royal(p, r, 0)
        recompute_royal(p, r, 1)
        p.ply = p.root_ply = 0
        if r.keeps_check_state:
            in_check(p, r)
        self.history = []

    cdef int _canonical(self, int t):
        """Use the promotion piece (type 7) for any setup piece identical to it, so that
        e.g. Fairy-Max's 'S' copy of the Queen in `normal` reads as a Queen."""
        spec = self.variant.spec
        if t and t != 7 and len(spec.pieces) >= 7:
            a, b = spec.pieces[t - 1], spec.pieces[6]
            if a.value == b.value and a.rays == b.rays:
                return 7
        return t

    def reset(self):
        """The variant's start position: its Start: FEN, or back ranks from the setup
        lines and a full pawn rank."""
        cdef const Rules* r = self.rules
        cdef int f, side, g
        if self.variant.spec.start_fen:
            self._parse_fen(self.variant.spec.start_fen)
            self.fullmove_offset = 0
            return
        self._clear()
        self.fullmove_offset = 0
        for f in range(r.width):
            if r.home_type[0][f]:
                self.pos.sq[square(r.back_row[0], f)] = WHITE | self._canonical(r.home_type[0][f])
            if r.home_type[1][f]:
                self.pos.sq[square(r.back_row[1], f)] = BLACK | self._canonical(r.home_type[1][f])
            self.pos.sq[square(r.pawn_row[0], f)] = WHITE | 1
            self.pos.sq[square(r.pawn_row[1], f)] = BLACK | 2
        if r.gating:
            for side in range(2):
                for g in range(2):
                    if r.gate_type[side][g]:
                        self.pos.hand[side][r.gate_type[side][g]] += 1
        self._finish_setup()

    def set_fen(self, str fen):
        """Set up a FEN (X-FEN style for any board size).  Raises ValueError with the reason
        and keeps the old position if the FEN is malformed or the position illegal."""
        cdef Position saved
        memcpy(&saved, &self.pos, sizeof(Position))
        saved_history = self.history
        try:
            self._parse_fen(fen)
        except (ValueError, OverflowError) as exc:     # numbers beyond a C int included
            memcpy(&self.pos, &saved, sizeof(Position))
            self.history = saved_history
            raise ValueError(str(exc)) from None

    cdef _parse_fen(self, str fen):
        cdef const Rules* r = self.rules
        cdef Position* p = &self.pos
        cdef int row, f, t, colour, sq, side
        fields = fen.split()
        if not fields:
            raise ValueError("empty FEN")
        placement = fields[0]
        holdings = ""
        if "[" in placement:          # pieces in hand (gating and drop variants; ignored elsewhere)
            placement, _, holdings = placement.partition("[")
            holdings = holdings.rstrip("]")
        elif r.drops and placement.count("/") == r.height:
            # X-FEN may write the holdings as an extra rank: ".../RNBQKBNR/Pn"
            placement, _, holdings = placement.rpartition("/")
        rows = placement.split("/")
        if len(rows) != r.height:
            raise ValueError(f"FEN has {len(rows)} ranks, the board has {r.height}")
        self._clear()
        for row, text in enumerate(rows):
            f = 0
            plus = False            # '+': the next letter is a promoted piece (shogi)
            for token in re.findall(r"\d+|[A-Za-z]|~|\+|.", text):
                if token.isdigit():
                    if int(token) > r.width:
                        raise ValueError(f"rank {r.height - row} is too long")
                    f += int(token)
                elif token == "~":
                    if r.drops and f > 0:       # the piece before it was a promoted Pawn
                        p.sq[square(row, f - 1)] |= PROMOTED
                elif token == "+":
                    plus = True
                    continue
                elif token.isalpha():
                    colour = 0 if token.isupper() else 1
                    t = self.variant.type_of(token, colour)
                    if plus and r.promotes_to[t]:
                        t = r.promotes_to[t]
                    plus = False
                    if not t or f >= r.width:
                        raise ValueError(f"bad piece '{token}' in rank {r.height - row}" if not t
                                         else f"rank {r.height - row} is too long")
                    p.sq[square(row, f)] = colour_bit(colour) | t | MOVED
                    f += 1
                else:
                    raise ValueError(f"bad character '{token}' in FEN")
            if f != r.width:
                raise ValueError(f"rank {r.height - row} has {f} files, the board has {r.width}")
        if r.gating or r.drops:
            for token in holdings:
                if token == "-":
                    continue
                colour = 0 if token.isupper() else 1
                t = self.variant.type_of(token, colour) if token.isalpha() else 0
                if not t or (r.drops and r.hand_type[colour][t] != t) or (
                        r.gating and t not in (r.gate_type[colour][0], r.gate_type[colour][1])):
                    raise ValueError(f"bad piece '{token}' in hand")
                if p.hand[colour][t] >= MAX_HAND - 1:
                    raise ValueError(f"too many '{token}' in hand")
                p.hand[colour][t] += 1
        side_field = fields[1] if len(fields) > 1 else "w"
        if side_field not in ("w", "b"):
            raise ValueError(f"bad side to move '{side_field}'")
        p.stm = 0 if side_field == "w" else 1
        castling, ep, counters = split_fen_tail(fields[2:], r.counting)
        self._set_virgin(castling)
        p.halfmove = counters[0] if counters else 0
        if ep.isdigit():
            # a count runs: its limit is here and its plies in the clock's place, and
            # the fifty-move clock is not written, so it starts again (no false claim)
            p.count_limit = int(ep)
            if p.count_limit:
                p.count_ply = p.halfmove
                p.halfmove = 0
        elif ep != "-":
            sq = self._parse_square(ep)
            if sq < 0:
                raise ValueError(f"bad e.p. square '{ep}'")
            # the pawn that just moved stands one step beyond the e.p. square (straight,
            # or diagonal for Berolina pawns); without one the field is ignored
            forward = -STRIDE if p.stm == 1 else STRIDE
            mover = colour_bit(p.stm ^ 1)
            for victim in (sq + forward, sq + forward + 1, sq + forward - 1):
                if p.sq[victim] != EDGE and (p.sq[victim] & COLOUR_MASK) == mover \
                        and (p.sq[victim] & TYPE_MASK) <= 2:
                    p.ep_sq = sq
                    p.ep_victim = victim
                    break
        fullmove = counters[1] if len(counters) > 1 else 1
        self._finish_setup()
        for side in range(2):
            if p.royal_sq[side] < 0 and not self._has_royal(side) and self._setup_has_royal(side):
                raise ValueError(f"{'white' if side == 0 else 'black'} has no royal piece")
        if in_check_of(p, r, p.stm ^ 1):
            raise ValueError("the side not to move is in check")
        self.fullmove_offset = 2 * (max(fullmove, 1) - 1) + p.stm

    cdef bint _has_royal(self, int side):
        cdef int k
        for k in range(self.pos.pcount[side]):
            if self.rules.value[self.pos.sq[self.pos.plist[side][k]] & TYPE_MASK] < 0:
                return True
        return False

    cdef bint _setup_has_royal(self, int side):
        cdef int f
        for f in range(self.rules.width):
            if self.rules.value[self.rules.home_type[side][f]] < 0:
                return True
        return False

    cdef void _set_virgin(self, str rights):
        """Mark unmoved pieces: pawns on their start rank, pieces on their home square,
        and royals and corner pieces as the castling field says (KQkq or file letters)."""
        cdef const Rules* r = self.rules
        cdef Position* p = &self.pos
        cdef int sq, side, t, f, row
        castlers = [self._castling_royal_file(0), self._castling_royal_file(1)]
        for sq in range(NSQ):
            pc = p.sq[sq]
            if pc == EMPTY or pc == EDGE:
                continue
            side = colour_of(pc)
            t = pc & TYPE_MASK
            row, f = r.sq_row[sq], r.sq_file[sq]
            virgin = False
            if t <= 2:
                virgin = row == r.pawn_row[t - 1]
            elif row == r.back_row[side] and castlers[side] >= 0 and (
                    f == castlers[side] or f == 0 or f == r.width - 1):
                virgin = self._castle_right(rights, side, f, castlers[side])
            elif row == r.back_row[side] and r.gating:
                letter = "abcdefghijklmn"[f]
                virgin = (letter.upper() if side == 0 else letter) in rights
            elif row == r.back_row[side]:
                virgin = self._canonical(r.home_type[side][f]) == self._canonical(t)
            if virgin:
                p.sq[sq] = pc & ~MOVED

    cdef int _castling_royal_file(self, int side):
        """File of side's royal if it stands on its home square and has castling rays."""
        cdef const Rules* r = self.rules
        cdef int f, j, t
        for f in range(r.width):
            t = self.pos.sq[square(r.back_row[side], f)]
            if t == EMPTY or colour_of(t) != side or r.value[t & TYPE_MASK] >= 0 \
                    or r.value[r.home_type[side][f]] >= 0:
                continue
            t &= TYPE_MASK
            for j in range(r.first_ray[t], r.first_ray[t + 1]):
                if r.ray_mode[j] & 15 == 4 and not (r.ray_mode[j] & 0xC0):
                    return f
        return -1

    def _castle_right(self, rights, side, f, royal_file):
        if rights == "-":
            return False
        king, queen = ("K", "Q") if side == 0 else ("k", "q")
        files = "abcdefghijklmn"
        own = [c for c in rights if (c.isupper() if side == 0 else c.islower())]
        if f == royal_file:
            return bool(own)
        right = f > royal_file
        for c in own:
            if c in (king, queen):
                if (c == king) == right:
                    return True
            elif c.lower() in files and files.index(c.lower()) == f:
                return True
        return False

    def fen(self) -> str:
        """FEN of the position (piece letters of the ini; castling as KQkq)."""
        cdef const Rules* r = self.rules
        cdef Position* p = &self.pos
        cdef int row, f, empty
        cdef piece_t pc
        rows = []
        for row in range(r.height):
            text, empty = "", 0
            for f in range(r.width):
                pc = p.sq[square(row, f)]
                if pc == EMPTY:
                    empty += 1
                    continue
                if empty:
                    text += str(empty)
                    empty = 0
                text += self._letter(pc)
            if empty:
                text += str(empty)
            rows.append(text)
        rights = ""
        for side in range(2):
            royal_file = self._castling_royal_file(side)
            own = ""
            if royal_file >= 0 and not (p.sq[square(r.back_row[side], royal_file)] & MOVED):
                for f, letter in ((r.width - 1, "K"), (0, "Q")):
                    pc = p.sq[square(r.back_row[side], f)]
                    if pc != EMPTY and not (pc & MOVED) and colour_of(pc) == side:
                        own += letter
            if r.gating and any(p.hand[side][t] for t in range(16)):
                # gating rights: the files of the other unmoved back-rank pieces
                for f in range(r.width):
                    pc = p.sq[square(r.back_row[side], f)]
                    if pc != EMPTY and not (pc & MOVED) and colour_of(pc) == side and (pc & TYPE_MASK) > 2 \
                            and f != royal_file and not (royal_file >= 0 and f in (0, r.width - 1)):
                        own += "ABCDEFGHIJKLMN"[f]
            rights += own if side == 0 else own.lower()
        ep = self.square_name(p.ep_sq) if p.ep_sq >= 0 else "-"
        clock = p.halfmove
        if p.count_limit:           # Fairy-Stockfish's counting FEN (see split_fen_tail)
            ep, clock = str(p.count_limit), p.count_ply
        if r.gating or r.drops:
            rows[len(rows) - 1] += "[" + self.holdings(0) + self.holdings(1) + "]"
        return "%s %s %s %s %d %d" % ("/".join(rows), "wb"[p.stm], rights or "-", ep,
                                      clock, 1 + (self.fullmove_offset + len(self.history)) // 2)

    def holdings(self, int side) -> str:
        """The pieces in side's hand as FEN letters (upper case for White), in ini order."""
        return "".join(self._letter(colour_bit(side) | t) * self.pos.hand[side][t]
                       for t in range(1, 16) if self.pos.hand[side][t])

    def _letter(self, int pc):
        """The FEN text of a piece byte: its letter, Q~ for a crazyhouse promoted piece,
        +P for a piece of Promotes: (shogi)."""
        base = self.variant.unpromoted_type(pc & TYPE_MASK)
        letter = self.variant.letter(base or (pc & TYPE_MASK))
        letter = letter.upper() if pc & WHITE else letter.lower()
        if base:
            return "+" + letter
        return letter + "~" if pc & PROMOTED else letter

    # ---- squares and moves as text
    def square_name(self, int sq) -> str:
        cdef const Rules* r = self.rules
        rank = r.height - r.sq_row[sq] - (1 if r.height == 10 else 0)
        return "abcdefghijklmnop"[r.sq_file[sq]] + str(rank)

    cdef int _parse_square(self, str text):
        cdef const Rules* r = self.rules
        m = re.fullmatch(r"([a-n])(\d{1,2})", text)
        if not m:
            return -1
        f = ord(m.group(1)) - ord("a")
        rank = int(m.group(2))
        row = r.height - rank - (1 if r.height == 10 else 0)
        if not (0 <= f < r.width and 0 <= row < r.height):
            return -1
        return square(row, f)

    def move_text(self, int m) -> str:
        """XBoard coordinate notation: e2e4, e7e8q, drops P@e4; castling as the royal's move."""
        if mv_is_drop(m):
            return self.variant.letter(mv_drop_type(m)).upper() + "@" + self.square_name(mv_to(m))
        text = self.square_name(mv_from(m)) + self.square_name(mv_to(m))
        if mv_promo(m) and self.variant.unpromoted_type(mv_promo(m)):
            text += "+"                     # shogi: the piece's own promotion
        elif mv_promo(m):
            text += self.variant.letter(mv_promo(m)).lower()
        if mv_gate(m):
            text += self.variant.letter(self.rules.gate_type[self.pos.stm][mv_gate(m) - 1]).lower()
        return text

    def parse_move(self, str text) -> int:
        """Legal move from XBoard text (also O-O / O-O-O); ValueError if none."""
        text = text.strip()
        legal = self.legal_moves()
        if text.upper().replace("0", "O") in ("O-O", "O-O-O"):
            want_right = text.count("-") == 1
            for m in legal:
                if mv_kind(m) == MK_CASTLE and (CASTLE_STEP[mv_detail(m)] > 0) == want_right:
                    return m
            raise ValueError(f"no castling move {text}")
        found = _DROP_RE.match(text)
        if found:
            to = self._parse_square(found.group(2))
            t = self.variant.type_of(found.group(1), self.pos.stm)
            for m in legal:
                if mv_is_drop(m) and mv_to(m) == to and mv_drop_type(m) == t:
                    return m
            raise ValueError(f"illegal drop {text}")
        found = _MOVE_RE.match(text)
        if not found:
            raise ValueError(f"malformed move {text}")
        frm = self._parse_square(found.group(1) + found.group(2))
        to = self._parse_square(found.group(3) + found.group(4))
        suffix = found.group(5)
        candidates = [m for m in legal if mv_from(m) == frm and mv_to(m) == to]
        if not candidates:
            raise ValueError(f"illegal move {text}")
        if any(mv_gate(m) for m in candidates):
            # a suffix names the gated piece; without one the move gates nothing
            for m in candidates:
                if bool(mv_gate(m)) == bool(suffix) and self.move_text(m).endswith(suffix.lower()):
                    return m
            raise ValueError(f"illegal gating {text}")
        if not any(mv_promo(m) for m in candidates):
            if suffix:
                raise ValueError(f"no promotion or gating in {text}")
            return candidates[0]
        if not suffix:
            # shogi's deferral (7c7b, 7c7b=) where there is one, else the preferred promotion
            for m in candidates:
                if not mv_promo(m):
                    return m
            return candidates[0]
        if suffix == "+":
            for m in candidates:
                if mv_promo(m) and self.variant.unpromoted_type(mv_promo(m)):
                    return m
            raise ValueError(f"illegal promotion {text}")
        side = self.pos.stm
        t = self.variant.type_of(suffix, side)
        for m in candidates:
            if mv_promo(m) == t:
                return m
        if self.variant.promotion_choices(side) or not t:
            raise ValueError(f"illegal promotion {text}")
        # Fairy-Max's rule: any piece the user names, unless royal or valued ...3
        value = self.rules.value[t]
        if value == -1 or abs(value) % 10 == 3:
            raise ValueError(f"illegal promotion {text}")
        return (candidates[0] & ~(0xF << 18)) | (t << 18)

    # ---- moves
    def legal_moves(self) -> list:
        cdef move_t moves[MAX_MOVES]
        cdef int n = legal_moves(&self.pos, self.rules, moves)
        return [moves[i] for i in range(n)]

    def generated_moves(self, str kind="all") -> list:
        """Pseudo-legal moves as the search generates them: "all", "captures" (captures
        and promotions to the first choice) or "quiets" (the others)."""
        cdef move_t moves[MAX_MOVES]
        cdef int n = gen_moves(&self.pos, self.rules, moves,
                               {"all": GEN_ALL, "captures": GEN_CAPTURES, "quiets": GEN_QUIETS}[kind])
        return [moves[i] for i in range(n)]

    def push(self, int m):
        """Make a legal move (as returned by legal_moves or parse_move)."""
        if self.pos.ply >= MAX_GAME_PLY - HISTORY_RESERVE:
            raise ValueError("game too long")
        if mv_from(m) >= NSQ or mv_to(m) >= NSQ or not self.rules.is_board[mv_from(m)]:
            raise ValueError(f"not a move on this board: {m}")
        if mv_is_drop(m):
            if not drop_possible(&self.pos, self.rules, m):
                raise ValueError(f"not a drop of the side to move: {m}")
        elif (self.pos.sq[mv_from(m)] & COLOUR_MASK) != colour_bit(self.pos.stm):
            raise ValueError(f"not a move of the side to move: {m}")
        if not make_move(&self.pos, self.rules, m):
            raise ValueError(f"illegal move {self.move_text(m)}")
        self.history.append(m)

    def pop(self) -> int:
        """Take back the last pushed move; IndexError if there is none."""
        if not self.history:
            raise IndexError("no move to take back")
        unmake_move(&self.pos, self.rules)
        return self.history.pop()

    def copy(self):
        return self.with_variant(self.variant)

    def with_variant(self, Variant variant):
        """A copy of this game bound to `variant`, which must be built from the same
        spec (only its rule flags may differ: see Variant's rule_endings)."""
        cdef Board b
        if variant.spec is not self.variant.spec:
            raise ValueError("with_variant needs a variant built from the same spec")
        b = Board.__new__(Board)
        b.variant = variant
        b.rules = &variant.rules
        memcpy(&b.pos, &self.pos, sizeof(Position))
        b.history = list(self.history)
        b.fullmove_offset = self.fullmove_offset
        return b

    # ---- state
    @property
    def side_to_move(self) -> int:
        return self.pos.stm

    @property
    def halfmove_clock(self) -> int:
        return self.pos.halfmove

    @property
    def rule_plies(self) -> int:
        """The plies that count toward the fifty-move rule (see rule_plies)."""
        return rule_plies(&self.pos, self.rules)

    @property
    def key(self) -> int:
        return self.pos.key

    def key_after(self, int m) -> int:
        """The key the search predicts for push(m), to prefetch the hash bucket with."""
        return key_after(&self.pos, self.rules, m)

    def is_capture(self, int m) -> bool:
        """Does move m (of the side to move) capture?"""
        return bool(is_capture(&self.pos, m))

    def is_promotion(self, int m) -> bool:
        return mv_promo(m) != 0

    def in_check(self) -> bool:
        return in_check(&self.pos, self.rules)

    def repetitions(self, int within=MAX_GAME_PLY) -> int:
        """How often the current position occurred before; only the occurrences in the
        last `within` plies counted."""
        return repetitions_since(&self.pos, max(repetition_window(&self.pos, self.rules),
                                                self.pos.ply - within))

    def piece_at(self, str square_text):
        """(letter as in FEN, unmoved) of the piece on a square, or None."""
        cdef int sq = self._parse_square(square_text)
        if sq < 0:
            raise ValueError(f"bad square {square_text}")
        pc = self.pos.sq[sq]
        return None if pc == EMPTY else (self._letter(pc), not (pc & MOVED))

    def pieces(self, int side) -> list:
        """[(square name, type)] of one colour's pieces."""
        return [(self.square_name(self.pos.plist[side][k]), self.pos.sq[self.pos.plist[side][k]] & TYPE_MASK)
                for k in range(self.pos.pcount[side])]

    def variant_rule_ending(self):
        """(result, comment, rule) if the game just ended by a rule of the variant beyond
        mate, stalemate, repetition and the fifty-move rule: rule "hill" (king of the
        hill), "bare-king" or "counting" (the Thai count passed its limit)."""
        cdef const Rules* r = self.rules
        cdef int side = self.pos.stm, mover = side ^ 1
        if r.hill and hill_reached(&self.pos, r, mover):
            return winner_text(mover), f"{colour_name(mover)} reaches the hill", "hill"
        if r.bare_king_loses and bare(&self.pos, r, 0) and bare(&self.pos, r, 1):
            return "1/2-1/2", "Bare kings", "bare-king"
        if bared_out(&self.pos, r):
            return winner_text(side), f"{colour_name(mover)} has a bare king", "bare-king"
        if counting_draw(&self.pos, r):
            return "1/2-1/2", "Draw by counting rule", "counting"
        return None

    def repetition_ending(self):
        """(result, comment, rule) if the position has now occurred as often as ends
        the game (Rules.repetition_count): rule "repetition", a draw; or where perpetual
        check loses and one side checked with every move since the first of those
        occurrences, rule "perpetual-check", that side's loss."""
        cdef const Rules* r = self.rules
        cdef int earlier = r.repetition_count - 1, checker
        if repetitions(&self.pos, r) < earlier:
            return None
        if r.perpetual_check_loses:
            checker = perpetual_checker(&self.pos, occurrence_ply(&self.pos, r, earlier))
            if checker >= 0:
                return (winner_text(checker ^ 1), f"{colour_name(checker)} gives perpetual check",
                        "perpetual-check")
        return "1/2-1/2", "Draw by repetition", "repetition"

    def outcome(self, int claim_moves=50):
        """(result, comment) if the game is over by rule in this position, else None."""
        cdef const Rules* r = self.rules
        cdef int side = self.pos.stm, mover = side ^ 1
        ending = self.variant_rule_ending()
        if ending is not None:
            return ending[:2]
        if not self.legal_moves():
            if self.in_check():
                return winner_text(mover), f"{colour_name(mover)} mates"
            if r.stalemate_score < 0:
                return winner_text(mover), f"{colour_name(side)} is stalemated"
            return "1/2-1/2", "Stalemate"
        ending = self.repetition_ending()
        if ending is not None:
            return ending[:2]
        if claim_moves and rule_plies(&self.pos, r) >= 2 * claim_moves:
            return "1/2-1/2", "Draw by fifty move rule"
        return None

    def check(self):
        """Verify the incremental state against a recount (AssertionError if broken)."""
        cdef Position* p = &self.pos
        cdef const Rules* r = self.rules
        cdef int sq, side, k
        cdef int counts[2][16]
        cdef key_t key = r.zobrist_side if p.stm else 0
        cdef key_t pawn_key = 0
        cdef score_t psq = 0
        memset(counts, 0, sizeof(counts))
        if p.ep_sq >= 0:
            key ^= r.zobrist_ep[p.ep_sq]
        key ^= hand_key(p, r)
        for side in range(2):
            for k in range(1, 16):
                assert p.hand[side][k] >= 0, "negative hand count"
                psq += p.hand[side][k] * hand_psq(r, side, k)
        for side in range(2):
            for k in range(p.pcount[side]):
                sq = p.plist[side][k]
                assert p.pindex[sq] == k, f"piece list index broken at {self.square_name(sq)}"
                assert p.sq[sq] != EMPTY and colour_of(p.sq[sq]) == side, "piece list points at wrong square"
        for sq in range(NSQ):
            if p.sq[sq] == EMPTY or p.sq[sq] == EDGE:
                assert (p.sq[sq] == EDGE) != bool(r.is_board[sq]), "edge cells damaged"
                continue
            side = colour_of(p.sq[sq])
            assert p.plist[side][p.pindex[sq]] == sq, f"{self.square_name(sq)} missing from piece list"
            counts[side][p.sq[sq] & TYPE_MASK] += 1
            key ^= piece_key(r, p.sq[sq], sq)
            pawn_key ^= pawn_part(r, p.sq[sq], sq)
            psq += piece_psq(r, p.sq[sq], sq)
        assert sum(counts[0][t] for t in range(16)) == p.pcount[0], "white piece count"
        assert sum(counts[1][t] for t in range(16)) == p.pcount[1], "black piece count"
        for side in range(2):
            for k in range(16):
                assert counts[side][k] == p.type_count[side][k], "type counts"
                assert bool(counts[side][k]) == bool(p.types_present[side] >> k & 1), "types present"
            officers = [k for k in range(3, 16) if r.value[k] > 0]
            assert sum(counts[side][k] for k in officers) == p.piece_count[side], "piece count"
            assert sum(counts[side][k] * r.value[k] for k in officers) == p.piece_material[side], \
                "piece material"
        assert key == p.key, "hash key differs from a recount"
        assert pawn_key == p.pawn_key, "pawn key differs from a recount"
        assert psq == p.psq_score, "piece-square score differs from a recount"
        assert check_after_move(p, r) == in_check_of(p, r, p.stm), \
            "the check read off the last move differs from the full test"
        for m in self.legal_moves():
            told = gives_check(p, r, m)
            make_move(p, r, m)
            checks = in_check_of(p, r, p.stm)
            unmake_move(p, r)
            assert told in (-1, checks), \
                f"the check read off {self.move_text(m)} before it is made differs from the full test"

    # ---- perft
    def perft(self, int depth) -> int:
        cdef unsigned long long n
        with nogil:
            n = perft(&self.pos, self.rules, depth)
        return n

    def divide(self, int depth) -> list:
        """[(move text, leaf count)] per legal root move."""
        out = []
        for m in self.legal_moves():
            make_move(&self.pos, self.rules, m)
            out.append((self.move_text(m), self.perft(depth - 1)))
            unmake_move(&self.pos, self.rules)
        return out


cdef bint in_check_of(const Position* p, const Rules* r, int side) noexcept nogil:
    """Is `side` (to move or not) exposed to a royal capture by the other side?"""
    if r.simple_attacks and p.royal_sq[side] >= 0:
        return attacked(p, r, p.royal_sq[side], side ^ 1)
    return royals_face(p, r) or royal_capturable(p, r, side ^ 1, -1, -1)
