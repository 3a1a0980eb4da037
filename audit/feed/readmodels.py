"""The one runner of the read models of tables: the stream's gaming days, the folds kept
in memory, and the feed's subscriber that brings every table a batch touches up to date.

**The day index.** A table's stream is cut into gaming days by its ``table.opened``
events (:func:`openings`): a day runs from an opening to the event before the next one;
the events before the first opening are a day of their own, the gaming day of the
first event's moment (:func:`segments`). An opening whose gaming day is no date (stored
past the catalogue's check) that a correction strikes *holds* what follows it to the
next opening in no gaming day (:func:`audit.record.corrections.holds_day`): the read
models leave those versions out, the ledger reports them. Unstruck, such an opening is
a day no reader can take: the tables' projection fails on it (and its table is set
aside), the ledger's books leave it out. The tables' projection reads the index by
:class:`Segment` (versions ``first``..``last``); the ledger's books by opening
(:func:`day_at`).

**The folds kept.** A read model keeps its last folds in a :class:`FoldCache`, so that
its next fold of the same table (or day) in this process - eagerly, one after every
append - goes on from where the last one stopped instead of folding again. A kept fold
is used once, and only while the stream's event at the version it folded still has the
hash it folded - the chain makes that hash stand for the whole prefix - in the same
database.

**The subscriber.** A read model of tables is a :class:`ReadModel`: its name on the feed
and ``project(stream=..., cache=...)``, which folds what is new in one table's stream (going on
from the folds in ``cache``) outside any transaction and writes the table-days it owns
in one short transaction (:func:`write_owned`). Its subscriber runs it for every table a
batch touches (:func:`audit.feed.subscribers.each_table`: one table that fails does not stop
the others). The tables' projection (:mod:`tables.feed`) and the ledger's books
(:mod:`ledger.feed`) are two.

The day index is tested through its readers (``tests/engine/test_struck_opening.py``,
``tests/back_office/test_set_aside.py``, the ledger's tests); the cache in
``tests/audit/test_readmodels.py``.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Generic, TypeVar

from django.db import connection, transaction

from audit.access.authority import unreadable_opening_struck
from audit.models import Event
from audit.record.corrections import is_gaming_day
from audit.store.gaming_day import gaming_day as gaming_day_of

from .subscribers import Batch, Subscriber, each_table

T = TypeVar("T")
W = TypeVar("W")


# --- the day index --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opening:
    """A ``table.opened`` of a stream: its version, its payload and its gaming day
    (None: no date). ``held``: of no date and struck - what follows it to the next
    opening is in no gaming day."""

    version: int
    payload: dict[str, Any]
    day: date | None
    held: bool = False

    @property
    def readable(self) -> bool:
        """Whether a reader takes it: a day, or a stretch held in none."""
        return self.day is not None or self.held


def openings(stream: str, *, known: Collection[int] = (), after: int = 0) -> list[Opening]:
    """The stream's ``table.opened`` events, in order. ``known``: the versions of the
    openings already indexed up to version ``after`` (a read model's days): only later
    versions are searched for an opening (an index range, not the whole stream), and
    before them any that starts no known day (an opening of no date, struck: it holds its
    versions; none, nearly always)."""
    rows = Event.objects.filter(stream=stream, type="table.opened")
    found: list[tuple[int, dict[str, Any]]] = []
    if known:
        found += rows.filter(version__in=list(known)).values_list("version", "payload")
    found += rows.filter(version__gt=after).order_by("version").values_list("version", "payload")
    if after:
        found += [
            (v, p)
            for v, p in rows.filter(version__lte=after)
            .exclude(version__in=[v for v, _ in found])
            .values_list("version", "payload")
            if not is_gaming_day(p.get("gaming_day"))
        ]
    found.sort(key=lambda row: row[0])
    result = []
    for version, payload in found:
        text = payload.get("gaming_day")
        if isinstance(text, str) and is_gaming_day(text):
            result.append(Opening(version, payload, date.fromisoformat(text)))
        else:
            # struck or not: asked only of an opening of no date
            result.append(
                Opening(version, payload, None, held=unreadable_opening_struck(stream, version))
            )
    return result


def day_at(starts: Sequence[tuple[int, T]], version: int) -> T | None:
    """The day of the start (version, day) that ``version`` follows, in ``starts``
    sorted by version; None before the first."""
    index = bisect.bisect_right([v for v, _ in starts], version) - 1
    return starts[index][1] if index >= 0 else None


@dataclass(frozen=True, slots=True)
class Segment:
    """One gaming day of a stream: versions ``first``..``last`` (inclusive). ``held``:
    not a day - the versions from a struck opening whose gaming day is no date to the
    next opening, which belong to no gaming day (``gaming_day`` None); the read models
    leave them out (the ledger reports them)."""

    stream: str
    gaming_day: date | None
    first: int
    last: int
    opened: dict[str, Any] | None  # the table.opened payload, None if the day has none
    held: bool = False


def segments(stream: str, *, known: Collection[int] = (), after: int = 0) -> list[Segment]:
    """The stream's gaming days, in order, up to its current head (``known``, ``after``:
    as :func:`openings`; a known version that is no opening - the first, before any - is
    found again)."""
    head = (
        Event.objects.filter(stream=stream)
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    )
    if head is None:
        return []
    starts: list[tuple[int, Opening | None]] = [
        (o.version, o) for o in openings(stream, known=known, after=after)
    ]
    if not starts or starts[0][0] > 1:
        starts.insert(0, (1, None))
    result = []
    for index, (first, opening) in enumerate(starts):
        last = starts[index + 1][0] - 1 if index + 1 < len(starts) else head
        if opening is not None and opening.held:
            result.append(Segment(stream, None, first, last, opening.payload, held=True))
            continue
        if opening is not None:
            # of no date and unstruck, a day no reader can take: this raises, and the
            # table is set aside
            day = date.fromisoformat(opening.payload["gaming_day"])
        else:
            moment = (
                Event.objects.filter(stream=stream, version=first)
                .values_list("occurred_at", flat=True)
                .first()
            )
            assert moment is not None
            day = gaming_day_of(moment)
        result.append(
            Segment(stream, day, first, last, opening.payload if opening is not None else None)
        )
    return result


# --- the folds kept in memory ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Kept(Generic[T]):
    """A fold handed over at version ``version`` of its stream, whose event had
    ``head_hash``, in ``database``."""

    database: tuple[str, str]
    version: int
    head_hash: str
    fold: T


def _database() -> tuple[str, str]:
    return connection.alias, connection.settings_dict["NAME"]


def _hash_at(stream: str, version: int) -> str | None:
    found: str | None = (
        Event.objects.filter(stream=stream, version=version).values_list("hash", flat=True).first()
    )
    return found


class FoldCache(Generic[T]):
    """The folds a read model kept, of up to ``size`` tables or days (the least recently
    kept out first; none with ``size`` 0), each by its stream and, for a read model that
    folds a day at a time, the day's first version. Owned by the read model's subscriber
    (its feed module's ``CACHE``); thread-safe."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[str, int | None], _Kept[T]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def take(
        self,
        stream: str,
        *,
        version: int,
        day: int | None = None,
        fits: Callable[[T], bool] = lambda fold: True,
    ) -> T | None:
        """Take out the fold kept of ``stream`` (its ``day``): it when it stands at
        ``version`` and ``fits``, in this database, and the stream's event there still
        has the hash it folded; else None (a fold of no use is dropped)."""
        with self._lock:
            kept = self._kept.pop((stream, day), None)
        if (
            kept is None
            or kept.version != version
            or not fits(kept.fold)
            or kept.database != _database()
        ):
            return None
        return kept.fold if _hash_at(stream, version) == kept.head_hash else None

    def put(
        self,
        stream: str,
        fold: T,
        *,
        version: int,
        day: int | None = None,
        head_hash: str | None = None,
    ) -> None:
        """Keep ``fold`` of ``stream`` (its ``day``), folded up to ``version`` whose
        event has ``head_hash`` (None: read from the store)."""
        if self.size <= 0:
            return
        kept = _Kept(
            _database(),
            version,
            head_hash if head_hash is not None else _hash_at(stream, version) or "",
            fold,
        )
        with self._lock:
            self._kept.pop((stream, day), None)
            while len(self._kept) >= self.size:
                self._kept.popitem(last=False)
            self._kept[(stream, day)] = kept


# --- the subscriber and the write -----------------------------------------------------------


class ReadModel(Generic[T]):
    """A read model of tables on the global feed: subscriber ``name`` (registered from
    its app's ``ready()``: ``register(READ_MODEL.subscriber)``) runs ``project(stream=...,
    cache=...)`` for every table a batch touches, with the folds it keeps (:attr:`cache`,
    ``size`` of them). ``what`` names the work in a failure's message."""

    def __init__(
        self, name: str, project: Callable[..., object], *, what: str, size: int = 16
    ) -> None:
        self.name = name
        self.what = what
        self.cache: FoldCache[T] = FoldCache(size)
        self._project = project
        self.subscriber = Subscriber(name, self.handle)

    def project(self, stream: str) -> object:
        """Bring ``stream``'s read model up to its head."""
        return self._project(stream=stream, cache=self.cache)

    def handle(self, batch: Batch) -> None:
        each_table(batch, self.project, what=self.what)


def write_owned(claim: Callable[[], W | None], write: Callable[[W], object]) -> bool:
    """The one short write of a fold: in one transaction, ``claim()`` the table's row
    (a compare-and-set or a row lock; None: another run got there first, and this fold
    is stale) and ``write(claimed)`` the table-days the fold owns. Whether it wrote."""
    with transaction.atomic():
        claimed = claim()
        if claimed is None:
            return False
        write(claimed)
        return True
