"""Per-table work fanned out over processes on this machine, without a broker: a day's
replay (:mod:`tables.replay_service`) and a subscriber's catch-up over many tables
(:func:`audit.feed.subscribers.each_table`). With a broker the same work goes to Celery
workers instead; this is the in-process path.

Tables are independent (each writes its own rows, in its own short transactions), so a
process per core takes them in turn. The processes are forked, each opens its own
database connection and closes it when its table is done: the pool's processes outlive
a table, and the parent's database may not wait for them.

It runs the items one after another, here, when processes would be wrong or useless:
one job or one item; inside a transaction (other processes would not see its rows, and
its connection cannot be closed under it); in a daemon process (a Celery prefork
worker's child may not start processes); or where ``fork`` does not exist.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from django.db import connection, connections

from audit.record.processes import process_pool

__all__ = ["default_jobs", "fan_out"]

Item = TypeVar("Item")

# the work of the fan-out running now: the forked processes inherit it, so that any
# callable (a closure, a lambda) can be fanned out without being pickled
_work: Callable[[Any], Any] | None = None
_one_at_a_time = threading.Lock()


def default_jobs() -> int:
    """How many processes take a day's tables without a broker: one per core on
    PostgreSQL; one on SQLite, which takes one writer at a time."""
    return (os.cpu_count() or 1) if connection.vendor == "postgresql" else 1


def fan_out(work: Callable[[Item], Any], items: Sequence[Item], *, jobs: int) -> Iterator[Any]:
    """``work(item)`` for each item, in ``jobs`` forked processes (or here: above);
    results are yielded in the items' order as they come. What ``work`` raises is raised
    here, after the pool is shut down."""
    here = jobs <= 1 or len(items) <= 1 or connection.in_atomic_block
    # forked or none: the processes inherit the work (_work)
    pool = None if here else process_pool(min(jobs, len(items)))
    if pool is None:
        for item in items:
            yield work(item)
        return
    global _work
    with _one_at_a_time:
        _work = work
        try:
            # no connection may be inherited open: each process opens its own
            connections.close_all()
            with pool:
                yield from pool.map(_run, items)
        finally:
            _work = None


def _run(item: Any) -> Any:
    """In a forked process: one item, then its connection closed."""
    assert _work is not None, "fan_out's work is set before its processes are forked"
    try:
        return _work(item)
    finally:
        connections.close_all()
