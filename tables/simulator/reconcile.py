"""Chip reconciliation of a table's stream, per gaming day (the design's "Reconciliation": docs/accounting.md).

    chip-count win = drop (cash + markers) + (closing - opening inventory) + credits - fills
    recorded win   = - the sum of the nets recorded in round.settled (corrections applied)

A difference is a ``chip_variance`` finding. A fill or credit slip recorded twice is a
``duplicate_slip`` finding, and counts once (the cage issued it once), so it does not
show as a variance too. A day without inventory counts (a live table) is not reconciled.

This lives here because the engine's replay ignores chip events and the ledger's
reconciliation is not built yet; it is pure Python over envelope dicts.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

KINDS = ("chip_variance", "duplicate_slip")


@dataclass(frozen=True)
class ReconFinding:
    kind: str
    stream: str
    gaming_day: str
    message: str
    expected: str | None = None
    recorded: str | None = None
    event: str | None = None
    slip: str | None = None


@dataclass
class _Day:
    opening: int | None = None
    closing: int | None = None
    fills: int = 0
    credits: int = 0
    drop: int | None = None
    nets: dict[str, int] = field(default_factory=dict)


def _value(chips: list[Mapping[str, int]]) -> int:
    return sum(c["denomination"] * c["count"] for c in chips)


def reconcile(events: Iterable[Mapping[str, Any]]) -> list[ReconFinding]:
    """Reconcile one stream's events (envelope dicts, in version order)."""
    findings: list[ReconFinding] = []
    days: dict[str, _Day] = {}
    slips: set[str] = set()
    stream = ""
    today = ""
    for event in events:
        kind = event["type"]
        p = event["payload"]
        stream = event.get("stream") or stream
        if kind == "table.opened":
            today = p["gaming_day"]
            days.setdefault(today, _Day())
            continue
        day = days.setdefault(today, _Day())
        if kind == "inventory.counted":
            if p["kind"] == "opening" and day.opening is None:
                day.opening = _value(p["chips"])
            elif p["kind"] == "closing":
                day.closing = _value(p["chips"])
        elif kind in ("chips.filled", "chips.credited"):
            slip = p["slip"]
            if slip in slips:
                findings.append(ReconFinding("duplicate_slip", stream, today, f"Slip {slip} ({kind}) is recorded twice; it counts once.",
                                             event=event.get("id"), slip=slip, recorded=str(_value(p["chips"]))))
                continue
            slips.add(slip)
            if kind == "chips.filled":
                day.fills += _value(p["chips"])
            else:
                day.credits += _value(p["chips"])
        elif kind == "drop.counted":
            target = days.setdefault(p["gaming_day"], _Day())
            target.drop = (target.drop or 0) + p["cash"] + p["markers"]
        elif kind == "round.settled" or kind == "correction.recorded":
            for s in p["settlements"]:
                day.nets[s["bet"]] = s["net"]
    for name, day in days.items():
        if day.opening is None or day.closing is None:
            continue
        chip_win = (day.drop or 0) + day.closing - day.opening + day.credits - day.fills
        recorded_win = -sum(day.nets.values())
        if chip_win != recorded_win:
            findings.append(ReconFinding(
                "chip_variance", stream, name,
                f"Gaming day {name}: the chips say the table won {chip_win}, the rounds say {recorded_win} "
                f"(variance {chip_win - recorded_win:+d}).",
                expected=str(recorded_win), recorded=str(chip_win),
            ))
    return findings


def reconcile_all(events: Iterable[Mapping[str, Any]]) -> list[ReconFinding]:
    """:func:`reconcile` for events of several streams (file order kept per stream)."""
    streams: dict[str, list[Mapping[str, Any]]] = {}
    for event in events:
        streams.setdefault(event["stream"], []).append(event)
    return [f for stream in streams.values() for f in reconcile(stream)]
