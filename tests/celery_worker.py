"""A real Celery worker process for tests, on a queue of its own, reading the test
database, and a client to send it tasks - without touching the project's app (eager in
tests).

The broker: CELERY_TEST_BROKER if set (CI sets Redis); else Redis if it answers; else
kombu's filesystem transport, so a laptop without Redis still runs a real worker."""

from __future__ import annotations

import json
import os
import socket
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
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "control_folder": str(folder / "control"),
    }
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


def start_worker(
    env: dict[str, str], queue: str, *, name: str = "b", pool: str = "solo"
) -> subprocess.Popen:
    """One more worker process on ``queue`` with a project process's environment ``env``
    (a Sender's): a test kills it, or runs several side by side. Its node name is
    ``{queue}-{name}@`` the host's (see :func:`node`)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "casino",
            "worker",
            f"--pool={pool}",
            "-Q",
            queue,
            "-n",
            f"{queue}-{name}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def node(queue: str, name: str) -> str:
    """The node name of the worker ``name`` on ``queue`` (a remote-control destination)."""
    return f"{queue}-{name}@{socket.gethostname()}"


def stop_worker(process: subprocess.Popen) -> None:
    """Stop a worker (warm shutdown), printing its output when it ended badly (a killed
    one's is not printed: the test killed it)."""
    process.terminate()
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
    if process.returncode not in (0, -15, -9):
        print(output)


@contextmanager
def celery_worker(
    tmp_path: Path, *, broker: str | None = None, backend: str | None = None, **env: str
) -> Iterator[Sender]:
    """Run a worker; yield ``send(task_name, *args)``. ``env`` adds settings for it;
    ``broker`` and ``backend`` (URLs) replace the ones chosen as the module says."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    if broker is not None:
        transport: dict = {}
        backend = backend or broker
    else:
        broker, chosen, transport = _broker(tmp_path)
        backend = backend or chosen
    # the worker's queue is its default one too, so that what it sends on (a chord's
    # body) and what a project process sends with this environment reach it
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker,
        "CELERY_RESULT_BACKEND": backend,
        "CELERY_BROKER_TRANSPORT_OPTIONS": json.dumps(transport),
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        **env,
    }
    process = start_worker(environment, queue, name="a")
    # not the current app: the project's (eager here) must stay the one shared tasks use
    client = Celery("test-client", broker=broker, backend=backend, set_as_current=False)
    client.conf.broker_transport_options = json.loads(
        environment["CELERY_BROKER_TRANSPORT_OPTIONS"]
    )
    try:
        yield Sender(client, queue, environment)
    finally:
        client.close()
        stop_worker(process)
