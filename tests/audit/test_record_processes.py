"""The one process pool (audit.record.processes.process_pool): forked where this process
may fork, so a worker sees the globals its parent set before the first task; none in a
daemon process, whose work stays in it."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from audit.record import processes
from audit.record.processes import can_fork, process_pool

_SET_BEFORE_THE_FORK: str | None = None


def _inherited() -> tuple[str | None, int]:
    return _SET_BEFORE_THE_FORK, os.getpid()


@pytest.mark.skipif(not can_fork(), reason="this platform cannot fork")
def test_a_forked_worker_sees_what_the_parent_set_before_the_first_task(monkeypatch):
    monkeypatch.setattr(f"{__name__}._SET_BEFORE_THE_FORK", "set")
    pool = process_pool(2)
    assert pool is not None
    with pool:
        value, pid = pool.submit(_inherited).result()
    assert value == "set" and pid != os.getpid()


def test_a_daemon_gets_no_pool_and_works_in_its_own_process(monkeypatch):
    monkeypatch.setattr(
        multiprocessing.current_process(),
        "_config",
        {**multiprocessing.current_process()._config, "daemon": True},
    )
    assert process_pool(2) is None and process_pool(2, spawn=True) is None


def test_without_fork_only_work_that_needs_nothing_inherited_is_spawned(monkeypatch):
    monkeypatch.setattr(processes, "can_fork", lambda: False)
    assert process_pool(2) is None
    pool = process_pool(2, spawn=True)
    assert pool is not None
    with pool:
        assert pool._mp_context.get_start_method() == "spawn"
