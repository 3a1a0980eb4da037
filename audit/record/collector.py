"""The cyclic garbage collector's policy: one place, for every process of the project.

Python frees most objects by reference counting; the *cyclic* collector is only for
objects that refer to one another in a cycle. It runs a young collection every time the
number of container objects (dicts, lists, class instances, ...) allocated and not yet
freed grows by generation 0's threshold - 700 by default - and every so often an older
one, up to a full collection that walks every object the process holds: Django, the
charts, the caches. Bulk work (an ingest, a replay, the simulator dealing a round of
10,000 bettors) makes hundreds of thousands of long-lived containers, and at 700 the
collector walks them again and again for almost no garbage (docs/performance.md, "The
collector").

The policy:

- :func:`bulk_work` - around a bulk phase, generation 0's threshold is raised to
  :data:`BULK_THRESHOLD` (never lowered; the older generations' thresholds are kept),
  and put back when the phase ends, also on an exception. Nestable, and safe across
  threads: the thresholds in force are the process's (outside any block) raised to the
  largest of the blocks open now, in whatever thread and order they end. A threshold of
  0 (the collector turned off) is left as it is.
- :func:`acyclic_work` - around a bulk phase that makes no cyclic garbage that grows
  with its work (measured, and tested for each phase that uses it: ingest, a table's
  replay), automatic collection is paused: a young collection there walks every object
  the phase holds for nothing to find (docs/performance.md, "The collector"). Nested and
  across threads as above: while any such block is open, generation 0's threshold is 0. What the phase makes is freed by
  reference counting as always; what is still alive when the block ends is walked once by
  the next young collection, so a caller ends the block once the phase's results are let
  go (a table's fold, once its rows are written).
- :func:`freeze_startup` - once, after a long-running process has started (a Celery
  worker process, the web server's application): one full collection, then
  ``gc.freeze()``, so that later full collections skip the start-up heap (the modules,
  Django's settings, apps and models) instead of walking it each time.

Memory stays bounded: the threshold counts container allocations, so a block still
collects, only every :data:`BULK_THRESHOLD` net allocations rather than every 700 - the
cyclic garbage waiting at any moment is at most that many containers (a few MiB to a
few tens of MiB at the sizes this code makes; measured in docs/performance.md).
Everything that is not in a cycle is freed at once by reference counting, as always.

Pure (the standard library only): the offline auditor uses it too.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# generation 0's threshold in a bulk phase: container allocations between young collections
BULK_THRESHOLD = 100_000
# what an acyclic phase asks for: no automatic collection while it is open
PAUSE = 0

_lock = threading.Lock()
# the thresholds outside every block (taken when the first block opens), and the
# threshold each open block asked for
_outside: tuple[int, int, int] | None = None
_open: list[int] = []


def _apply() -> None:
    if _outside is None:
        return
    first, second, third = _outside
    if _open and first:  # 0: the collector is off; leave it off
        first = PAUSE if PAUSE in _open else max(first, *_open)
    gc.set_threshold(first, second, third)


@contextmanager
def bulk_work(threshold: int = BULK_THRESHOLD) -> Iterator[None]:
    """Run the block with generation 0's threshold at least ``threshold``; the
    thresholds before it are back when the last open block ends (see the module)."""
    if threshold <= PAUSE:
        raise ValueError(
            "a bulk block's threshold is positive: acyclic_work() pauses the collector"
        )
    with _block(threshold):
        yield


@contextmanager
def acyclic_work() -> Iterator[None]:
    """Run the block with automatic collection paused (generation 0's threshold 0), for a
    phase that makes no cyclic garbage that grows with its work (see the module); the
    thresholds before it are back when the last open block ends."""
    with _block(PAUSE):
        yield


@contextmanager
def _block(threshold: int) -> Iterator[None]:
    global _outside
    with _lock:
        if not _open:
            first, second, third = gc.get_threshold()
            _outside = (first, second, third)
        _open.append(threshold)
        _apply()
    try:
        yield
    finally:
        with _lock:
            _open.remove(threshold)
            _apply()
            if not _open:
                _outside = None


def freeze_startup() -> None:
    """After a long-running process's start-up: collect once, then move every object
    alive to the collector's permanent generation (``gc.freeze``), which its collections
    no longer walk. What is frozen is never collected: call it once, when what the
    process holds is its start-up heap (its modules and settings), not a request's."""
    gc.collect()
    gc.freeze()
