# cython: language_level=3
"""The compiled rules of one variant: C arrays read by move generation and search."""
from fairymax.types cimport key_t, score_t, NSQ, MAX_TYPES, MAX_RAYS, MAX_HAND

cdef enum:
    # the longest leap (rows, files) whose check board.check_after_move can read off a
    # move, by Rules.leaper_mask_by_step; a variant with a longer one takes the full test
    CHECK_LEAP_ROWS = 3
    CHECK_LEAP_FILES = 7
    MAX_COUNT_HONOURS = 8   # pieces' honour limits of a Counting: line (loader.py)


cdef struct StepRuns:
    # One piece type's plain rays of one kind (captures or non-captures), as steps:
    # run_step[first:slide] go one step (leapers), run_step[slide:end] slide.
    int first, slide, end


cdef struct Rules:
    int width, height          # files, ranks
    int num_types              # piece types are 1..num_types
    # rays of type t: ray_step/ray_mode[first_ray[t] .. first_ray[t+1]-1]
    int first_ray[MAX_TYPES + 1]
    int ray_step[MAX_RAYS]
    int ray_mode[MAX_RAYS]     # full Fairy-Max mode word (second-step XOR in bits 12+)
    # the rays as the generic walker reads them for each colour: the same as ray_step/
    # ray_mode, except that Black's copy of a Mirror: type's rays is White's turned
    # around (ranks reversed), so one type serves both colours (shogi's Lance, Gold..)
    int walk_step[2][MAX_RAYS]
    int walk_mode[2][MAX_RAYS]
    int mirrored               # some type has mirrored rays (Mirror:)
    # The rays sorted for the fast generator (board.pyx).  The plain rays (mode bits
    # 1|2|4 only; for pawns only leapers) of type t that capture are run_step
    # [cap_runs[t].first : cap_runs[t].end), those that move without capturing
    # quiet_runs[t] (see StepRuns).  A pawn's plain rays are also listed by ray index
    # in pawn_ray[pawn_first[t] .. pawn_first[t + 1] - 1], for pawns that may promote
    # or capture e.p.: the rows from which a pawn of type t may promote with a plain
    # ray are the bits of promo_near[t].  Every other ray (initial moves, hoppers,
    # bent and range-limited rays) is in odd_ray[odd_first[t] .. odd_first[t + 1] - 1],
    # for the generic walker; those from odd_split[t] on give neither a capture nor a
    # promotion, and those from odd_moved_end[t] on are first moves (castling, a
    # pawn's double push), which a piece that has moved skips.
    StepRuns cap_runs[MAX_TYPES]
    StepRuns quiet_runs[MAX_TYPES]
    int run_step[2 * MAX_RAYS]
    int pawn_first[MAX_TYPES + 1]
    int pawn_ray[MAX_RAYS]
    int promo_near[3]
    int odd_first[MAX_TYPES + 1]
    int odd_split[MAX_TYPES]
    int odd_moved_end[MAX_TYPES]
    int odd_ray[MAX_RAYS]
    unsigned char capturable[2][256]   # [side][cell]: an enemy piece side may capture
    int value[MAX_TYPES]       # Fairy-Max value: centipawns, negative = royal
    int centralized[MAX_TYPES] # lower-case letter in the ini
    # promotion: a pawn (type 1 white, 2 black) landing on its zone row becomes
    # promo_type[colour][file]; promo_row[colour] is that row (-1: never)
    int promo_row[2]
    int promo_type[2][16]
    # extra promotion choices (pieces.ini extension "Promote:"), 0-terminated
    int promo_choices[2][MAX_TYPES]
    int pawn_row[2]            # start row of the pawns
    int home_type[2][16]       # setup back rank per colour and file
    int back_row[2]
    int triple_ep              # e.p. also on the square next to the skipped one
    int hill                   # king-of-the-hill: royal on a centre square wins
    int stalemate_score        # score for the side that is stalemated (0 draw)
    int bare_king_loses        # pieces.ini extension: a bare royal loses
    int repetition_count       # the occurrence of a position that ends the game
    int perpetual_check_loses  # ... and the side that checked with every move of the
                               # repeated cycle loses
    int checks_not_counted     # a check and its answer do not count toward the 50-move rule
    int keeps_check_state      # either of the two: make_move then sets p.checked
    # Thai counting (pieces.ini "Counting:", loader.CountingRule; board.pyx
    # update_count): count_moves is the board's honour limit in moves (0: none), for a
    # side with at most count_board_max pieces where that is not 0; a bare side's
    # pieces' honour limit is the first count_honour_moves[k] for which the other side
    # has count_needed[k] pieces of the types whose bits are in count_types[k], else
    # count_else_moves; count_from_zero: that count starts at 0 (else at the number
    # of pieces on the board).  counting_draws: an expired count draws (off where the
    # referee lacks the rule)
    int counting
    int count_moves
    int count_else_moves
    int count_board_max
    int count_from_zero
    int count_honours
    int count_types[MAX_COUNT_HONOURS]
    int count_needed[MAX_COUNT_HONOURS]
    int count_honour_moves[MAX_COUNT_HONOURS]
    int counting_draws
    int gating                 # Seirawan gating from a hand of gate_type pieces
    int gate_type[2][2]        # [colour][0/1]: piece types held at the start
    key_t zobrist_hand[2][MAX_TYPES][MAX_HAND]   # [colour][type][pieces held before]
    # drop games (pieces.ini "Drops:"): a capture by `side` of a piece of type t puts a
    # hand_type[side][t] in side's hand (0: nothing, e.g. a royal), a promoted piece
    # (PROMOTED) a demoted_type[side]; side may drop a piece of type t on the rows
    # whose bits are set in drop_rows[side][t]
    int drops
    # Confinement (xiangqi): a piece of type t and colour c may only land on a square
    # whose row bit is in region_rows[c][t] and file bit in region_files[c][t]; ray j
    # starts only from the rows in ray_rows[c][j] (a soldier steps sideways only across
    # the river).  Types with either rule take the generic walker (generic_type[t]).
    int confined
    int region_rows[2][MAX_TYPES]
    int region_files[2][MAX_TYPES]
    int ray_rows[2][MAX_RAYS]
    int generic_type[MAX_TYPES]
    int royals_may_not_face    # xiangqi: two royals may not see each other along a file
    int hand_type[2][MAX_TYPES]
    int demoted_type[2]
    int drop_rows[2][MAX_TYPES]
    # shogi-style drop limits: no drop of type t on a file where the side has a piece of
    # type t already (OnePerFile:, nifu); no drop of type t that mates (NoDropMate:)
    int drop_one_per_file[MAX_TYPES]
    int drop_may_not_mate[MAX_TYPES]
    # shogi-style promotion (pieces.ini "Promotes:"): a piece of type t may become a
    # promotes_to[t] (0: never) when a move starts or ends on a row whose bit is in
    # zone_rows[side], and must where it lands on a row of dead_rows[side][t], from
    # which it could never move again.  Promoted types are types of their own there,
    # so promoted pieces carry the PROMOTED bit only where promoted_bit is set
    # (crazyhouse, whose promoted pieces go to hand as demoted_type).
    int promotes_to[MAX_TYPES]
    int zone_rows[2]
    int dead_rows[2][MAX_TYPES]
    int promoted_bit
    int simple_attacks         # every capture ray is a plain leaper or slider
    # for simple_attacks: a square is attacked by colour c from direction
    # attack_step[c][i] by a leaper (bit t of attack_leapers[c][i]) or slider
    # (attack_sliders[c][i]) of type t; the first royal_attack_dirs[c] directions are
    # those a royal attacks from, the others only have attackers of the types in
    # late_attack_types[c].  Both colours' tables are the same but for Mirror: types.
    int num_attack_dirs[2]
    int royal_attack_dirs[2]
    int late_attack_types[2]
    int attack_step[2][MAX_RAYS]
    int attack_leapers[2][MAX_RAYS]
    int attack_sliders[2][MAX_RAYS]
    int castles                # some piece has a castling ray
    int queen_lines_only       # every slider moves along ranks, files, diagonals
    int slider_mask_by_step[2][129]   # attack_sliders[c] of step s at [c][s + 64]
    int leaper_mask_by_step[2][129]   # attack_leapers[c] of step s at [c][s + 64]
    # simple_attacks, queen lines only and every leap within CHECK_LEAP_ROWS ranks and
    # CHECK_LEAP_FILES files: a check can be read off the last move (board.check_after_move)
    int checks_from_move
    int may_duplicate          # generator can emit the same move twice
    int is_board[NSQ]          # 1 on playable squares
    int sq_row[NSQ]            # row (0 = top) and file of a square
    int sq_file[NSQ]
    key_t zobrist[32][NSQ]     # [type | colour<<4][square]
    key_t zobrist_virgin[NSQ]  # hashed for unmoved pieces whose virginity matters:
    int has_initial_moves[MAX_TYPES]   # types with initial-move rays, and
    int castle_corner[NSQ]     # pieces on corners (castling partners)
    key_t zobrist_ep[NSQ]
    key_t zobrist_side
    score_t psq[32][NSQ]       # piece-square value, from the owner's view; set by evaluate
    score_t hand_psq[32]       # the same for a piece in hand, by piece_index

cdef class Variant:
    cdef Rules rules
    cdef readonly object spec  # the loader's VariantSpec
    cdef _sort_rays(self)
    cdef bint _first_move_only(self, int t, int j)
    cdef bint _may_be_tactical(self, int t, int j)
    cdef _build_attack_tables(self)
    cdef _set_drop_rules(self, dict limits)
    cdef _set_confinement(self)
    cdef _set_mirrors(self)
    cdef _set_shogi_promotions(self)


cdef inline int owner_index(const Rules* r, int c, int sq) noexcept nogil:
    """Index 0 .. width x height - 1 of sq in a table seen from colour c's side: its own
    first rank first."""
    cdef int rank = r.height - 1 - r.sq_row[sq] if c == 0 else r.sq_row[sq]
    return rank * r.width + r.sq_file[sq]
