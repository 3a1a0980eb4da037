"""Read models people act on, checked against the events that make them.

A finding's status, a day's sign-off, an alert's acknowledgement, an ingest's run: each
is a row the application may write, and each change of it is also an event of a server
stream (``audit.findings``, ``audit.ledger``, ``audit.alerts``, ``audit.ingest``) -
sealed, chained and covered by the signed tree heads. The row is what screens and
commands read; the events are what holds. So each such read model declares here
(:func:`register`, from its app's ``AppConfig.ready``) how its rows follow from its
events - a fold of the stream in version order, :attr:`Derived.derive` - and this
module compares the two:

- :func:`derived_disagreements` (``manage.py verify``, a step of its own): every row
  that differs from what its events make it, naming the row and each field, and every
  row the events make that is missing; a row no event made, where every row must have
  one, is named too.
- :func:`derived_restore` (``manage.py rebuild_projections``): each such row written as
  its events make it (a missing one made again where the read model can make it).

Both take a ``table``: only the rows of that table's stream (``rebuild_projections
--stream``), by the field each read model names it with (:attr:`Derived.table_field`).

The services write a row and append its event in one transaction, so on an untouched
database the two agree; a row changed behind the services' back (an UPDATE by anyone
who may write the table - the application's own database role included) is named by
``verify`` and put right by ``rebuild_projections``. Tests: ``tests/audit/test_derived.py``
(the application's role on PostgreSQL changes each kind of row).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from django.db import models, transaction

from audit.models import Event
from audit.record.events import LIFTED, current_form

Fields = dict[str, Any]


def server_events(stream: str, types: Iterable[str] | None = None) -> Iterator[Event]:
    """A server stream's events in version order (``types``: only these), each payload in
    its type's current form (:func:`audit.record.events.current_form`; the instance's
    ``payload`` and ``schema_version`` as read, never saved: events are not updated)."""
    events = Event.objects.filter(stream=stream)
    if types is not None:
        events = events.filter(type__in=list(types))
    for event in events.order_by("version").iterator(chunk_size=2000):
        if event.type in LIFTED:
            event.schema_version, event.payload = current_form(
                event.type, event.schema_version, event.payload
            )
        yield event


def _shown(value: object) -> str:
    if isinstance(value, Enum):  # a model's choices: shown by their stored value
        value = value.value
    if value is None:
        return "none"
    if isinstance(value, datetime):
        return value.isoformat()
    if value == "":
        return "blank"
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True, slots=True)
class Disagreement:
    """One field of one row that is not what its events make it (``field`` blank: the
    row itself is missing, or has no event)."""

    what: str  # the read model and the row, e.g. "finding 12 (BJ-01 2026-11-29 short_pay)"
    field: str
    row: object
    events: object

    def __str__(self) -> str:
        if not self.field:
            return f"{self.what}: {self.row}, but {self.events}"
        return f"{self.what}: {self.field} is {_shown(self.row)} in the row, {_shown(self.events)} by its events"


@dataclass(frozen=True)
class Derived:
    """A read model whose rows follow from one server stream's events.

    ``derive()`` folds the events into ``{key: {field: value}}`` for the rows they make;
    ``key(row)`` is a row's key; ``describe(row)`` names it for people.
    ``unevented``: the fields of a row no event touched (a finding never acted on is
    open, with no note), or None when every row must have events (a sign-off).
    ``candidates(derived)``: the rows worth comparing (default: every row) - a table
    with many untouched rows passes only those not at ``unevented`` and those the
    events name. ``create(key, fields)``: make a missing row again, or None when the
    read model cannot (a finding comes from its check's replay, not from its status).
    ``after(keys)``: called once the restore has committed, with the keys of the rows
    it wrote or made again - what else follows from them is brought up to date there (an
    exchange rate: the books of its day folded again).
    ``table_field``: the row's field that names its table's stream, None for a read model
    of no one table (an exchange rate: checked and restored by the whole check only);
    ``table_of(key)``: the table a key's row belongs to, where the key says it (a
    sign-off's), else None - a missing row of an unknown table is then named by the
    whole check only.
    """

    name: str
    model: type[models.Model]
    fields: tuple[str, ...]
    derive: Callable[[], Mapping[Hashable, Fields]]
    key: Callable[[Any], Hashable]
    describe: Callable[[Any], str]
    describe_key: Callable[[Hashable], str]
    unevented: Fields | None = None
    candidates: Callable[[Mapping[Hashable, Fields]], models.QuerySet[Any]] | None = None
    create: Callable[[Hashable, Fields], object] | None = None
    after: Callable[[list[Hashable]], object] | None = None
    table_field: str | None = "stream"
    table_of: Callable[[Hashable], str] | None = None

    def _rows(self, derived: Mapping[Hashable, Fields], table: str | None) -> Iterator[Any]:
        rows = (
            self.candidates(derived)
            if self.candidates is not None
            else self.model._default_manager.all()
        )
        if table is not None:
            rows = rows.filter(**{self.table_field: table})
        return rows.order_by("pk").iterator(chunk_size=2000)

    def compare(
        self, table: str | None = None
    ) -> Iterator[tuple[Any, Hashable, Fields | None, list[Disagreement]]]:
        """Each row that disagrees (of ``table`` only, when given): (row or None when
        missing, key, the fields its events make or None, the disagreements)."""
        if table is not None and self.table_field is None:
            return  # no one table's rows
        derived = dict(self.derive())
        for row in self._rows(derived, table):
            key = self.key(row)
            wanted = derived.pop(key, None)
            what = f"{self.name} {self.describe(row)}"
            if wanted is None and self.unevented is None:
                yield (
                    row,
                    key,
                    None,
                    [Disagreement(what, "", "the row is there", "no event made it")],
                )
                continue
            expected = {**(self.unevented or {}), **(wanted or {})}
            found = [
                Disagreement(what, name, getattr(row, name), expected[name])
                for name in self.fields
                if name in expected and getattr(row, name) != expected[name]
            ]
            if found:
                yield row, key, expected, found
        for key, wanted in derived.items():
            if table is not None and (self.table_of is None or self.table_of(key) != table):
                continue  # another table's row, or one whose table the key does not say
            what = f"{self.name} {self.describe_key(key)}"
            yield (
                None,
                key,
                wanted,
                [Disagreement(what, "", "its events make a row", "there is none")],
            )


_REGISTERED: dict[str, Derived] = {}


def register(derived: Derived) -> None:
    """Declare a read model to check (an app's ``AppConfig.ready``; again: replaced)."""
    _REGISTERED[derived.name] = derived


def registered() -> list[Derived]:
    return list(_REGISTERED.values())


def derived_disagreements(table: str | None = None) -> list[Disagreement]:
    """Every disagreement of every registered read model with its events (of the rows of
    ``table`` only, when given)."""
    return [
        found
        for derived in registered()
        for *_, disagreements in derived.compare(table)
        for found in disagreements
    ]


@dataclass
class Restored:
    """What :func:`derived_restore` did, per read model: rows written again as their
    events make them, rows made again, and what it could not restore."""

    written: dict[str, int] = field(default_factory=dict)
    made: dict[str, int] = field(default_factory=dict)
    left: list[Disagreement] = field(default_factory=list)


def derived_restore(table: str | None = None) -> Restored:
    """Write every disagreeing row (of ``table`` only, when given) as its events make it,
    in one transaction per read model; a missing row is made again where the read model
    can (``create``), else left and reported; a row no event made, where every row needs
    one, is left and reported (deleting rows is not a restore)."""
    done = Restored()
    for derived in registered():
        keys: list[Hashable] = []
        with transaction.atomic():
            for row, key, expected, found in list(derived.compare(table)):
                if row is None and expected is not None and derived.create is not None:
                    derived.create(key, expected)
                    done.made[derived.name] = done.made.get(derived.name, 0) + 1
                    keys.append(key)
                elif row is not None and expected is not None:
                    for name in derived.fields:
                        if name in expected:
                            setattr(row, name, expected[name])
                    row.save(update_fields=[name for name in derived.fields if name in expected])
                    done.written[derived.name] = done.written.get(derived.name, 0) + 1
                    keys.append(key)
                else:
                    done.left.extend(found)
        if keys and derived.after is not None:
            derived.after(keys)
    return done
