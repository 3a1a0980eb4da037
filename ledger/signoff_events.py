"""A day's sign-off as its events make it: the :class:`~ledger.models.SignOff` row is a
read model of the stream ``audit.ledger`` (``ledger.signed_off``, ``ledger.reopened``),
folded here in version order; ``manage.py verify`` compares the rows with it and
``manage.py rebuild_projections`` writes them back from it (:mod:`audit.feed.derived`).

Each event type has its applier, ``APPLIED[type](fields, event) -> fields``. A new field
of ``ledger.signed_off`` that the row keeps is one line of :data:`SIGNED_OFF_FIELDS`
(payload key -> row field, with the row's value when the payload has none); a new event
type of the stream that changes the row is one applier added to :data:`APPLIED`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import date
from typing import Any

from audit.feed.derived import Derived, server_events
from audit.models import Event

from . import models as m

LEDGER_STREAM = "audit.ledger"
Fields = dict[str, Any]

# ledger.signed_off's payload key -> (the row's field, its value when the payload has none)
SIGNED_OFF_FIELDS: dict[str, tuple[str, Any]] = {
    "figures": ("figures", {}),
    "figures_hash": ("figures_hash", ""),
    "by": ("signed_by", ""),
    "note": ("note", ""),
    "state": ("state", ""),
    "exceptions": ("exceptions", []),
}


def signed_off_applied(fields: Fields, event: Event) -> Fields:
    """Signed off: the figures and their hash, who, when, the note; any reopening cleared."""
    payload = event.payload
    row = {
        **fields,
        "status": m.SignOff.Status.SIGNED,
        "signed_at": event.occurred_at,
        "event_version": event.version,
        "reopened_by": "",
        "reopened_at": None,
        "reopen_note": "",
    }
    for key, (name, blank) in SIGNED_OFF_FIELDS.items():
        value = payload.get(key)
        row[name] = blank if value is None else value
    return row


def reopened_applied(fields: Fields, event: Event) -> Fields:
    """Reopened: who, when and why; the figures signed stay as they were."""
    payload = event.payload
    return {
        **fields,
        "status": m.SignOff.Status.REOPENED,
        "reopened_by": payload.get("by") or "",
        "reopened_at": event.occurred_at,
        "reopen_note": payload.get("note") or "",
        "event_version": event.version,
    }


APPLIED: dict[str, Callable[[Fields, Event], Fields]] = {
    "ledger.signed_off": signed_off_applied,
    "ledger.reopened": reopened_applied,
}
FIELDS = (
    "status",
    "figures",
    "figures_hash",
    "signed_by",
    "signed_at",
    "note",
    "state",
    "exceptions",
    "reopened_by",
    "reopened_at",
    "reopen_note",
    "event_version",
)


def signoffs_from_events() -> dict[tuple[str, date], Fields]:
    """Every sign-off row's fields by (table, gaming day), as ``audit.ledger`` makes them."""
    rows: dict[tuple[str, date], Fields] = {}
    for event in server_events(LEDGER_STREAM, APPLIED):
        key = (str(event.payload["table"]), date.fromisoformat(event.payload["gaming_day"]))
        rows[key] = APPLIED[event.type](rows.get(key, {}), event)
    return rows


def _key_text(key: Hashable) -> str:
    table, day = key  # type: ignore[misc]
    return f"{table} {day.isoformat()}"


def _create(key: Hashable, fields: Fields) -> m.SignOff:
    table, day = key  # type: ignore[misc]
    return m.SignOff.objects.create(table=table, gaming_day=day, **fields)


SIGN_OFF = Derived(
    name="sign-off",
    model=m.SignOff,
    fields=FIELDS,
    derive=signoffs_from_events,
    key=lambda row: (row.table, row.gaming_day),
    describe=lambda row: _key_text((row.table, row.gaming_day)),
    describe_key=_key_text,
    unevented=None,
    create=_create,
    table_field="table",
    table_of=lambda key: str(key[0]),  # type: ignore[index]
)
