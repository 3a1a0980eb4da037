"""Real workers that die: a worker killed with SIGKILL in the middle of a day's replay
(the day completes on the other, with the findings of a clean run), and a worker killed
and restarted while appends go on (the feed's subscribers catch up). PostgreSQL and a
real broker (Redis and RabbitMQ); a small day through the fan-out as a smoke test.

Redis gives a dead consumer's unacknowledged message back after the transport's
``visibility_timeout`` (set short here); RabbitMQ as soon as the connection drops."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from audit.feed.subscribers import feed_head, registered
from audit.models import Finding, ReplayRun, SubscriberPosition
from tables import models as m
from tables.projections import first_difference, rebuild, snapshot
from tables.replay_service import WORKER_LOST, replay_day_here
from tests.celery_worker import ROOT, celery_worker, node, start_worker, stop_worker

from .helpers import DAY, append, dealt, engine_findings, plant_short_pay

REDIS = os.environ.get("CELERY_TEST_BROKER", "redis://127.0.0.1:6379/15")
if not REDIS.startswith("redis://"):
    REDIS = "redis://127.0.0.1:6379/15"
RABBITMQ = os.environ.get("CELERY_TEST_AMQP", "amqp://guest:guest@127.0.0.1:5672//")
# a dead worker's task comes back this soon on Redis (kombu checks every 10 s or so)
REDIS_OPTIONS = json.dumps({"visibility_timeout": 5})

pytestmark = pytest.mark.broker

BROKERS = [pytest.param("redis", id="redis"), pytest.param("amqp", id="rabbitmq")]


def _reachable(url: str) -> bool:
    from kombu import Connection

    try:
        with Connection(url, connect_timeout=2) as connection:
            connection.ensure_connection(max_retries=1)
        return True
    except OSError:  # kombu's OperationalError is one
        return False


@pytest.fixture
def brokered(request, tmp_path, settings):
    """``worker(**env)``: a worker on a queue of its own through the broker of the
    parameter (results in Redis, which a chord needs)."""
    settings.PROJECT_ON_APPEND = False
    url = REDIS if request.param == "redis" else RABBITMQ
    if not _reachable(url):
        pytest.skip(f"no broker answers at {url}")
    options = REDIS_OPTIONS if request.param == "redis" else "{}"

    def worker(**env: str):
        return celery_worker(
            tmp_path, broker=url, backend=REDIS, CELERY_BROKER_TRANSPORT_OPTIONS=options, **env
        )

    return worker


def _findings() -> list[tuple]:
    return sorted(
        Finding.objects.filter(superseded_by__isnull=True).values_list(
            "fingerprint", "kind", "stream", "round", "bet", "expected", "recorded"
        )
    )


def _wait(condition, what: str, timeout: float = 180, every: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(every)


def _day(tables: int, rounds: int) -> list[tuple[str, dict]]:
    faults = []
    for index in range(tables):
        table = f"T{index + 1}"
        events = dealt(
            ("hoyle", "it-classic", "vegas-s17-das-ls")[index % 3],
            rounds=rounds,
            table=table,
            seed=f"k{index}",
        )
        faults.append((table, plant_short_pay(events)))
        append(table, events)
    return faults


@pytest.mark.parametrize("brokered", BROKERS, indirect=True)
@pytest.mark.django_db(transaction=True)
def test_a_small_day_through_the_fan_out_on_a_real_worker(brokered):
    """The smoke test CI runs: the chord on a worker, every table done, its findings."""
    faults = _day(tables=3, rounds=15)
    with brokered(PROJECT_ON_APPEND="false") as send:
        parent_id = send("tables.tasks.replay_day", DAY.isoformat(), True).get(timeout=120)
        _wait(
            lambda: ReplayRun.objects.get(pk=parent_id).status != "running",
            "the chord did not finish",
        )
    parent = ReplayRun.objects.get(pk=parent_id)
    assert (parent.status, parent.tables_total, parent.tables_done, parent.rounds) == (
        "done",
        3,
        3,
        45,
    )
    assert sorted((f[2], f[3], f[4]) for f in _findings()) == sorted(
        (t, f["round"], f["bet"]) for t, f in faults
    )


@pytest.mark.parametrize("brokered", BROKERS, indirect=True)
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_in_the_middle_of_a_day_the_day_completes_with_a_clean_runs_findings(
    brokered, on_postgres
):
    _day(tables=6, rounds=200)
    with brokered(PROJECT_ON_APPEND="false") as send:
        second = start_worker(send.env, send.queue)
        try:
            nodes = [node(send.queue, "a"), node(send.queue, "b")]
            _wait(
                lambda: len(send.client.control.ping(destination=nodes, timeout=0.5)) == 2,
                "the two workers did not start",
            )
            parent_id = send("tables.tasks.replay_day", DAY.isoformat(), True).get(timeout=120)
            # each worker holds one table at a time (late acks, prefetch 1): when two
            # tables are being replayed at once, the second worker has one of them
            # (a table of 200 rounds replays in a tenth of a second or so: looked for often)
            _wait(
                lambda: (
                    ReplayRun.objects.filter(parent_id=parent_id, status="running").count() >= 2
                ),
                "two tables never ran at once",
                every=0.005,
            )
            second.send_signal(signal.SIGKILL)
            second.wait(timeout=30)
            _wait(
                lambda: ReplayRun.objects.get(pk=parent_id).status != "running",
                "the day did not complete",
                300,
            )
        finally:
            stop_worker(second)
    parent = ReplayRun.objects.get(pk=parent_id)
    assert (parent.status, parent.tables_total, parent.tables_done) == ("done", 6, 6)
    assert parent.summary["tables"] == [f"T{n}" for n in range(1, 7)]
    children = parent.children.all()
    assert sorted(c.stream for c in children if c.status == "done") == [
        f"T{n}" for n in range(1, 7)
    ]
    lost = [c for c in children if c.status != "done"]
    # the killed worker's table, where it was still replaying it (it may have finished it
    # just before the signal: then the table came back done and was answered, not counted)
    assert len(lost) <= 1 and all(c.status == "failed" and c.error == WORKER_LOST for c in lost)
    remote, projection = _findings(), snapshot()
    assert len(remote) == 6
    # a clean run, here, from nothing: the same findings and read models
    Finding.objects.all().delete()
    m.Table.objects.all().delete()
    clean = replay_day_here(day=DAY, full=True, jobs=1)
    assert clean["open_by_kind"] == parent.summary["open_by_kind"] == {"wrong_payout": 6}
    assert _findings() == remote
    assert snapshot() == projection


@pytest.mark.parametrize("brokered", BROKERS, indirect=True)
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_restarted_while_appends_go_on_the_subscribers_catch_up(brokered, on_postgres):
    """Appends in another process publish to the broker after each commit; the worker
    is killed with SIGKILL between them and a new one started: every subscriber of the
    feed reaches the head, and the read models are what a rebuild gives."""
    rounds, chunks = 60, 12
    events = dealt("hoyle", rounds=rounds, table="T1", seed="restart")
    fault = plant_short_pay(events)
    path = ROOT / "var" / f"appends-{os.getpid()}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(events))
    script = (
        "import django, json, sys, time; django.setup()\n"
        "from tests.back_office.helpers import append\n"
        f"events = json.load(open({str(path)!r}))\n"
        f"size = -(-len(events) // {chunks})\n"
        "for start in range(0, len(events), size):\n"
        "    append('T1', events[start:start + size])\n"
        "    print(start, flush=True)\n"
        "    time.sleep(0.5)\n"
    )
    try:
        with brokered(PROJECT_ON_APPEND="true") as send:
            appender = subprocess.Popen(
                [sys.executable, "-c", script],
                cwd=ROOT,
                env={**send.env, "PROJECT_ON_APPEND": "true"},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            first = start_worker(send.env, send.queue)
            try:
                for _ in range(3):  # some appends, then the worker dies
                    assert appender.stdout is not None and appender.stdout.readline()
                first.send_signal(signal.SIGKILL)
                first.wait(timeout=30)
                assert appender.stdout.readline()  # an append while no worker of this queue runs
                restarted = start_worker(send.env, send.queue)
                try:
                    _, errors = appender.communicate(timeout=180)
                    assert appender.returncode == 0, errors
                    head = feed_head()
                    names = [s.name for s in registered()]

                    def caught_up() -> bool:
                        positions = dict(
                            SubscriberPosition.objects.filter(name__in=names).values_list(
                                "name", "position"
                            )
                        )
                        return all(positions.get(name) == head for name in names)

                    _wait(caught_up, "the subscribers did not catch up after the restart")
                finally:
                    stop_worker(restarted)
            finally:
                stop_worker(first)
    finally:
        path.unlink(missing_ok=True)
    assert m.Round.objects.filter(table__stream="T1").count() == rounds
    assert m.Table.objects.get(stream="T1").projected_version == len(events)
    # the engine's (the ledger's reconciliation of the same day may add its own)
    assert list(engine_findings().values_list("stream", "round", "bet")) == [
        ("T1", fault["round"], fault["bet"])
    ]
    live, rebuilt = rebuild()
    assert first_difference(live, rebuilt) is None
