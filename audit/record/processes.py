"""What this process may do with processes of its own: the one answer for every fan-out
of the project (the back-office's per-table fan-out, the offline auditor's workers, the
house edge's up cards). Pure (the standard library only).

- :func:`cpus` - the processors this process may run on (its affinity, where the
  platform says; else the machine's count);
- :func:`can_fork` - whether it may fork workers: the platform has ``fork``, and this
  process is not a daemon (a Celery prefork worker's child, a pool's worker), which may
  not start processes of its own.
"""
from __future__ import annotations

import multiprocessing
import os

__all__ = ["can_fork", "cpus"]


def cpus() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether this process may fork workers (see the module)."""
    return "fork" in multiprocessing.get_all_start_methods() and not multiprocessing.current_process().daemon
