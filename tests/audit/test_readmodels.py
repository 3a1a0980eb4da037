"""The read models' fold cache (audit.feed.readmodels.FoldCache): a kept fold is handed back
once, only at the version it folded while the stream's event there still has the hash
it folded, in the same database; the least recently kept goes first; threads may share it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from audit.feed.readmodels import FoldCache
from audit.models import Event
from audit.store.streams import events_append
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


@pytest.fixture
def stream() -> str:
    events_append(
        stream="T1",
        expected_version=0,
        events=[table_opened("T1", at=AT), *round_events(1, at=AT)],
        now=AT,
    )
    return "T1"


def _hash(stream: str, version: int) -> str:
    return Event.objects.get(stream=stream, version=version).hash


def test_a_kept_fold_is_taken_once_at_its_version(stream: str) -> None:
    """Handed back at the version it folded, then gone; at another version, dropped."""
    cache: FoldCache[str] = FoldCache(4)
    cache.put(stream, "fold", version=3)
    assert cache.take(stream, version=3) == "fold"
    assert cache.take(stream, version=3) is None
    cache.put(stream, "fold", version=3)
    assert cache.take(stream, version=4) is None
    assert len(cache) == 0  # of no use: dropped, not kept for later


def test_a_kept_fold_whose_head_event_hash_differs_is_dropped(stream: str) -> None:
    """The chain makes the hash at the kept version stand for the whole prefix: a fold
    of another prefix (another hash there) is of no use."""
    cache: FoldCache[str] = FoldCache(4)
    cache.put(stream, "fold", version=3, head_hash="0" * 64)
    assert cache.take(stream, version=3) is None
    cache.put(stream, "fold", version=3, head_hash=_hash(stream, 3))
    assert cache.take(stream, version=3) == "fold"


def test_a_kept_fold_of_another_database_is_dropped(
    stream: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import connection

    cache: FoldCache[str] = FoldCache(4)
    cache.put(stream, "fold", version=3)
    monkeypatch.setitem(connection.settings_dict, "NAME", "another")
    assert cache.take(stream, version=3) is None


def test_a_kept_fold_that_does_not_fit_is_dropped(stream: str) -> None:
    cache: FoldCache[int] = FoldCache(4)
    cache.put(stream, 7, version=3)
    assert cache.take(stream, version=3, fits=lambda kept: kept < 7) is None
    assert len(cache) == 0


def test_folds_of_days_are_kept_apart(stream: str) -> None:
    """A read model that folds a day at a time keeps one fold a day."""
    cache: FoldCache[str] = FoldCache(4)
    cache.put(stream, "day 1", version=3, day=1)
    cache.put(stream, "day 9", version=3, day=9)
    cache.put(stream, "table", version=3)
    assert len(cache) == 3
    assert cache.take(stream, version=3, day=9) == "day 9"
    assert cache.take(stream, version=3) == "table"


def test_the_least_recently_kept_goes_first(stream: str) -> None:
    cache: FoldCache[str] = FoldCache(2)
    cache.put("A", "a", version=3, head_hash="h")
    cache.put("B", "b", version=3, head_hash="h")
    cache.put("A", "a again", version=3, head_hash="h")  # kept again: the most recent
    cache.put(stream, "c", version=3)
    assert len(cache) == 2
    assert cache.take("B", version=3) is None  # out first
    assert cache.take(stream, version=3) == "c"


def test_a_cache_of_size_zero_keeps_nothing(stream: str) -> None:
    cache: FoldCache[str] = FoldCache(0)
    cache.put(stream, "fold", version=3)
    assert len(cache) == 0 and cache.take(stream, version=3) is None


def test_threads_share_a_cache() -> None:
    """Puts and takes from several threads at once keep the bound and lose no entry
    to a torn update."""
    cache: FoldCache[int] = FoldCache(8)
    start = threading.Barrier(4)
    sizes: list[int] = []

    def work(n: int) -> None:
        start.wait()
        for i in range(2000):
            cache.put(f"T{n}-{i % 16}", i, version=1, head_hash="h")
            sizes.append(len(cache))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(sizes) == 8000 and max(sizes) <= 8 and len(cache) == 8
