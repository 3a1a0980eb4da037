"""A whole day's replay on a real Celery worker, through a real broker (Redis if it
answers, else CELERY_TEST_BROKER or kombu's filesystem transport): one task per table
gathered by a chord, with the same findings as the same replay run eagerly here."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from audit.models import Finding, ReplayRun
from casino.celery import app
from tables.tasks import replay_day_task
from tests.celery_worker import ROOT, celery_worker

from .helpers import DAY, append, append_short_paid, dealt, engine_findings, plant_short_pay


@pytest.fixture
def worker(tmp_path):
    """A worker process on a queue of its own, and ``send(task_name, *args)``."""
    with celery_worker(tmp_path, PROJECT_ON_APPEND="false") as send:
        yield send


def _findings() -> list[tuple]:
    return sorted(
        Finding.objects.values_list(
            "fingerprint", "kind", "stream", "round", "bet", "expected", "recorded"
        )
    )


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_a_day_replayed_by_a_worker_gives_what_eager_mode_gives(worker, settings):
    settings.PROJECT_ON_APPEND = False
    faults = append_short_paid(
        (("T1", "hoyle"), ("T2", "it-classic"), ("T3", "vegas-6to5-single-deck")),
        rounds=25,
        seed="w",
    )
    parent_id = worker("tables.tasks.replay_day", DAY.isoformat(), True).get(timeout=90)
    deadline = time.monotonic() + 90
    while ReplayRun.objects.get(pk=parent_id).status == "running":
        assert time.monotonic() < deadline, "the chord did not finish"
        time.sleep(0.2)
    parent = ReplayRun.objects.get(pk=parent_id)
    assert parent.status == "done" and parent.tables_done == 3 and parent.children.count() == 3
    assert parent.summary["tables"] == ["T1", "T2", "T3"]
    remote = _findings()
    assert sorted((f[2], f[3], f[4]) for f in remote) == sorted(
        (t, f["round"], f["bet"]) for t, f in faults
    )
    # the same day eagerly, from nothing: the same findings
    Finding.objects.all().delete()
    eager = ReplayRun.objects.get(
        pk=app.tasks[replay_day_task.name].apply(args=[DAY.isoformat(), True]).get()
    )
    assert eager.summary["open_by_kind"] == parent.summary["open_by_kind"] == {"wrong_payout": 3}
    assert _findings() == remote


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_the_replay_day_command_runs_its_chord_on_a_worker_through_a_broker(worker, settings):
    """manage.py replay_day in a process with CELERY_BROKER_URL set sends the day's chord
    to the worker (its tasks are registered in every process, not only in workers), follows
    the parent run and prints the summary."""
    settings.PROJECT_ON_APPEND = False
    faults = {}
    for index, table in enumerate(("T1", "T2")):
        events = dealt("hoyle", rounds=20, table=table, seed=f"c{index}")
        faults[table] = plant_short_pay(events)
        append(table, events)
    done = subprocess.run(
        [sys.executable, "manage.py", "replay_day", "--day", DAY.isoformat(), "--timeout", "120"],
        cwd=ROOT,
        env=worker.env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "T1: 20 rounds replayed, 1 finding (1 new, 0 superseded)" in done.stdout
    assert "T2: 20 rounds replayed, 1 finding (1 new, 0 superseded)" in done.stdout
    assert "findings by kind: wrong_payout 2" in done.stdout
    parent = ReplayRun.objects.get(parent__isnull=True)
    assert (parent.trigger, parent.status, parent.tables_done) == ("command", "done", 2)
    assert sorted(Finding.objects.values_list("stream", "round")) == [
        (t, f["round"]) for t, f in sorted(faults.items())
    ]


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_after_an_ingest_a_worker_brings_the_read_models_up(worker, tmp_path):
    """manage.py ingest in a process with a broker publishes once it has committed; the
    worker runs the projections' subscriber; the rounds and the planted fault's finding
    are there without any replay_day."""
    from audit.feed.subscribers import feed_head
    from audit.models import SubscriberPosition
    from tables import models as m

    from .test_feed import write_jsonl

    events = dealt("hoyle", rounds=20, table="T1")
    fault = plant_short_pay(events)
    path = write_jsonl(tmp_path / "day.jsonl", events, dealt("it-classic", rounds=20, table="T2"))
    done = subprocess.run(
        [sys.executable, "manage.py", "ingest", str(path)],
        cwd=ROOT,
        env={**worker.env, "PROJECT_ON_APPEND": "true"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    head = feed_head()
    deadline = time.monotonic() + 90
    while SubscriberPosition.objects.filter(name="tables.projections", position=head).count() == 0:
        assert time.monotonic() < deadline, "the worker did not catch up"
        time.sleep(0.2)
    assert (
        m.Round.objects.filter(table__stream="T1").count()
        == m.Round.objects.filter(table__stream="T2").count()
        == 20
    )
    # the replay's findings only: the ledger's subscriber reconciles the closed days on its
    # own time (and a 20-round day of random play falls outside its theoretical interval)
    assert list(engine_findings().values_list("stream", "round", "bet")) == [
        ("T1", fault["round"], fault["bet"])
    ]
    # no replay_day ran: the feed's runs, and the ledger's once it reconciles
    assert (
        {"feed"}
        <= set(ReplayRun.objects.values_list("trigger", flat=True))
        <= {"feed", "reconciliation"}
    )
