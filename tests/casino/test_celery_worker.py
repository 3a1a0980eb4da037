"""The Celery wiring with a real broker (Redis) and a real worker process."""

from __future__ import annotations

import pytest

from audit.store.streams import events_append
from audit.tasks import verify_chains_task
from tests.samples import round_events

from ..audit.tampering import tamper
from ..celery_worker import celery_worker


@pytest.fixture
def worker(tmp_path):
    with celery_worker(tmp_path) as send:
        yield send


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
    assert (
        remote["events"] == 49 and len(remote["problems"]) == 2
    )  # the gap, and no signed head anywhere
    assert "T2: first bad event is version 8" in remote["problems"][0]
    assert "no trusted signed head found" in remote["problems"][1]
