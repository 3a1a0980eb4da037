"""The Celery wiring with a real broker (Redis) and a real worker process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from celery import Celery
from django.db import connection

from audit.samples import round_events
from audit.store import events_append
from audit.tasks import verify_chains_task

from ..audit.tampering import tamper

ROOT = Path(__file__).resolve().parents[2]
REDIS = "redis://127.0.0.1:6379/15"


def _broker(tmp_path: Path) -> tuple[str, str, dict]:
    """CELERY_TEST_BROKER if set (CI sets Redis); else Redis if it answers; else kombu's
    filesystem transport, so a laptop without Redis still runs a real worker process."""
    wanted = os.environ.get("CELERY_TEST_BROKER")
    if wanted is None:
        import redis

        try:
            redis.Redis.from_url(REDIS, socket_connect_timeout=1).ping()
            wanted = REDIS
        except redis.RedisError:
            wanted = "filesystem://"
    if wanted != "filesystem://":
        return wanted, wanted, {}
    folder = tmp_path / "broker"
    folder.mkdir()
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder),
               "control_folder": str(folder / "control")}
    return wanted, f"file://{tmp_path}", options


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    host = db.get("HOST") or "127.0.0.1"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgresql://{auth}@{host}:{db.get('PORT') or 5432}/{db['NAME']}"


@pytest.fixture
def worker(tmp_path):
    queue = f"test-{uuid.uuid4().hex[:8]}"
    broker, backend, transport = _broker(tmp_path)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings", "DATABASE_URL": _database_url(),
           "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": backend,
           "CELERY_BROKER_TRANSPORT_OPTIONS": json.dumps(transport)}
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", "worker", "--pool=solo", "-Q", queue,
         "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    # a client of its own, so the project's app (eager in tests) is left as it is
    client = Celery("test-client", broker=broker, backend=backend)
    client.conf.broker_transport_options = transport
    try:
        yield lambda name: client.send_task(name, queue=queue)
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


@pytest.mark.django_db(transaction=True)
def test_verify_task_on_a_real_worker_gives_what_eager_mode_gives(worker):
    """A verify run by a worker process through the broker finds the same problem as the
    same task run eagerly in this process."""
    for stream in ("T1", "T2"):
        events_append(stream=stream, expected_version=0, events=round_events(1))
    tamper("DELETE FROM audit_event WHERE stream = 'T2' AND version = 7")
    eager = verify_chains_task.apply().get()
    remote = worker(verify_chains_task.name).get(timeout=90)
    assert remote == eager
    assert remote["events"] == 49 and len(remote["problems"]) == 1
