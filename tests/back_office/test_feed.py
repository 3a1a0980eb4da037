"""The read models follow the global feed: after an append or a bulk ingest the store
publishes, and the subscribers catch up from their own positions - no replay_day needed.
A subscriber that fails keeps its position and catches up on the next run."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

import tables.replay_service
from audit.feed import subscribers
from audit.feed.subscribers import Batch, Subscriber, catch_up, feed_head
from audit.models import Event, SubscriberPosition
from tables import models as m
from tables.feed import NAME
from tables.projections import first_difference, rebuild

from .helpers import DAY, append, dealt, engine_findings, plant_short_pay

pytestmark = pytest.mark.django_db
_STORE_ONLY = ("version", "position", "recorded_at", "prev_hash", "hash")


def write_jsonl(path: Path, *tables: list[dict]) -> Path:
    """Tables' events as a file to ingest: new events (the store versions and hashes them)."""
    with path.open("w") as out:
        for events in tables:
            for event in events:
                out.write(
                    json.dumps({k: v for k, v in event.items() if k not in _STORE_ONLY}) + "\n"
                )
    return path


@pytest.fixture
def day_file(tmp_path) -> tuple[Path, dict]:
    """T1 (hoyle, a short pay planted) and T2 (it-sabot), 25 rounds each, as a file."""
    first = dealt("hoyle", rounds=25, table="T1")
    fault = plant_short_pay(first)
    return write_jsonl(
        tmp_path / "day.jsonl", first, dealt("it-sabot", rounds=25, table="T2")
    ), fault


def _position() -> int:
    return SubscriberPosition.objects.get(name=NAME).position


def test_after_an_ingest_alone_the_read_models_are_current(
    day_file, django_capture_on_commit_callbacks
):
    """manage.py ingest, and nothing else: once its publish has run (on commit), the
    rounds, bets and the planted short pay's finding are there, equal to a rebuild."""
    path, fault = day_file
    with django_capture_on_commit_callbacks(execute=True) as published:
        call_command("ingest", str(path), stdout=io.StringIO())
    assert len(published) == 1  # one publish for the whole file, not one per chunk
    assert m.Round.objects.filter(table__stream="T1", gaming_day=DAY).count() == 25
    assert m.Round.objects.filter(table__stream="T2", gaming_day=DAY).count() == 25
    assert (
        m.Table.objects.get(stream="T1").projected_version
        == Event.objects.filter(stream="T1").count()
    )
    finding = engine_findings().get()
    assert (finding.stream, finding.round, finding.bet, finding.kind) == (
        "T1",
        fault["round"],
        fault["bet"],
        "wrong_payout",
    )
    assert _position() == feed_head()
    live, rebuilt = rebuild()
    assert first_difference(live, rebuilt) is None


def test_with_project_on_append_off_nothing_follows_until_a_catch_up(
    day_file, settings, django_capture_on_commit_callbacks
):
    settings.PROJECT_ON_APPEND = False
    path, _ = day_file
    with django_capture_on_commit_callbacks(execute=True):
        call_command("ingest", str(path), stdout=io.StringIO())
    assert not m.Round.objects.exists() and not SubscriberPosition.objects.exists()
    out = io.StringIO()
    call_command("catch_up", stdout=out)
    assert f"{NAME}: position 0 -> {feed_head()}" in out.getvalue()
    assert m.Round.objects.count() == 50 and engine_findings().count() == 1
    # again: nothing new, nothing done
    call_command("catch_up", stdout=out)
    assert f"{NAME}: position {feed_head()} -> {feed_head()}" in out.getvalue()
    with pytest.raises(CommandError) as error:
        call_command("catch_up", "--subscriber", "nobody")
    assert error.value.returncode == 2 and "no such subscriber" in str(error.value)


def test_a_projection_that_fails_keeps_the_position_and_catches_up_next_time(settings, monkeypatch):
    """T2's projection fails: T1 is projected, the subscriber stays where it was with the
    error recorded; the next run projects T2 and moves it to the head."""
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt("hoyle", rounds=10, table="T1"))
    append("T2", dealt("hoyle", rounds=10, table="T2", seed="other"))
    real = tables.replay_service.replay_table

    def broken(*, stream: str, **kwargs):
        if stream == "T2":
            raise RuntimeError("disk on fire")
        return real(stream=stream, **kwargs)

    monkeypatch.setattr(tables.replay_service, "replay_table", broken)
    with pytest.raises(Exception, match="T2: RuntimeError"):
        catch_up(NAME)
    row = SubscriberPosition.objects.get(name=NAME)
    assert row.position == 0 and "disk on fire" in row.error and row.failed_at is not None
    assert m.Round.objects.filter(table__stream="T1").count() == 10
    assert not m.Round.objects.filter(table__stream="T2").exists()

    monkeypatch.setattr(tables.replay_service, "replay_table", real)
    done = catch_up(NAME)
    assert (done.start, done.position) == (0, feed_head())
    row.refresh_from_db()
    assert row.position == feed_head() and row.error == "" and row.failed_at is None
    assert m.Round.objects.filter(table__stream="T2").count() == 10


def test_a_subscriber_that_crashes_mid_way_resumes_from_the_last_batch_it_finished(
    settings, monkeypatch
):
    """Batches of 100 positions; the handler crashes in the fourth: the position is the
    end of the third, and the next run hands over every later event exactly once."""
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt("hoyle", rounds=30, table="T1"))
    head = feed_head()
    start = Event.objects.order_by("position").values_list("position", flat=True).first() - 1
    seen: list[int] = []
    crash = {"at": start + 350}

    def handle(batch: Batch) -> None:
        positions = [e.position for e in batch.events()]
        if crash["at"] is not None and any(p >= crash["at"] for p in positions):
            raise RuntimeError("killed")
        seen.extend(positions)

    monkeypatch.setitem(
        subscribers._REGISTRY, "test.follower", Subscriber("test.follower", handle, batch_size=100)
    )
    SubscriberPosition.objects.create(name="test.follower", position=start)
    with pytest.raises(RuntimeError):
        catch_up("test.follower")
    assert SubscriberPosition.objects.get(name="test.follower").position == start + 300
    crash["at"] = None
    catch_up("test.follower")
    assert SubscriberPosition.objects.get(name="test.follower").position == head
    assert seen == list(Event.objects.order_by("position").values_list("position", flat=True))


def test_a_second_run_that_finds_the_position_moved_goes_on_from_there(settings, monkeypatch):
    """Compare-and-set: when another run of the same subscriber has moved the position
    while this one worked, this one does not move it back."""
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt("hoyle", rounds=5, table="T1"))
    head = feed_head()

    def handle(batch: Batch) -> None:
        # another run finished everything meanwhile
        SubscriberPosition.objects.filter(name="test.racer").update(position=head)

    monkeypatch.setitem(
        subscribers._REGISTRY, "test.racer", Subscriber("test.racer", handle, batch_size=10)
    )
    done = catch_up("test.racer")
    assert (
        done.position == head and SubscriberPosition.objects.get(name="test.racer").position == head
    )


def test_the_findings_actions_publish_but_audit_streams_are_not_projected(
    settings, django_capture_on_commit_callbacks
):
    """Acknowledging a finding appends to audit.findings and publishes; the projections'
    subscriber moves past it without making a table of it."""
    from django.contrib.auth.models import Group, User

    from audit.findings.workflow import finding_acknowledge

    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=8)
    plant_short_pay(events)
    append("T1", events)
    catch_up(NAME)
    boss = User.objects.create_user("pb")
    boss.groups.add(Group.objects.get(name="pit_boss"))
    settings.PROJECT_ON_APPEND = True
    with django_capture_on_commit_callbacks(execute=True) as published:
        finding_acknowledge(finding_id=engine_findings().get().pk, user=boss)
    assert len(published) == 1
    assert (
        _position() == feed_head()
        and Event.objects.get(position=feed_head()).stream == "audit.findings"
    )
    assert list(m.Table.objects.values_list("stream", flat=True)) == ["T1"]
