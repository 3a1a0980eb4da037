"""The shelf (``audit.record.shelf``): byte strings put away in a file and fetched back by
their handles, and a mapping whose older entries are kept there - every answer exact,
however the keys' hashes fall."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record.shelf import Shelf, ShelvedMap


class Clashing(str):
    """A key whose hash is every other's: the index names every batch for it."""

    __slots__ = ()

    def __hash__(self) -> int:
        return 7


def test_each_byte_string_comes_back_by_its_handle_whatever_was_put_or_read_between() -> None:
    shelf = Shelf()
    try:
        pieces = [bytes([n]) * n for n in range(1, 60)] + [b""]
        handles = []
        for piece in pieces:
            handles.append(shelf.put(piece))
            assert shelf.get(handles[0]) == pieces[0]  # a read between two writes
        assert all(len(handle) == 16 for handle in handles)
        assert [shelf.get(handle) for handle in reversed(handles)] == pieces[::-1]
        assert len(shelf) == sum(map(len, pieces))
    finally:
        shelf.close()


keys = st.sampled_from(["b0", "b1", "b2", "b3", "r1-0", "r1-1", "r10-0", "x"])
clashing = st.sampled_from(["c0", "c1", "c2", "c3"]).map(Clashing)
step = st.one_of(
    st.tuples(st.just("set"), st.one_of(keys, clashing), st.integers(-5, 5)),
    st.tuples(st.just("del"), st.one_of(keys, clashing)),
    st.tuples(st.just("read"), st.one_of(keys, clashing)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(step, max_size=40), st.sampled_from([1, 2, 3]))
def test_the_shelved_map_answers_as_a_dict_does(steps: list[tuple[Any, ...]], batch: int) -> None:
    shelf = Shelf()
    try:
        shelved: ShelvedMap[tuple[int, str]] = ShelvedMap(shelf, batch=batch)
        plain: dict[str, tuple[int, str]] = {}
        for kind, key, *value in steps:
            if kind == "set":
                shelved[key] = plain[key] = (value[0], "2026-11-29")
            elif kind == "del":
                assert (key in shelved) == (key in plain)
                if key in plain:
                    del shelved[key], plain[key]
            assert (key in shelved) == (key in plain)
            assert shelved.get(key) == plain.get(key)
            assert len(shelved) == len(plain)
        assert dict(shelved.items()) == plain
        assert sorted(shelved) == sorted(plain)
    finally:
        shelf.close()


def test_older_entries_leave_memory_a_batch_at_a_time_and_a_change_to_one_is_kept() -> None:
    shelf = Shelf()
    try:
        shelved: ShelvedMap[int] = ShelvedMap(shelf, batch=100)
        for n in range(1_000):
            shelved[f"r{n // 7}-{n % 7}"] = n
        assert len(shelved.recent) == 100 and len(shelved.batches) == 9 and len(shelved) == 1_000
        shelved["r0-0"] = -1  # in the first batch: shelved again, changed
        shelved["r142-5"] = -2  # in the latest
        assert (shelved["r0-0"], shelved["r0-1"], shelved["r142-5"]) == (-1, 1, -2)
        assert "r142-6" not in shelved and "r0-7" not in shelved
    finally:
        shelf.close()
