"""Mates in drop games: the search finds them at the shortest distance, as
Fairy-Stockfish does.

The positions are from the engine's games against SjaakII (results/drops_sjaakii_
crazyhouse_10+0.1.pgn and drops_sjaakii_shogi_10+0.1.pgn), 5 or 7 plies before the
end; Fairy-Stockfish 11.1 (`go depth 10`, 16 for the mates in 4) scored each as mate
in 3 or 4.  The mating
lines drop pieces to check and to cover the royal's flight squares.  The principal
variation is replayed in pyffish, which must see the defender mated at its end."""
from __future__ import annotations

import pytest

from conftest import board_of
from fairymax.search import MATE, Searcher

MATES = [   # variant, FEN as Fairy-Stockfish writes it, plies to mate
    ("crazyhouse", "1Q~1bk2r/3r1pb1/3p2pp/P1pP4/3nP3/3PK2N/5PPP/8[QQRBNNPPPrb] b k - 0 47", 5),
    ("crazyhouse", "rnbRB3/1pppp3/3k2r1/p4Pp1/3p1n2/1PBP4/P1P1BPP1/R2QK1N1[QNpp] w Q - 1 21", 5),
    ("crazyhouse", "2R3nr/1Ppnkppp/B3pq2/8/1b1PP1p1/NN6/PP2Q1PP/R2K3R[BPbpp] w - - 1 26", 7),
    ("crazyhouse", "N4b1r/p4ppp/2pk4/1p2nb2/3P4/2N5/PPP2PPP/R3KBNR[QRqbppp] w KQ - 0 16", 7),
    ("shogi", "ln3+R+B2/2ks5/ppp6/4pgp2/3p5/1PP1n1P2/P1SP1P1PP/2K1G1S1R/LN3G2L[GNPPPPSlb] w - - 0 45", 5),
    ("shogi", "1n5nl/lsg1k3s/2ppB3p/4pPP2/p2r4P/4P4/PPPP2NPL/L1S1GS3/1N2K4[GPPPPBgr] w - - 0 40", 5),
    ("shogi", "4g1sk1/K6gl/1Pspp1npp/5Np2/3GP4/3G5/P3+bPPPP/L8/1+r7[LPPPSnnlpppsrb] b - - 0 46", 5),
    ("shogi", "lnsg4l/9/pp3R+P1p/2pkp4/5n1p1/1PP4P1/L2pP1pGP/1B1G3K1/1N4SRL[GPPnppssb] w - - 0 40", 7),
]


@pytest.mark.parametrize("variant, fen, plies", MATES)
def test_drop_mate_found_at_its_distance(ours, variant, fen, plies):
    pyffish = pytest.importorskip("pyffish")
    board = board_of(ours, variant, fen)
    last = None
    for info in Searcher(hash_mb=16).iterate(board, max_depth=plies + 1):
        if info.complete:
            last = info
    assert last.score == MATE - plies
    line = []
    for move in last.pv:
        line.append(board.move_text(move))
        board.push(move)
    assert len(line) == plies and any("@" in text for text in line)
    assert pyffish.legal_moves(variant, fen, line) == []
    assert pyffish.gives_check(variant, fen, line)
