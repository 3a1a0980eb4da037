"""What this process may do with processes of its own, and the one way it makes a pool of
them: the answer for every fan-out of the project (ingest's planners, the back-office's
per-table fan-out, a file's replay, the offline auditor's workers, the house edge's up
cards, the simulator's tables). Pure (the standard library only).

- :func:`cpus` - the processors this process may run on (its affinity, where the
  platform says; else the machine's count);
- :func:`can_fork` - whether it may fork workers: the platform has ``fork``, and this
  process is not a daemon (a Celery prefork worker's child, a pool's worker), which may
  not start processes of its own;
- :func:`process_pool` - a pool of worker processes, forked where this process may fork,
  else spawned where the caller's work allows it; else none, and the caller works here.
  Each caller keeps its own count of workers, its own way of shutting the pool down, and
  its own path in this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

__all__ = ["can_fork", "cpus", "process_pool"]


def cpus() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether this process may fork workers (see the module)."""
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


def process_pool(
    workers: int, *, spawn: bool = False, initializer: Callable[[], object] | None = None
) -> ProcessPoolExecutor | None:
    """A pool of ``workers`` processes (at least one), each running ``initializer`` first.

    Forked where :func:`can_fork`: the workers inherit what this process has imported and
    computed, and what its module globals hold when the first task is submitted (the pool
    forks then, not here), so work that lives in a global or a closure needs no pickling.
    Where it cannot fork, ``spawn=True`` gives fresh interpreters (the work and its
    results pickled: for work that needs nothing inherited); otherwise, and in a daemon
    process (which may start none), None: the caller does the work in this process."""
    if can_fork():
        method = "fork"
    elif spawn and not multiprocessing.current_process().daemon:
        method = "spawn"
    else:
        return None
    return ProcessPoolExecutor(
        max(1, workers), mp_context=multiprocessing.get_context(method), initializer=initializer
    )
