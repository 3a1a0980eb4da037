"""What a long table's audit holds of its rounds once its events are read does not grow
with them (issue 12): each round's key and handle and its ``round.settled`` event's round
(the replay's), its first day and versions (the auditor's) and its shift (the ledger
fold's) go to the table's shelf a batch at a time - where a dict of each held about
0.5 KB a round - and the reports are the same as when everything is kept."""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import pytest

from audit.record import ids as id_sets
from audit.record import shelf as shelves
from auditor.reports import StreamAudit
from tables.engine import rounds as shelved_rounds

from .test_long_stream import _audit, _late_changes, _table


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 32 rounds and 64 other entries, the index on the shelf every 256 entries,
    the ids every 4,096: a short day shelves many batches of each, and what the shelves
    keep in memory before they write is small beside what the rounds would take."""
    monkeypatch.setattr(shelved_rounds, "BATCH", 32)
    monkeypatch.setattr(shelves, "BATCH", 64)
    monkeypatch.setattr(shelves, "ENTRIES", 256)
    monkeypatch.setattr(id_sets, "SETTLED", 4_096)


def _held(events: list[dict[str, Any]]) -> int:
    """The bytes the table's audit holds (tracemalloc) once its events are folded."""
    gc.collect()
    tracemalloc.start()
    try:
        audit = StreamAudit("T1", first_version=1)
        for event in events:
            audit.add(event)
        audit.replay.run(audit.pending)
        audit.pending = []
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        audit.close()
    finally:
        tracemalloc.stop()
    return held


@pytest.mark.usefixtures("small_batches")
def test_what_the_audit_holds_of_its_rounds_does_not_grow_with_them() -> None:
    short, long = _table(400), _table(1_600)
    grown = _held(long) - _held(short)
    # before: about 500 bytes a round (the four dicts); now the batches' and runs' handles
    # (a few bytes a round) and what the id set and the bets' index hold before they write
    assert grown / 1_200 < 100, f"{grown / 1_200:.0f} bytes a round"


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("rounds", [40, 160])
def test_late_events_count_as_when_everything_is_kept_with_the_rounds_shelved_in_small_batches(
    rounds: int,
) -> None:
    events, struck = _late_changes(_table(rounds))
    assert _audit(events, struck, kept=False) == _audit(events, struck, kept=True)
