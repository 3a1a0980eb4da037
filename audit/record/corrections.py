"""What a correction does to the record, as every reader of it must take it.

A ``correction.recorded`` that ``corrects`` an event and carries no settlements *strikes*
that event: the event stays in the chain (events are never changed or deleted), and every
fold of the record - the engine's replay, the ledger's books - skips it as if it had never
been recorded. One definition, so that the game and the books never disagree on what was
struck. A correction no one with the authority recorded strikes nothing: readers hand
:func:`struck_events` only the events :func:`audit.record.authority.applicable` leaves.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def struck_events(events: Iterable[Mapping[str, Any]]) -> set[str]:
    """Ids of the events an authorised correction strikes (``corrects`` with no
    settlements)."""
    return {
        str(e["payload"]["corrects"])
        for e in events
        if e["type"] == "correction.recorded" and e["payload"]["corrects"] is not None and not e["payload"]["settlements"]
    }
