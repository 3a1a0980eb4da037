"""What a correction does to the record, as every reader of it must take it.

A ``correction.recorded`` that ``corrects`` an event and carries no settlements *strikes*
that event: the event stays in the chain (events are never changed or deleted), and every
fold of the record - the engine's replay, the ledger's books - skips it as if it had never
been recorded. One definition, so that the game and the books never disagree on what was
struck. A correction no one with the authority recorded strikes nothing: readers hand
:func:`struck_events` only the events :func:`audit.record.authority.applicable` leaves.

A struck ``table.opened`` whose gaming day is no calendar date (stored past the
catalogue's check; striking it is how its table is taken back) is the one struck event
that still says something: the table did open again, on a day the record cannot name.
So it ends the day before it, and the events after it, up to the next opening a fold
applies, belong to **no** gaming day (:func:`holds_day`): every fold leaves them out of
every day - never counts them in the day before - and the ledger reports them
(``no_gaming_day``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any


def struck_events(events: Iterable[Mapping[str, Any]]) -> set[str]:
    """Ids of the events an authorised correction strikes (``corrects`` with no
    settlements)."""
    return {
        str(e["payload"]["corrects"])
        for e in events
        if e["type"] == "correction.recorded"
        and e["payload"]["corrects"] is not None
        and not e["payload"]["settlements"]
    }


def is_gaming_day(text: object) -> bool:
    """Whether ``text`` is a gaming day a reader can take: an ISO calendar date."""
    if not isinstance(text, str):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def holds_day(event: Mapping[str, Any]) -> bool:
    """Whether ``event``, struck, holds what follows it in no gaming day: a
    ``table.opened`` whose gaming day is no calendar date (the caller knows it is struck)."""
    payload = event.get("payload")
    return event.get("type") == "table.opened" and not (
        isinstance(payload, Mapping) and is_gaming_day(payload.get("gaming_day"))
    )
