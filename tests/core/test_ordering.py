from __future__ import annotations

from proseval.core.ordering import round_robin
from proseval.registry import get_task


def test_round_robin_alternates_groups_in_order_of_first_appearance():
    items = ["a1", "a2", "a3", "b1", "c1", "c2"]
    assert round_robin(items, lambda s: s[0]) == ["a1", "b1", "c1", "a2", "c2", "a3"]
    assert round_robin([], lambda s: s) == []


def test_meeseeks_interleaved_order_alternates_data_files(shared_dir):
    data = shared_dir / "data" / "meeseeks"
    files = get_task("meeseeks", {"data_dir": str(data), "language": ["en"]}).dataset()
    mixed = get_task("meeseeks", {"data_dir": str(data), "language": ["en"], "order": "interleaved"}).dataset()
    assert sorted(s.id for s in files) == sorted(s.id for s in mixed)
    first = [s.metadata["source_file"] for s in mixed[:20]]
    assert len(set(first)) == 20
    assert len({s.metadata["source_file"] for s in files[:20]}) < 5
