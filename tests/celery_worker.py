"""A real Celery worker process for tests, on a queue of its own, reading the test
database, and a client to send it tasks - without touching the project's app (eager in
tests).

The broker: CELERY_TEST_BROKER if set (CI sets Redis); else Redis if it answers; else
kombu's filesystem transport, so a laptop without Redis still runs a real worker."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from celery import Celery
from celery.result import AsyncResult
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
REDIS = "redis://127.0.0.1:6379/15"


def _broker(tmp_path: Path) -> tuple[str, str, dict]:
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


def database_url() -> str:
    """The test database as a DATABASE_URL for another process."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    host = db.get("HOST") or "127.0.0.1"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgresql://{auth}@{host}:{db.get('PORT') or 5432}/{db['NAME']}"


class Sender:
    """``send(task_name, *args)`` to the worker's queue; ``env``: the environment of a
    process of the project (``manage.py ...``) that sends its tasks to this worker."""

    def __init__(self, client: Celery, queue: str, env: dict[str, str]) -> None:
        self.client, self.queue, self.env = client, queue, env

    def __call__(self, name: str, *args: object) -> AsyncResult:
        return self.client.send_task(name, args=args, queue=self.queue)


@contextmanager
def celery_worker(tmp_path: Path, **env: str) -> Iterator[Sender]:
    """Run a worker; yield ``send(task_name, *args)``. ``env`` adds settings for it."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    broker, backend, transport = _broker(tmp_path)
    # the worker's queue is its default one too, so that what it sends on (a chord's
    # body) and what a project process sends with this environment reach it
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings", "DATABASE_URL": database_url(),
                   "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": backend,
                   "CELERY_BROKER_TRANSPORT_OPTIONS": json.dumps(transport),
                   "CELERY_TASK_DEFAULT_QUEUE": queue, **env}
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", "worker", "--pool=solo", "-Q", queue,
         "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "WARNING"],
        cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    # not the current app: the project's (eager here) must stay the one shared tasks use
    client = Celery("test-client", broker=broker, backend=backend, set_as_current=False)
    client.conf.broker_transport_options = transport
    try:
        yield Sender(client, queue, environment)
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
