"""The shelf (``audit.record.shelf``): byte strings put away in a file and fetched back by
their handles, and a mapping whose older entries are kept there - every answer exact,
however the keys' hashes fall."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record import shelf as shelves
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
    st.tuples(st.just("setdefault"), st.one_of(keys, clashing), st.integers(-5, 5)),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(step, max_size=40), st.sampled_from([1, 2, 3]), st.sampled_from([1, 2, shelves.FILTER])
)
def test_the_shelved_map_answers_as_a_dict_does(
    steps: list[tuple[Any, ...]], batch: int, size: int
) -> None:
    shelf = Shelf()
    try:
        # a filter of one or two bytes lets nearly every key through to the index
        shelved: ShelvedMap[str, tuple[int, str]] = ShelvedMap(shelf, batch=batch, filter=size)
        plain: dict[str, tuple[int, str]] = {}
        for kind, key, *value in steps:
            if kind == "set":
                shelved[key] = plain[key] = (value[0], "2026-11-29")
            elif kind == "setdefault":
                value_ = (value[0], "2026-11-30")
                assert shelved.setdefault(key, value_) == plain.setdefault(key, value_)
            elif kind == "del":
                assert (key in shelved) == (key in plain)
                if key in plain:
                    del shelved[key], plain[key]
            assert (key in shelved) == (key in plain)
            assert shelved.get(key) == plain.get(key)
            assert len(shelved) == len(plain)
        assert list(shelved.items()) == list(plain.items())  # in a dict's order
        assert list(reversed(shelved)) == list(reversed(plain))
        for start in range(len(plain) + 1):
            assert list(shelved.items_from(start)) == list(plain.items())[start:]
    finally:
        shelf.close()


def test_older_entries_leave_memory_a_batch_at_a_time_and_a_change_to_one_is_kept() -> None:
    shelf = Shelf()
    try:
        shelved: ShelvedMap[str, int] = ShelvedMap(shelf, batch=100)
        for n in range(1_000):
            shelved[f"r{n // 7}-{n % 7}"] = n
        assert len(shelved.recent) == 100 and len(shelved.batches) == 9 and len(shelved) == 1_000
        shelved["r0-0"] = -1  # in the first batch: shelved again, changed
        shelved["r142-5"] = -2  # in the latest
        assert (shelved["r0-0"], shelved["r0-1"], shelved["r142-5"]) == (-1, 1, -2)
        assert "r142-6" not in shelved and "r0-7" not in shelved
    finally:
        shelf.close()


def test_the_index_on_the_shelf_behind_a_filter_that_lets_every_key_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The index's entries on the shelf in runs of 16, a filter of one byte: every key not
    in memory is looked up in every run, and the answers are a dict's."""
    monkeypatch.setattr(shelves, "ENTRIES", 16)
    shelf = Shelf()
    try:
        shelved: ShelvedMap[str, int] = ShelvedMap(shelf, batch=5, filter=1)
        plain = {f"bet-{n}": n for n in range(1_000)}
        for key, value in plain.items():
            assert key not in shelved
            shelved[key] = value
        assert len(shelved._runs) > 40 and shelved.alarms > 900
        assert all(shelved[key] == value for key, value in plain.items())
        assert not any(f"bet-{n}" in shelved for n in range(1_000, 2_000))
        shelved["bet-3"] = -3  # in a batch whose entry is in the first run
        del shelved["bet-4"]
        plain["bet-3"] = -3
        del plain["bet-4"]
        assert dict(shelved.items()) == plain
        assert "bet-4" not in shelved and shelved["bet-3"] == -3
    finally:
        shelf.close()


def test_a_part_of_a_thing_put_away_is_read_back_and_no_more() -> None:
    shelf = Shelf()
    try:
        first, second = shelf.put(b"0123456789"), shelf.put(b"abcdef")
        assert shelf.read(first, 2, 3) == b"234" and shelf.read(second, 0, 6) == b"abcdef"
        assert shelf.read(second, 6, 0) == b""
        with pytest.raises(ValueError):
            shelf.read(first, 8, 3)  # into the next
    finally:
        shelf.close()


def test_the_filter_grows_with_the_keys_shelved_and_every_answer_stays_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shelves, "FILTER", 64)
    monkeypatch.setattr(shelves, "ENTRIES", 50)
    shelf = Shelf()
    try:
        shelved: ShelvedMap[str, int] = ShelvedMap(shelf, batch=10)
        sizes = set()
        for n in range(3_000):
            shelved[f"bet-{n}"] = n
            sizes.add(len(shelved._bits))
        assert (
            sorted(sizes) == [64 << k for k in range(len(sizes))]
            and max(sizes) > 3 * 2_990 >= max(sizes) // 2
        )
        assert all(shelved[f"bet-{n}"] == n for n in range(3_000))
        assert not any(f"bet-{n}" in shelved for n in range(3_000, 6_000))
        assert shelved.alarms < 3_000 + 300  # the held, and a few false alarms
    finally:
        shelf.close()


def test_keys_of_numbers_and_days_keep_their_order_and_a_value_changed_is_put_back() -> None:
    """A table's rounds, keyed (gaming day, number): the order they were first set in
    (a round set again keeps its place), newest first from the end, and a value read from
    a shelved batch is a copy - the change is kept once it is put back."""
    shelf = Shelf()
    try:
        rounds: ShelvedMap[tuple[str | None, int], list[int]] = ShelvedMap(
            shelf, batch=4, filter=shelves.SMALL_FILTER, grows=True
        )
        plain: dict[tuple[str | None, int], list[int]] = {}
        for day in ("2026-11-29", "2026-11-30", None):
            for number in range(1, 11):
                rounds[(day, number)] = plain[(day, number)] = [number]
        rounds[("2026-11-29", 3)] = plain[("2026-11-29", 3)] = [-3]  # set again: its place kept
        assert list(rounds) == list(plain) and len(rounds.batches) == 7
        newest = next(key for key in reversed(rounds) if key[1] == 5)
        assert newest == (None, 5)
        copy = rounds[("2026-11-29", 2)]
        copy.append(99)
        assert rounds[("2026-11-30", 5)] == [5]  # another batch thawed: the change is lost
        assert rounds[("2026-11-29", 2)] == [2]
        rounds[("2026-11-29", 2)] = copy
        assert rounds[("2026-11-29", 2)] == [2, 99] and list(rounds)[1] == ("2026-11-29", 2)
        assert ("2026-12-01", 1) not in rounds and rounds.get(("2026-12-01", 1)) is None
    finally:
        shelf.close()
