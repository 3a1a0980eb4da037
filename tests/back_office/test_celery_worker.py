"""A whole day's replay on a real Celery worker, through a real broker (Redis if it
answers, else CELERY_TEST_BROKER or kombu's filesystem transport): one task per table
gathered by a chord, with the same findings as the same replay run eagerly here."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pytest
from celery import Celery

from audit.models import Finding, ReplayRun
from audit.tasks import replay_day_task
from casino.celery import app
from tests.casino.test_celery_worker import ROOT, _broker, _database_url

from .helpers import DAY, append, dealt, plant_short_pay


@pytest.fixture
def worker(tmp_path):
    """A worker process on a queue of its own (as tests/casino/test_celery_worker.py),
    and a function that sends it a task with arguments."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    broker, backend, transport = _broker(tmp_path)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings", "DATABASE_URL": _database_url(),
           "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": backend, "PROJECT_ON_APPEND": "false",
           "CELERY_BROKER_TRANSPORT_OPTIONS": json.dumps(transport)}
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", "worker", "--pool=solo", "-Q", queue,
         "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    # not the current app: the project's (eager here) must stay the one shared tasks use
    client = Celery("test-client", broker=broker, backend=backend, set_as_current=False)
    client.conf.broker_transport_options = transport
    try:
        yield lambda name, *args: client.send_task(name, args=args, queue=queue)
    finally:
        client.close()
        process.terminate()
        try:
            output, _ = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        if process.returncode not in (0, -15):
            print(output)


def _findings() -> list[tuple]:
    return sorted(Finding.objects.values_list("fingerprint", "kind", "stream", "round", "bet", "expected", "recorded"))


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_a_day_replayed_by_a_worker_gives_what_eager_mode_gives(worker, settings):
    settings.PROJECT_ON_APPEND = False
    faults = []
    for index, (table, preset) in enumerate((("T1", "hoyle"), ("T2", "it-classic"), ("T3", "vegas-6to5-single-deck"))):
        events = dealt(preset, rounds=25, table=table, seed=f"w{index}")
        faults.append((table, plant_short_pay(events)))
        append(table, events)
    parent_id = worker("audit.tasks.replay_day", DAY.isoformat(), True).get(timeout=90)
    deadline = time.monotonic() + 90
    while ReplayRun.objects.get(pk=parent_id).status == "running":
        assert time.monotonic() < deadline, "the chord did not finish"
        time.sleep(0.2)
    parent = ReplayRun.objects.get(pk=parent_id)
    assert parent.status == "done" and parent.tables_done == 3 and parent.children.count() == 3
    assert parent.summary["tables"] == ["T1", "T2", "T3"]
    remote = _findings()
    assert sorted((f[2], f[3], f[4]) for f in remote) == sorted((t, f["round"], f["bet"]) for t, f in faults)
    # the same day eagerly, from nothing: the same findings
    Finding.objects.all().delete()
    eager = ReplayRun.objects.get(pk=app.tasks[replay_day_task.name].apply(args=[DAY.isoformat(), True]).get())
    assert eager.summary["open_by_kind"] == parent.summary["open_by_kind"] == {"wrong_payout": 3}
    assert _findings() == remote
