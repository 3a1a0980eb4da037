"""Dealer performance: per dealer and shift, the time dealt, the rounds dealt and the
errors found in them - each as a rate per hour, and errors per hundred rounds.

A dealer's **stint** at a table runs from its ``dealer.assigned`` to the next one (or
the table's close, or its last event); a stint counts in the shift it starts in (the
shift plan of the gaming day, ``audit.record.shifts``) - a half-hour rotation seldom
straddles a shift change. A **round** is the dealer's who was assigned when it started.
An **error** is a finding of the rules engine's replay (the game's kinds: a wrong
payout, the dealer's own play, a card out of sequence, ...) that names one of the
dealer's rounds; the caller hands over those in force (not superseded).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from audit.record.chain import parse_timestamp
from audit.record.shifts import ShiftPlan


@dataclass(frozen=True)
class RoundFinding:
    table: str
    round: int
    kind: str


@dataclass
class DealerShift:
    dealer: str
    shift: str
    tables: set[str] = field(default_factory=set)
    seconds: int = 0
    rounds: int = 0
    errors: int = 0
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def hours(self) -> Fraction:
        return Fraction(self.seconds, 3600)

    @property
    def rounds_per_hour(self) -> Fraction | None:
        return Fraction(self.rounds * 3600, self.seconds) if self.seconds else None

    @property
    def errors_per_hour(self) -> Fraction | None:
        return Fraction(self.errors * 3600, self.seconds) if self.seconds else None

    @property
    def errors_per_100_rounds(self) -> Fraction | None:
        return Fraction(self.errors * 100, self.rounds) if self.rounds else None


def _moment(value: Any) -> datetime:
    return value if isinstance(value, datetime) else parse_timestamp(str(value))


def _stints(
    events: Iterable[Mapping[str, Any]],
) -> tuple[str, list[tuple[str, datetime, datetime]], dict[int, tuple[str, datetime]]]:
    """The table, each stint (dealer, from, to) and each round's dealer and the start of
    the stint it was dealt in."""
    table = ""
    stints: list[tuple[str, datetime, datetime]] = []
    dealer: str | None = None
    since: datetime | None = None
    last: datetime | None = None
    rounds: dict[int, tuple[str, datetime]] = {}
    for event in events:
        kind = event["type"]
        when = _moment(event["occurred_at"])
        if kind == "table.opened":
            table = event["payload"]["table"]
        elif kind == "dealer.assigned":
            if dealer is not None and since is not None:
                stints.append((dealer, since, when))
            dealer, since = event["payload"]["dealer"], when
        elif kind == "round.started" and dealer is not None and since is not None:
            rounds[event["payload"]["round"]] = (dealer, since)
        elif kind == "table.closed":
            if dealer is not None and since is not None:
                stints.append((dealer, since, when))
            dealer = since = None
        last = when
    if dealer is not None and since is not None and last is not None:
        stints.append((dealer, since, last))
    return table, stints, rounds


def performance(
    days: Iterable[Iterable[Mapping[str, Any]]], findings: Iterable[RoundFinding], plan: ShiftPlan
) -> list[DealerShift]:
    """Per dealer and shift over tables' days (each the events of one table's gaming
    day, with ``occurred_at``), the errors being ``findings``: the most errors per hour first."""
    out: dict[tuple[str, str], DealerShift] = {}
    dealer_of: dict[tuple[str, int], tuple[str, str]] = {}
    for events in days:
        table, stints, rounds = _stints(events)
        for dealer, start, end in stints:
            shift = plan.shift_of(start)
            row = out.setdefault((dealer, shift), DealerShift(dealer, shift))
            row.tables.add(table)
            row.seconds += int((end - start).total_seconds())
        for number, (dealer, start) in rounds.items():
            who = dealer_of[(table, number)] = (dealer, plan.shift_of(start))
            out[who].rounds += 1
    for finding in findings:
        dealt = dealer_of.get((finding.table, finding.round))
        if dealt is None:
            continue
        row = out[dealt]
        row.errors += 1
        row.kinds[finding.kind] = row.kinds.get(finding.kind, 0) + 1
    return sorted(out.values(), key=lambda r: (-(r.errors_per_hour or 0), r.dealer, r.shift))
