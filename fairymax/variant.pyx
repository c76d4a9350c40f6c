# cython: language_level=3
"""Compile a loader.VariantSpec into the C arrays (Rules) that move generation reads.

All of Fairy-Max's rule conventions that are not plain ray data are resolved here,
once: pawn and promotion rows from the `=N` zone suffix, the promotion piece
(type 7, black's type 9 exception, the 4th-rank "piece of the file" rule), the
king-of-the-hill and stalemate-loss flags, and the fast attack tables.
"""
from libc.string cimport memset

from fairymax.types cimport (NSQ, STRIDE, GUARD_ROWS, MAX_FILES, MAX_RANKS, MAX_TYPES,
                             MAX_RAYS, MAX_HAND, M_CAPTURE, M_QUIET, M_LEAP, COLOUR_MASK,
                             TYPE_MASK, IRON, colour_bit, square)

cdef unsigned long long _splitmix(unsigned long long* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef unsigned long long z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


def square_index(int row, int file):
    """Cell index of (row from the top, file from the left)."""
    return square(row, file)


cdef bint _is_simple_ray(int step, int mode, int ptype):
    """True for a ray that attacks like a plain leaper/slider (or never attacks)."""
    cdef int low = mode & 15
    cdef int toggle = (mode >> 4) & 15
    if low == 4:
        # initial-move rays: pushes and castling never capture; F4-style leaps and
        # a pawn's 34 do, through an odd path, so they need the generic test
        if mode & 0x40:
            return (mode & 0x10) == 0
        if ptype > 2:
            return True           # castling (its destination must be empty)
        return (toggle & 1) == 0
    return toggle == 0 and (mode >> 8) == 0 and low not in (0, 4, 8)


cdef int fill_runs(StepRuns* runs, int* steps, int n, list rays) except -1:
    """Append `rays`, (step, slides) pairs, to steps from index n as runs (leapers, then
    sliders); return the next free index."""
    leaps = [step for step, slides in rays if not slides]
    slides = [step for step, slides in rays if slides]
    for i, step in enumerate(leaps + slides):
        steps[n + i] = step
    runs.first = n
    runs.slide = n + len(leaps)
    runs.end = runs.slide + len(slides)
    return runs.end


cdef int _int32(long long value):
    """value as a signed 32-bit word (two's complement)."""
    value &= 0xFFFFFFFF
    return <int>(value - (1 << 32) if value & 0x80000000 else value)


cdef int _mirror_step(int step):
    """The step with its ranks reversed (files kept): Black's view of White's step."""
    cdef int files = ((step + 8) & 15) - 8
    return files - (step - files)


cdef int _ranks(int step):
    """Ranks a step moves (negative: toward rank 8); its file part is -8..7."""
    return (step + 8) // 16


cdef class Variant:
    """C tables for one variant; build with Variant(spec) from a loader.VariantSpec.

    rule_endings=False leaves out the wins by reaching the hill and by baring the
    opponent's royal, and the counting draws: a GUI that does not know those rules
    plays on past them, and the engine must then play on too (toward mate).  stalemate ("loss" or "draw")
    replaces the variant's own stalemate rule by the one of the GUI that referees."""

    def __init__(self, spec, bint rule_endings=True, stalemate=None):
        cdef Rules* r = &self.rules
        cdef int t, i, f, sq, c, zone, pawn_rank, step, mode, n
        cdef unsigned long long seed = 0x2545F4914F6CDD1DULL
        memset(r, 0, sizeof(Rules))
        self.spec = spec
        width, height = spec.width, spec.height
        if not (1 <= width <= MAX_FILES and 2 <= height <= MAX_RANKS):
            raise ValueError(f"{spec.name}: board {width}x{height} is larger than {MAX_FILES}x{MAX_RANKS}")
        if len(spec.pieces) > MAX_TYPES - 1:
            raise ValueError(f"{spec.name}: more than {MAX_TYPES - 1} piece types")
        r.width = width
        r.height = height
        r.num_types = len(spec.pieces)
        for sq in range(NSQ):
            r.sq_row[sq] = sq // STRIDE - GUARD_ROWS
            r.sq_file[sq] = sq % STRIDE
            r.is_board[sq] = 0 <= r.sq_row[sq] < height and r.sq_file[sq] < width

        n = 0
        for t, piece in enumerate(spec.pieces, start=1):
            r.first_ray[t] = n
            r.value[t] = piece.value
            r.centralized[t] = piece.letter.islower()
            for step, mode in piece.rays:
                if n >= MAX_RAYS:
                    raise ValueError(f"{spec.name}: more than {MAX_RAYS} rays")
                r.ray_step[n] = step
                r.ray_mode[n] = mode
                n += 1
        for t in range(len(spec.pieces) + 1, MAX_TYPES + 1):
            r.first_ray[t] = n
        for c in range(2):
            for i in range(n):
                r.walk_step[c][i] = r.ray_step[i]
                r.walk_mode[c][i] = r.ray_mode[i]

        # Pawn rows and promotion, as Fairy-Max derives them from "=N".
        zone = spec.zone - 1
        pawn_rank = zone if zone else 1
        if zone < 0:
            pawn_rank = -1 - zone
            zone = 0
        r.pawn_row[0] = height - 1 - pawn_rank
        r.pawn_row[1] = pawn_rank
        r.back_row[0] = height - 1
        r.back_row[1] = 0
        r.promo_row[0] = zone
        r.promo_row[1] = height - 1 - zone
        for f in range(width):
            r.home_type[0][f] = spec.white_setup[f]
            r.home_type[1][f] = spec.black_setup[f]
        white_has = {t for t in spec.white_setup if t}
        black_has = {t for t in spec.black_setup if t}
        black_promo = 9 if (7 not in black_has and 9 in black_has and 7 in white_has) else 7
        for f in range(width):
            r.promo_type[0][f] = 7
            r.promo_type[1][f] = black_promo
            if pawn_rank == 3:
                # Pawns from the 4th rank promote to the piece that started on the file
                # (on the royal's file: its a-side neighbour).
                home = spec.white_setup[f]
                if home and r.value[home] < 0 and f > 0:
                    home = spec.white_setup[f - 1]
                if home:
                    r.promo_type[0][f] = r.promo_type[1][f] = home
        if spec.promote:
            for c, letters in enumerate(spec.promote):
                for i, letter in enumerate(letters[:MAX_TYPES - 1]):
                    r.promo_choices[c][i] = self.type_of(letter, c)

        step0 = spec.pieces[0].rays[0] if spec.pieces[0].rays else (0, 0)
        r.triple_ep = height == 10 and step0[0] == -16 and (step0[1] & 0xC00) != 0
        r.hill = rule_endings and r.num_types >= 3 and r.value[3] == -2
        r.stalemate_score = -30000 if (r.num_types >= 9 and r.value[9] == -2) else 0
        stalemate = stalemate or spec.stalemate
        if stalemate == "loss":
            r.stalemate_score = -30000
        elif stalemate == "draw":
            r.stalemate_score = 0
        r.bare_king_loses = rule_endings and spec.bare_king
        r.repetition_count = spec.repetition_count
        r.perpetual_check_loses = spec.perpetual_check_loses
        r.checks_not_counted = spec.checks_not_counted
        r.keeps_check_state = r.perpetual_check_loses or r.checks_not_counted
        counting = spec.counting
        if counting is not None:
            r.count_moves = counting.board_moves
            r.count_else_moves = counting.else_moves
            r.count_board_max = counting.board_max_pieces
            r.count_from_zero = counting.from_zero
            r.count_honours = len(counting.honours)
            for i, (letters, moves) in enumerate(counting.honours):
                for t in range(1, len(spec.pieces) + 1):
                    if spec.pieces[t - 1].letter.upper() == letters[0]:
                        r.count_types[i] |= 1 << t
                r.count_needed[i] = len(letters)
                r.count_honour_moves[i] = moves
        r.counting = counting is not None
        r.counting_draws = rule_endings and r.counting
        gating = getattr(spec, "gating", None) or ""
        r.gating = bool(gating)
        for c in range(2):
            for i, letter in enumerate(gating[:2]):
                r.gate_type[c][i] = self.type_of(letter, c)

        if spec.drops is not None:
            self._set_drop_rules(spec.drops)
        self._set_confinement()
        r.royals_may_not_face = spec.facing_royals_illegal
        if spec.no_promotion:
            r.promo_row[0] = r.promo_row[1] = -1
        self._set_mirrors()
        self._set_shogi_promotions()
        r.promoted_bit = r.drops and not spec.promotions

        self._sort_rays()
        self._build_attack_tables()
        if r.castles:
            for c in range(2):
                for f in (0, width - 1):
                    r.castle_corner[square_index(r.back_row[c], f)] = 1

        for c in range(32):
            for sq in range(NSQ):
                r.zobrist[c][sq] = _splitmix(&seed)
        for sq in range(NSQ):
            r.zobrist_virgin[sq] = _splitmix(&seed)
            r.zobrist_ep[sq] = _splitmix(&seed)
        r.zobrist_side = _splitmix(&seed)
        for c in range(2):
            for t in range(MAX_TYPES):
                for i in range(MAX_HAND):
                    r.zobrist_hand[c][t][i] = _splitmix(&seed)

    cdef _set_confinement(self):
        """Fill the region and ray-row tables (see Rules) from the spec's Region: and
        RayRanks: lines; without them every square and row is allowed."""
        cdef Rules* r = &self.rules
        cdef int c, t, j, row
        spec = self.spec
        all_rows, all_files = (1 << r.height) - 1, (1 << r.width) - 1
        for c in range(2):
            for t in range(MAX_TYPES):
                r.region_rows[c][t] = all_rows
                r.region_files[c][t] = all_files
            for j in range(MAX_RAYS):
                r.ray_rows[c][j] = all_rows
        for letter, ((f1, f2), ranks) in spec.regions.items():
            for c in range(2):
                t = self.type_of(letter, c)
                r.region_rows[c][t] = self._rows_of_ranks(c, ranks)
                r.region_files[c][t] = ((1 << f2) - 1) & ~((1 << (f1 - 1)) - 1)
                r.generic_type[t] = 1
        for letter, (ranks, rays) in spec.ray_ranks.items():
            for c in range(2):
                t = self.type_of(letter, c)
                for j in range(r.first_ray[t], r.first_ray[t + 1]):
                    if (r.ray_step[j], r.ray_mode[j]) in rays:
                        r.ray_rows[c][j] = self._rows_of_ranks(c, ranks)
                        r.generic_type[t] = 1
        for t in range(MAX_TYPES):
            if r.generic_type[t]:
                r.confined = 1

    cdef _set_mirrors(self):
        """Turn Black's walker rays of the Mirror: types around (see Rules.walk_step);
        those types take the generic walker, and Black's attack tables read them too."""
        cdef Rules* r = &self.rules
        cdef int t, j, step, step2
        for letter in self.spec.mirror:
            t = self.type_of(letter, 0)
            r.generic_type[t] = 1
            r.mirrored = 1
            for j in range(r.first_ray[t], r.first_ray[t + 1]):
                step = _mirror_step(r.ray_step[j])
                step2 = _mirror_step(r.ray_step[j] ^ (r.ray_mode[j] >> 12))
                r.walk_step[1][j] = step
                r.walk_mode[1][j] = _int32((r.ray_mode[j] & 0xFFF) | ((step ^ step2) << 12))

    cdef _set_shogi_promotions(self):
        """Fill promotes_to, zone_rows and dead_rows (see Rules) from Promotes: and
        PromotionZone:; such promotions replace the Pawns' own."""
        cdef Rules* r = &self.rules
        cdef int c, row, base
        spec = self.spec
        if not spec.promotions:
            return
        r.promo_row[0] = r.promo_row[1] = -1
        for c in range(2):
            r.zone_rows[c] = self._rows_of_ranks(c, spec.promotion_zone)
            for letter, promoted in spec.promotions.items():
                base = self.type_of(letter, c)
                r.promotes_to[base] = self.type_of(promoted, c)
                r.generic_type[base] = 1        # emit() gives the promotions
                for row in range(r.height):
                    if not any(r.is_board[square_index(row, f) + r.walk_step[c][j]]
                               for f in range(r.width)
                               for j in range(r.first_ray[base], r.first_ray[base + 1])):
                        r.dead_rows[c][base] |= 1 << row

    def _rows_of_ranks(self, int colour, ranks) -> int:
        """Row bits of the ranks first..last counted from colour's side (1 = its back rank)."""
        first, last = ranks
        rows = 0
        for rank in range(first, last + 1):
            rows |= 1 << (self.rules.height - rank if colour == 0 else rank - 1)
        return rows

    cdef _set_drop_rules(self, dict limits):
        """Fill the drop-game tables (see Rules) from the ``Drops:`` rank limits."""
        cdef Rules* r = &self.rules
        cdef int side, t, row, rank
        r.drops = 1
        for side in range(2):
            for letter in self.spec.drop_one_per_file:
                r.drop_one_per_file[self.type_of(letter, side)] = 1
            for letter in self.spec.drop_may_not_mate:
                r.drop_may_not_mate[self.type_of(letter, side)] = 1
            r.demoted_type[side] = self.type_of(self.spec.pieces[0].letter, side)
            for t in range(1, r.num_types + 1):
                if r.value[t] < 0:
                    continue            # a royal never goes to hand
                letter = self.spec.pieces[t - 1].letter.upper()
                # a promoted piece of Promotes: goes to hand as the piece it came from
                for base, promoted in self.spec.promotions.items():
                    if promoted == letter:
                        letter = base
                r.hand_type[side][t] = self.type_of(letter, side)
                first, last = limits.get(letter, (1, r.height))
                for row in range(r.height):
                    rank = r.height - row if side == 0 else row + 1
                    if first <= rank <= last:
                        r.drop_rows[side][t] |= 1 << row

    cdef _sort_rays(self):
        """Fill the fast generator's ray lists and the capturable-cell table (see Rules)."""
        cdef Rules* r = &self.rules
        cdef int t, j, side, cell, row, colour
        cdef int nrun = 0, npawn = 0, nodd = 0
        for t in range(MAX_TYPES):
            r.pawn_first[t] = npawn
            r.odd_first[t] = nodd
            rays = range(r.first_ray[t], r.first_ray[t + 1]) if 1 <= t <= r.num_types else ()
            plain = [j for j in rays if (r.ray_mode[j] & ~7) == 0 and (r.ray_mode[j] & 3) != 0
                     and (t > 2 or r.ray_mode[j] & M_LEAP) and not r.generic_type[t]]
            steps = [(r.ray_step[j], not (r.ray_mode[j] & M_LEAP), r.ray_mode[j]) for j in plain]
            captures = [(step, slides) for step, slides, mode in steps if mode & M_CAPTURE]
            quiets = [(step, slides) for step, slides, mode in steps if mode & M_QUIET]
            nrun = fill_runs(&r.cap_runs[t], r.run_step, nrun, captures)
            nrun = fill_runs(&r.quiet_runs[t], r.run_step, nrun, quiets)
            if t <= 2:
                colour = t - 1
                for j in plain:
                    r.pawn_ray[npawn] = j
                    npawn += 1
                    row = r.promo_row[colour] - _ranks(r.ray_step[j])
                    if 0 <= row < r.height:
                        r.promo_near[t] |= 1 << row
            odd = [j for j in rays if j not in plain]
            tactical = [j for j in odd if self._may_be_tactical(t, j)]
            quiet = [j for j in odd if j not in tactical]
            first_moves = [j for j in quiet if self._first_move_only(t, j)]
            for j in tactical + [j for j in quiet if j not in first_moves] + first_moves:
                r.odd_ray[nodd] = j
                nodd += 1
            r.odd_split[t] = r.odd_first[t] + len(tactical)
            r.odd_moved_end[t] = nodd - len(first_moves)
        r.pawn_first[MAX_TYPES] = npawn
        r.odd_first[MAX_TYPES] = nodd
        for side in range(2):
            for cell in range(256):
                r.capturable[side][cell] = ((cell & COLOUR_MASK) == colour_bit(side ^ 1)
                                            and r.value[cell & TYPE_MASK] >= IRON)

    cdef bint _first_move_only(self, int t, int j):
        """Does ray j of type t move only a piece that has not moved yet?  Initial-move
        rays do, except a C24 pawn's push, which a moved pawn keeps on its 3rd rank."""
        cdef int mode = self.rules.ray_mode[j]
        return (mode & 15) == 4 and ((mode >> 10) & 3) <= t

    cdef bint _may_be_tactical(self, int t, int j):
        """Can ray j of type t give a capture or a promotion?  Not castling, nor a pawn's
        non-capturing initial push that cannot reach the promotion row from any row
        the walker lets it start from (its own start row, or the 3rd rank)."""
        cdef Rules* r = &self.rules
        cdef int mode = r.ray_mode[j], low = mode & 15, toggle = (mode >> 4) & 15
        cdef int colour, reach, row
        if low != 4:
            return True
        if t > 2:
            return (mode & 0xC0) != 0
        if (low | (low ^ toggle)) & M_CAPTURE:
            return True
        colour = t - 1
        if r.promo_row[colour] < 0:
            return False
        reach = 3 * abs(_ranks(r.ray_step[j]))      # a push has at most three steps
        for row in (r.pawn_row[colour], r.height - 3 if colour == 0 else 2):
            if abs(r.promo_row[colour] - row) <= reach:
                return True
        return False

    cdef _build_attack_tables(self):
        """Fill the fast attack tables of simple_attacks (see Rules), one set per
        attacking colour from the rays the walker reads for it (Rules.walk_step): the
        two sets differ only where a Mirror: type moves the other way for Black."""
        cdef Rules* r = &self.rules
        cdef int t, j, step, mode, low, i, c, max_lateral = 0
        simple = True
        bent = False
        directions = [{}, {}]      # per colour: step -> [leaper mask, slider mask]
        for t in range(1, r.num_types + 1):
            if r.value[t] < -665:
                simple = False
            for j in range(r.first_ray[t], r.first_ray[t + 1]):
                step, mode = r.ray_step[j], r.ray_mode[j]
                low = mode & 15
                max_lateral = max(max_lateral, abs(((step + 8) & 15) - 8))
                if (mode & 0x100) or ((mode >> 12) != 0 and low != 4 and not (mode & 0x200)):
                    bent = True
                if low == 4:
                    r.has_initial_moves[t] = 1
                    if t > 2 and not (mode & 0xC0):
                        r.castles = 1
                if not _is_simple_ray(step, mode, t):
                    simple = False
                    continue
                if low == 4 or not (low & M_CAPTURE):
                    continue
                for c in range(2):
                    entry = directions[c].setdefault(r.walk_step[c][j], [0, 0])
                    entry[0 if low & M_LEAP else 1] |= 1 << t
        if r.width + max_lateral > STRIDE:
            raise ValueError(f"{self.spec.name}: {r.width} files leave no room for a sideways leap of {max_lateral}")
        r.simple_attacks = simple and not r.hill and not r.confined
        r.may_duplicate = bent
        # the directions a royal attacks from come first: the others are left out
        # when none of their attackers is on the board (attacked())
        royals = sum(1 << t for t in range(1, r.num_types + 1) if r.value[t] < 0)
        short_leaps = True
        queen_lines = True
        for c in range(2):
            ordered = sorted(directions[c].items(), key=lambda d: (not ((d[1][0] | d[1][1]) & royals), d[0]))
            r.royal_attack_dirs[c] = 0
            r.late_attack_types[c] = 0
            for i, (step, (leapers, sliders)) in enumerate(ordered):
                r.attack_step[c][i] = step
                r.attack_leapers[c][i] = leapers
                r.attack_sliders[c][i] = sliders
                if (leapers | sliders) & royals:
                    r.royal_attack_dirs[c] = i + 1
                else:
                    r.late_attack_types[c] |= leapers | sliders
            r.num_attack_dirs[c] = len(directions[c])
            queen_lines = queen_lines and all(s in (1, -1, 16, -16, 15, -15, 17, -17)
                                              for s, (_, sliders) in directions[c].items() if sliders)
            for step, (leapers, sliders) in directions[c].items():
                if -64 <= step <= 64:
                    r.slider_mask_by_step[c][step + 64] = sliders
                if leapers:
                    lateral = ((step + 8) & 15) - 8
                    if abs(lateral) > CHECK_LEAP_FILES or abs((step - lateral) // STRIDE) > CHECK_LEAP_ROWS:
                        short_leaps = False
                    else:
                        r.leaper_mask_by_step[c][step + 64] = leapers
        r.queen_lines_only = queen_lines
        r.checks_from_move = r.simple_attacks and r.queen_lines_only and short_leaps

    # ---- Python-level description -------------------------------------------------
    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def width(self) -> int:
        return self.rules.width

    @property
    def height(self) -> int:
        return self.rules.height

    @property
    def num_types(self) -> int:
        return self.rules.num_types

    def letter(self, int ptype) -> str:
        """The ini letter of a piece type (as written in the ini)."""
        return self.spec.pieces[ptype - 1].letter

    def value(self, int ptype) -> int:
        return self.rules.value[ptype]

    def type_of(self, str letter, int colour) -> int:
        """Piece type for a letter: the first type with it for White, the last for Black."""
        lower = letter.lower()
        found = [i + 1 for i, p in enumerate(self.spec.pieces) if p.letter.lower() == lower]
        if not found:
            return 0
        return found[0] if colour == 0 else found[len(found) - 1]

    def promoted_type(self, int ptype) -> int:
        """The type a piece of ptype becomes by a Promotes: promotion (0: none)."""
        return self.rules.promotes_to[ptype]

    def unpromoted_type(self, int ptype) -> int:
        """The type whose Promotes: promotion gives ptype (0: none)."""
        cdef int t
        for t in range(1, self.rules.num_types + 1):
            if self.rules.promotes_to[t] == ptype:
                return t
        return 0

    def promotion_choices(self, int colour) -> list:
        """Types a pawn of this colour may promote to; the first is the engine's default."""
        cdef int i = 0
        out = []
        while i < MAX_TYPES and self.rules.promo_choices[colour][i]:
            out.append(self.rules.promo_choices[colour][i])
            i += 1
        return out

    def flags(self) -> dict:
        """Derived rule flags, for tests and debugging."""
        cdef Rules* r = &self.rules
        return {
            "simple_attacks": bool(r.simple_attacks), "may_duplicate": bool(r.may_duplicate),
            "checks_from_move": bool(r.checks_from_move),
            "hill": bool(r.hill), "triple_ep": bool(r.triple_ep), "castles": bool(r.castles),
            "stalemate_score": r.stalemate_score, "bare_king_loses": bool(r.bare_king_loses),
            "gating": bool(r.gating), "drops": bool(r.drops),
            "promo_row": (r.promo_row[0], r.promo_row[1]), "pawn_row": (r.pawn_row[0], r.pawn_row[1]),
            "mirrored": bool(r.mirrored), "counting_draws": bool(r.counting_draws),
        }
