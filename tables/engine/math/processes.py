"""How many processes the exact house edge may use: the one place that decides.

:func:`.cdz.deal_values` analyses the ten up cards apart (each its own walk of the
dealer's odds, its own hands and splits), so from nothing it can share them among
processes forked for the purpose. The figures are the same floats either way: every up
card is computed by the same code from the same inputs, and the deals are merged in
their serial order.

:func:`processes` is 1 - everything in this process, one up card after another - when

* this process is a daemon (``multiprocessing.current_process().daemon``: a Celery
  prefork worker's child, a pool's worker), which may not start processes of its own;
* the platform cannot fork (the workers inherit the chart and the caches by fork: they
  are not sent);
* the environment variable :data:`ENV` says ``1`` (or ``0``, or is empty);
* only one CPU is available to this process (and :data:`ENV` is not set).

Otherwise it is :data:`ENV`'s whole number if set (any number: more than the CPUs only
shares them), else the CPUs available, at most :data:`DEFAULT_LIMIT`. :func:`.cdz.deal_values`
falls back to one process too where the processes cannot be made (``OSError``) or one
dies.
"""

from __future__ import annotations

import os

from audit.record.processes import can_fork, cpus

ENV = "BLACKJACK_MATH_PROCESSES"
DEFAULT_LIMIT = 2  # the ten up cards are unequal: past a few processes the largest one decides


def processes() -> int:
    """How many processes to analyse a rule set's up cards in (1: in this one)."""
    if not can_fork():
        return 1
    asked = os.environ.get(ENV)
    if asked is not None:
        try:
            return max(1, int(asked.strip() or "1"))
        except ValueError:
            raise ValueError(f"{ENV} must be a whole number of processes, not {asked!r}") from None
    return max(1, min(cpus(), DEFAULT_LIMIT))
