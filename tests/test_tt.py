"""Hash table sizes: the main table in MB (`memory`), the quiescence table in KB."""
from fairymax.search import Searcher
from fairymax.tt import TT

ENTRY_BYTES = 16


def test_sizes_round_down_to_a_power_of_two_buckets():
    assert TT(1).entries * ENTRY_BYTES == 1 << 20
    assert TT(3).entries * ENTRY_BYTES == 2 << 20
    assert TT(kb=512).entries * ENTRY_BYTES == 512 << 10
    assert TT(kb=512).size_kb == 512
    table = TT(1)
    table.resize(4)
    assert table.size_mb == 4 and table.entries * ENTRY_BYTES == 4 << 20


def test_searcher_resizes_its_main_table():
    searcher = Searcher(8)
    assert searcher.hash_mb == 8
    searcher.resize(2)
    assert searcher.hash_mb == 2
