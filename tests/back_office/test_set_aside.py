"""One bad event stops one table, never the back-office: a table whose events a read model
cannot apply - here the probe's drop.counted of 2026-02-31, stored past the catalogue's
check as a database administrator could (the check monkeypatched) - fails its subscriber
for ``SET_ASIDE_AFTER_FAILURES`` runs, is then set aside with a critical finding, and the
subscriber goes on with every other table; a person's correction that strikes the event
takes it back, and its read model catches up."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

import pytest
from django.db import OperationalError

from audit.feed.subscribers import TablesFailed, catch_up, feed_head
from audit.models import Event, Finding, StreamFailure, SubscriberPosition
from audit.store import streams as store
from audit.store.streams import NewEvent, events_append, stream_version
from ledger import feed
from ledger import models as lm
from tables import models as m
from tables.feed import NAME as TABLES
from tests.commands import run_command
from tests.event_examples import EXAMPLES

from .helpers import append, dealt

pytestmark = pytest.mark.django_db

LEDGER = feed.NAME


def _store_unchecked(
    monkeypatch: pytest.MonkeyPatch, stream: str, type_: str, payload: dict[str, Any]
) -> str:
    """Append one event whose payload the catalogue would refuse: its check stood aside."""
    real = store.check_event

    def lax(event: NewEvent) -> store.CheckedEvent:
        if event.type != type_:
            return real(event)
        return store.CheckedEvent(
            id=event.id,
            type=event.type,
            schema_version=2,
            payload=event.payload,
            occurred_at=event.occurred_at,
            actor=event.actor,
            source=event.source,
            recorded_at=None,
            hash=None,
        )

    monkeypatch.setattr(store, "check_event", lax)
    event_id = uuid.uuid4()
    events_append(
        stream=stream,
        expected_version=stream_version(stream),
        events=[
            NewEvent(
                id=event_id,
                type=type_,
                payload=payload,
                occurred_at=datetime(2026, 11, 30, 8, tzinfo=UTC),
                actor="user:CR-1",
                source="count-room",
            )
        ],
    )
    monkeypatch.setattr(store, "check_event", real)
    return str(event_id)


def _strike(stream: str, event_id: str) -> None:
    """A pit boss's correction that strikes ``event_id`` (no settlements)."""
    events_append(
        stream=stream,
        expected_version=stream_version(stream),
        principal="user:pb",
        events=[
            NewEvent(
                id=uuid.uuid4(),
                type="correction.recorded",
                occurred_at=datetime(2026, 11, 30, 9, tzinfo=UTC),
                actor="user:pb",
                source="back-office",
                payload={
                    "round": None,
                    "corrects": event_id,
                    "settlements": [],
                    "reason": "drop count entered with an impossible date",
                    "authorised_by": "pb",
                },
            )
        ],
    )


@pytest.fixture
def poisoned(settings, monkeypatch) -> str:
    """T1 and T2 dealt; T1 then given the probe's drop count of 2026-02-31. Returns its id."""
    settings.PROJECT_ON_APPEND = False
    settings.SET_ASIDE_AFTER_FAILURES = 2
    feed.CACHE.clear()
    append("T1", dealt("hoyle", rounds=6, table="T1"))
    append("T2", dealt("hoyle", rounds=6, table="T2", seed="other"))
    return _store_unchecked(
        monkeypatch, "T1", "drop.counted", {**EXAMPLES["drop.counted"], "gaming_day": "2026-02-31"}
    )


def _folded(stream: str) -> int:
    return (
        lm.LedgerTable.objects.filter(stream=stream)
        .values_list("folded_version", flat=True)
        .first()
        or 0
    )


def test_a_poisoned_table_is_set_aside_and_the_others_go_on(poisoned: str) -> None:
    # the first run: T1 fails, T2 is done, the position stays (a failure may pass)
    with pytest.raises(TablesFailed, match="T1: ValueError"):
        catch_up(LEDGER)
    assert SubscriberPosition.objects.get(name=LEDGER).position == 0
    assert _folded("T2") == stream_version("T2")
    assert not Finding.objects.filter(kind="stream_set_aside").exists()
    # the second: T1 set aside with a critical finding; the position reaches the head
    assert catch_up(LEDGER).position == feed_head()
    aside = StreamFailure.objects.get(subscriber=LEDGER, stream="T1")
    assert (
        aside.set_aside_at is not None
        and aside.failures == 2
        and "day is out of range" in aside.error
    )
    finding = Finding.objects.get(kind="stream_set_aside")
    assert (finding.severity, finding.stream, finding.superseded_by) == ("critical", "T1", None)
    assert finding.expected == LEDGER and finding.event_version == aside.from_version
    assert "ledger.books could not apply table T1's events" in finding.message
    # the game's read models never needed T1's drop: they follow it
    catch_up(TABLES)
    assert m.Table.objects.get(stream="T1").projected_version == stream_version("T1")
    # T2 goes on: its new rounds are booked, T1 is left where it stopped (no new failure)
    before = _folded("T1")
    append(
        "T2", dealt("hoyle", rounds=4, table="T2", seed="more")[1:]
    )  # more of T2's events, its opening left out
    assert catch_up(LEDGER).position == feed_head()
    assert _folded("T2") == stream_version("T2") and _folded("T1") == before
    assert StreamFailure.objects.get(stream="T1").failures == 2


def test_catch_up_names_the_set_aside_table_and_exits_1(poisoned: str) -> None:
    run_command("catch_up", "--subscriber", LEDGER)
    code, out, err = run_command("catch_up", "--subscriber", LEDGER)
    assert code == 1, (out, err)
    assert f"{LEDGER}: position" in out
    assert f"{LEDGER}: table T1 set aside since" in err and "day is out of range for month" in err
    assert "1 table(s) set aside" in err


def test_a_correction_that_strikes_the_event_takes_the_table_back(poisoned: str) -> None:
    for _ in range(2):
        try:
            catch_up(LEDGER)
        except TablesFailed:
            pass
    assert StreamFailure.objects.get(stream="T1").set_aside_at is not None
    _strike("T1", poisoned)
    assert catch_up(LEDGER).position == feed_head()
    assert not StreamFailure.objects.exists()
    finding = Finding.objects.get(kind="stream_set_aside")
    assert finding.superseded_by is not None  # kept, superseded: the table is followed again
    assert _folded("T1") == stream_version("T1")
    # its books are the day's as if the struck count had never been recorded
    assert lm.Reconciliation.objects.filter(table__stream="T1", shift="").exists()
    assert not lm.DropBox.objects.filter(table__stream="T1").exists()


def test_catch_up_take_back_follows_a_table_again_once_it_applies(settings, monkeypatch) -> None:
    """A table set aside by a failure that is not the event's (here: the projection broken
    for it) is taken back by the command once it applies; while it still fails it stays."""
    settings.PROJECT_ON_APPEND = False
    settings.SET_ASIDE_AFTER_FAILURES = 1
    feed.CACHE.clear()
    append("T1", dealt("hoyle", rounds=4, table="T1"))
    real = feed.project_table

    def broken(*, stream: str, **kwargs: Any) -> Any:
        if stream == "T1":
            raise RuntimeError("the projection cannot read this table")
        return real(stream=stream, **kwargs)

    monkeypatch.setattr(feed, "project_table", broken)
    assert catch_up(LEDGER).position == feed_head()
    code, out, err = run_command("catch_up", "--subscriber", LEDGER, "--take-back", "T1")
    assert f"{LEDGER}: table T1 still fails: set aside it stays" in err and code == 1
    monkeypatch.setattr(feed, "project_table", real)
    code, out, err = run_command("catch_up", "--subscriber", LEDGER, "--take-back", "T1")
    assert code == 0, err
    assert f"{LEDGER}: table T1 taken back: its read model follows it again" in out
    assert _folded("T1") == stream_version("T1") and not StreamFailure.objects.exists()
    code, _, err = run_command("catch_up", "--take-back", "T1")
    assert code == 2 and "no subscriber has set it aside" in err


def test_a_database_that_does_not_answer_sets_no_table_aside(settings, monkeypatch) -> None:
    settings.PROJECT_ON_APPEND = False
    settings.SET_ASIDE_AFTER_FAILURES = 1
    append("T1", dealt("hoyle", rounds=3, table="T1"))
    real = feed.project_table

    def gone(*, stream: str, **kwargs: Any) -> Any:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(feed, "project_table", gone)
    for _ in range(3):
        with pytest.raises(TablesFailed, match="OperationalError"):
            catch_up(LEDGER)
    assert (
        not StreamFailure.objects.exists()
        and SubscriberPosition.objects.get(name=LEDGER).position == 0
    )
    monkeypatch.setattr(feed, "project_table", real)
    assert catch_up(LEDGER).position == feed_head()
    assert Event.objects.filter(stream="T1").count() == _folded("T1")


def test_a_table_set_aside_for_its_opening_is_taken_back_by_striking_it(
    settings, monkeypatch
) -> None:
    """An opening of 2026-02-30 stops the game's read models of its table (a day that
    cannot be read); struck by a pit boss, it starts no day, and they follow the table
    again."""
    settings.PROJECT_ON_APPEND = False
    settings.SET_ASIDE_AFTER_FAILURES = 1
    feed.CACHE.clear()
    append("T1", dealt("hoyle", rounds=3, table="T1"))
    append("T2", dealt("hoyle", rounds=3, table="T2", seed="other"))
    bad = _store_unchecked(
        monkeypatch,
        "T1",
        "table.opened",
        {**EXAMPLES["table.opened"], "table": "T1", "gaming_day": "2026-02-30"},
    )
    for name in (TABLES, LEDGER):
        assert catch_up(name).position == feed_head()
    # the game's read models cannot place its rounds in a day (the ledger's books of it go
    # on without that day's replay, which casino.game reports)
    assert (TABLES, "T1") in set(
        StreamFailure.objects.filter(set_aside_at__isnull=False).values_list("subscriber", "stream")
    )
    assert m.Table.objects.get(stream="T2").projected_version == stream_version("T2")
    _strike("T1", bad)
    for name in (TABLES, LEDGER):
        assert catch_up(name).position == feed_head()
    assert not StreamFailure.objects.exists()
    assert (
        m.Table.objects.get(stream="T1").projected_version == stream_version("T1") == _folded("T1")
    )
    assert not Finding.objects.filter(kind="stream_set_aside", superseded_by__isnull=True).exists()


def _house_result(events: list[dict[str, Any]]) -> int:
    """What the house won over ``events``' settled rounds, read from the settlements as
    recorded (a bet's house result is minus its net)."""
    return -sum(
        s["net"]
        for e in events
        if e["type"] == "round.settled"
        for s in e["payload"]["settlements"]
    )


def test_a_struck_opening_of_no_date_holds_what_follows_in_no_day(settings, monkeypatch) -> None:
    """A day of T1, then an opening of 2026-02-30 and the next day's rounds after it: the
    table is set aside; a pit boss strikes the opening to take it back. The rounds after
    it belong to no gaming day - not to the day before, whose rounds and books stay that
    day's own (a no_gaming_day finding there says so) - until a proper opening, whose day
    counts what follows it."""
    settings.PROJECT_ON_APPEND = False
    settings.SET_ASIDE_AFTER_FAILURES = 1
    feed.CACHE.clear()
    first = dealt("hoyle", rounds=3, table="T1")
    append("T1", first)
    ended = stream_version("T1")
    bad = _store_unchecked(
        monkeypatch, "T1", "table.opened", {**first[0]["payload"], "gaming_day": "2026-02-30"}
    )
    append(
        "T1", dealt("hoyle", rounds=4, table="T1", seed="two")[1:]
    )  # that day's rounds, its opening the bad one
    for name in (TABLES, LEDGER):
        catch_up(name)
    assert StreamFailure.objects.filter(stream="T1", set_aside_at__isnull=False).count() == 2
    _strike("T1", bad)
    for name in (TABLES, LEDGER):
        assert catch_up(name).position == feed_head()
    assert not StreamFailure.objects.exists()
    day = first[0]["payload"]["gaming_day"]
    # the game: the first day's three rounds alone, its day ending where the bad opening stood
    assert list(m.TableDay.objects.values_list("gaming_day", "first_version", "last_version")) == [
        (date.fromisoformat(day), 1, ended)
    ]
    assert sorted(m.Round.objects.values_list("number", flat=True)) == [1, 2, 3]
    assert not Finding.objects.filter(kind="duplicate_event").exists()
    # the books: that day's rounds and house result, as its own events say
    whole = lm.Reconciliation.objects.get(table__stream="T1", gaming_day=day, shift="")
    assert (whole.rounds, whole.recorded_win) == (3, _house_result(first))
    held = Finding.objects.get(kind="no_gaming_day", superseded_by__isnull=True)
    assert (held.stream, held.gaming_day.isoformat(), held.severity) == ("T1", day, "high")
    assert f"from version {ended + 1}" in held.message and "'2026-02-30'" in held.message
    assert f"not in {day}" in held.message
    # a proper opening: what follows it is its day's
    later = dealt("hoyle", rounds=2, table="T1", seed="three")
    later[0]["payload"] = {**later[0]["payload"], "gaming_day": "2026-12-01"}
    append("T1", later)
    for name in (TABLES, LEDGER):
        assert catch_up(name).position == feed_head()
    assert sorted(m.TableDay.objects.values_list("gaming_day", flat=True)) == [
        date(2026, 11, 29),
        date(2026, 12, 1),
    ]
    assert lm.Reconciliation.objects.get(
        table__stream="T1", gaming_day=day, shift=""
    ).recorded_win == _house_result(first)
    latest = lm.Reconciliation.objects.get(table__stream="T1", gaming_day="2026-12-01", shift="")
    assert (latest.rounds, latest.recorded_win) == (2, _house_result(later))
    # and a rebuild from the first event makes the same rows
    code, out, err = run_command("rebuild_projections", "--stream", "T1")
    assert code == 0, (out, err)
