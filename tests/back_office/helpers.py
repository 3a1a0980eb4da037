"""Seeded tables dealt by the rules engine, appended to the store, with faults planted."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from audit.models import Finding
from audit.record.chain import parse_timestamp
from audit.record.findings import KINDS
from audit.store.streams import NewEvent, events_append, stream_version
from tables.engine.presets import PRESETS
from tables.engine.simulate import deal_table

START = datetime(2026, 11, 29, 14, 0, tzinfo=UTC)
DAY = date(2026, 11, 29)


def dealt(
    preset: str = "hoyle", *, rounds: int = 40, table: str = "T1", seed: str = "bo"
) -> list[dict[str, Any]]:
    """A table's day as the engine deals it: legal, so replay finds nothing."""
    return copy.deepcopy(
        deal_table(PRESETS[preset], seed=seed, rounds=rounds, table=table, start=START).events
    )


def new_event(envelope: dict[str, Any]) -> NewEvent:
    return NewEvent(
        id=uuid.UUID(envelope["id"]),
        type=envelope["type"],
        payload=envelope["payload"],
        occurred_at=parse_timestamp(envelope["occurred_at"]),
        actor=envelope["actor"],
        source=envelope["source"],
        schema_version=envelope["schema_version"],
    )


def append(
    stream: str,
    events: Sequence[dict[str, Any]],
    *,
    chunk: int | None = None,
    project: bool = False,
    now: datetime | None = None,
) -> int:
    """Append ``events`` to ``stream`` after its head, ``chunk`` at a time. With
    ``project``, each chunk's on-commit callbacks (the projection task) run right after
    it, as they would outside a test transaction; returns how many ran. ``now``: the
    store's clock for ``recorded_at`` (the server's clock when None)."""
    from django.test import TestCase

    size = chunk or len(events)
    ran = 0
    for start in range(0, len(events), size):
        part = events[start : start + size]
        if project:
            with TestCase.captureOnCommitCallbacks(execute=True) as callbacks:
                events_append(
                    stream=stream,
                    expected_version=stream_version(stream),
                    events=[new_event(e) for e in part],
                    now=now,
                )
            ran += len(callbacks)
        else:
            events_append(
                stream=stream,
                expected_version=stream_version(stream),
                events=[new_event(e) for e in part],
                now=now,
            )
    return ran


def plant_short_pay(events: list[dict[str, Any]], *, skip: int = 3) -> dict[str, Any]:
    """Alter one ``round.settled`` before it is stored: a main bet's win recorded one
    unit short. The record stays legal-looking; only replay can tell. Returns where."""
    for event in events:
        if event["type"] != "round.settled" or event["payload"]["round"] <= skip:
            continue
        for settlement in event["payload"]["settlements"]:
            if settlement["outcome"] == "win" and settlement["net"] > 1:
                right = settlement["net"]
                settlement["net"] = right - 1
                return {
                    "round": event["payload"]["round"],
                    "bet": settlement["bet"],
                    "outcome": "win",
                    "right": right,
                    "wrong": right - 1,
                }
    raise AssertionError("no winning bet to short-pay")


def append_short_paid(
    tables: Sequence[tuple[str, str]], *, rounds: int, seed: str
) -> list[tuple[str, dict[str, Any]]]:
    """Each ``(table, preset)`` dealt (seeded ``seed`` and its index), one win short-paid
    (:func:`plant_short_pay`) and appended; returns each table with its fault."""
    faults = []
    for index, (table, preset) in enumerate(tables):
        events = dealt(preset, rounds=rounds, table=table, seed=f"{seed}{index}")
        faults.append((table, plant_short_pay(events)))
        append(table, events)
    return faults


def correction(stream: str, fault: dict[str, Any], *, net: int | None = None) -> NewEvent:
    """The authorised correction of a planted short pay (to ``net``, the right amount by default)."""
    return NewEvent(
        id=uuid.uuid4(),
        type="correction.recorded",
        occurred_at=datetime(2026, 11, 29, 23, 0, tzinfo=UTC),
        actor="user:pb",
        source="back-office",
        payload={
            "round": fault["round"],
            "corrects": None,
            "settlements": [
                {
                    "bet": fault["bet"],
                    "outcome": fault["outcome"],
                    "net": fault["right"] if net is None else net,
                }
            ],
            "reason": "short pay corrected",
            "authorised_by": "PB-7",
        },
    )


def append_correction(stream: str, fault: dict[str, Any], **kwargs: Any) -> None:
    events_append(
        stream=stream,
        expected_version=stream_version(stream),
        events=[correction(stream, fault, **kwargs)],
    )


def engine_findings() -> Any:
    """The findings of the engine's replay, the subject of these tests. The ledger's
    reconciliation of the same table-days may add its own: a table whose players do not
    play the chart wins outside its theoretical interval (``win_outside_interval``)."""
    return Finding.objects.filter(kind__in=[k.name for k in KINDS.values() if k.owner == "engine"])
