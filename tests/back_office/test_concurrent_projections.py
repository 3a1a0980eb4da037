"""Two projections of the same table racing on their own PostgreSQL connections: each
folds outside any lock, the write's compare-and-set lets one win, and the rows and
findings end as one projection gives them - whichever writes first."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections

import tables.projections
from audit.models import Finding, ReplayRun
from tables import models as m
from tables.projections import first_difference, rebuild, snapshot
from tables.replay_service import replay_table

from .helpers import append, dealt, plant_short_pay

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip(
            "real concurrent connections need PostgreSQL: run with DATABASE_URL=postgresql://..."
        )


def _in_thread(
    name: str, work: Callable[[], object], outcomes: dict[str, object]
) -> threading.Thread:
    def run() -> None:
        try:
            outcomes[name] = work()
        except Exception as error:  # noqa: BLE001 - reported by the test
            outcomes[name] = error
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, name=name)
    thread.start()
    return thread


def _gate(monkeypatch, before_write: Callable[[str], None]) -> list[tuple[str, bool]]:
    """Call ``before_write(thread name)`` when a projection has folded and opened its
    write's transaction, before its compare-and-set; return the list that collects
    (thread name, whether its compare-and-set held)."""
    claim = tables.projections._claim
    claims: list[tuple[str, bool]] = []

    def gated(*args, **kwargs):
        name = threading.current_thread().name
        before_write(name)
        claimed = claim(*args, **kwargs)
        claims.append((name, claimed is not None))
        return claimed

    monkeypatch.setattr(tables.projections, "_claim", gated)
    return claims


def _assert_as_one_projection(fault: dict) -> None:
    live = snapshot("T1")
    again, rebuilt = rebuild("T1")
    assert first_difference(live, rebuilt) is None and again == rebuilt
    current = Finding.objects.filter(superseded_by__isnull=True)
    assert [(f.round, f.bet) for f in current] == [(fault["round"], fault["bet"])]
    assert Finding.objects.count() == 1


def test_two_projections_of_the_same_events_end_in_the_rows_of_one(
    postgres_only, settings, monkeypatch
):
    """Both fold the whole table (no projection yet), then race to write: one creates
    the table's row and writes, the other finds it there and, its fold covered, writes
    nothing."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=40)
    fault = plant_short_pay(events)
    append("T1", events)
    barrier = threading.Barrier(2, timeout=60)
    claims = _gate(monkeypatch, lambda name: barrier.wait())
    outcomes: dict[str, object] = {}
    threads = [
        _in_thread(name, lambda: replay_table(stream="T1"), outcomes)
        for name in ("first", "second")
    ]
    for thread in threads:
        thread.join(timeout=120)
    assert all(isinstance(o, dict) for o in outcomes.values()), outcomes
    assert sorted(o["rounds"] for o in outcomes.values()) == [0, 40]  # one wrote, one was covered
    assert sorted(held for _, held in claims) == [False, True]
    assert m.Table.objects.get(stream="T1").projected_version == len(events)
    assert set(ReplayRun.objects.values_list("status", flat=True)) == {"done"}
    monkeypatch.undo()
    _assert_as_one_projection(fault)


@pytest.mark.parametrize("first", ["shorter", "longer"])
def test_a_stale_fold_is_dropped_or_folded_again_by_what_the_winner_reached(
    postgres_only, settings, monkeypatch, first
):
    """One projection folds the first half of the day; events come; another folds all
    of it. If the longer writes first, the shorter is covered and writes nothing; if the
    shorter writes first, the longer one's fold is stale and it folds again from there.
    Either way the rows are one projection's."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=40)
    fault = plant_short_pay(events, skip=30)
    half = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "round.started" and e["payload"]["round"] == 21
    )
    append("T1", events[:half])
    replay_table(stream="T1")  # a projection to start from: the compare-and-set is an UPDATE
    append("T1", events[half : half + 30])  # part of round 21: the shorter fold ends mid-round
    folded = {name: threading.Event() for name in ("shorter", "longer")}
    go = {name: threading.Event() for name in ("shorter", "longer")}

    def before_write(name: str) -> None:
        folded[name].set()
        other = "longer" if name == "shorter" else "shorter"
        # the first writer waits until the other has folded too (a real race); the
        # other waits until the first has committed
        if not (folded[other] if name == first else go[name]).wait(timeout=60):
            raise AssertionError(f"{name} waited in vain")

    claims = _gate(monkeypatch, before_write)
    outcomes: dict[str, object] = {}
    shorter = _in_thread("shorter", lambda: replay_table(stream="T1"), outcomes)
    assert folded["shorter"].wait(timeout=60)
    append("T1", events[half + 30 :])
    longer = _in_thread("longer", lambda: replay_table(stream="T1"), outcomes)
    winner, loser = (shorter, longer) if first == "shorter" else (longer, shorter)
    winner.join(timeout=120)
    assert isinstance(outcomes[winner.name], dict), outcomes
    go[loser.name].set()
    loser.join(timeout=120)
    assert isinstance(outcomes[loser.name], dict), outcomes
    if first == "longer":
        assert claims == [("longer", True), ("shorter", False)]
        assert outcomes["shorter"]["rounds"] == 0  # covered by the winner: wrote nothing
    else:
        # stale, then folded again from the shorter's state and written
        assert claims == [("shorter", True), ("longer", False), ("longer", True)]
        assert outcomes["longer"]["rounds"] >= 1
    assert m.Table.objects.get(stream="T1").projected_version == len(events)
    assert m.Round.objects.filter(table__stream="T1").count() == 40
    monkeypatch.undo()
    _assert_as_one_projection(fault)
