"""Reads of the read models (HackSoft selectors): lists of rounds and one round in full,
as the REST API and the round-review admin page show it.

:func:`round_review` gathers everything a pit boss looks at for one round: its events in
stream order with the state of their hash chain, the dealer's and each box's hands with
their cards (face up or down, and when a hole card was revealed), the bets with the
settlement recorded and the one the rules give side by side, the round's findings, the
previous and next round of the table, and its shoe.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce

from audit.integrity.chains import chain_state
from audit.models import Event, Finding

from . import models as m


def _findings_of_rounds() -> QuerySet[Finding]:
    return Finding.objects.filter(
        stream=OuterRef("table__stream"),
        gaming_day=OuterRef("gaming_day"),
        round=OuterRef("number"),
        superseded_by__isnull=True,
    )


def rounds_list(
    *,
    table: str | None = None,
    day: date | None = None,
    with_findings: bool | None = None,
    status: str | None = None,
) -> QuerySet[m.Round]:
    """Rounds in table, day, number order, each with ``findings`` (the count of its
    current, not superseded, findings) and ``mismatched_bets``."""
    rounds = m.Round.objects.select_related("table", "shoe")
    if table is not None:
        rounds = rounds.filter(table__stream=table)
    if day is not None:
        rounds = rounds.filter(gaming_day=day)
    if status is not None:
        rounds = rounds.filter(status=status)
    counted = _findings_of_rounds().order_by().values("round").annotate(n=Count("id")).values("n")
    rounds = rounds.annotate(
        findings=Coalesce(Subquery(counted[:1]), 0),
        mismatched_bets=Count("bets", filter=Q(bets__matches=False)),
    )
    if with_findings is not None:
        has = Exists(_findings_of_rounds())
        rounds = rounds.filter(has) if with_findings else rounds.exclude(has)
    return rounds.order_by("table__stream", "gaming_day", "number")


def round_get(*, table: str, day: date, number: int) -> m.Round | None:
    return rounds_list(table=table, day=day).filter(number=number).first()


@dataclass(frozen=True)
class ReviewedEvent:
    event: Event
    chain_ok: bool
    chain: str  # what the chain check says


@dataclass(frozen=True)
class RoundReview:
    round: m.Round
    events: list[ReviewedEvent]
    dealer: m.Hand | None
    hands: list[m.Hand]
    bets: list[m.Bet]
    findings: list[Finding]
    previous: m.Round | None
    next: m.Round | None
    shoe: m.Shoe | None

    @property
    def chain_ok(self) -> bool:
        return all(e.chain_ok for e in self.events)


def round_events(round_: m.Round) -> list[ReviewedEvent]:
    """The round's events in stream order, each with its chain state."""
    stream = round_.table.stream
    versions = sorted(set(round_.versions))
    rows = {e.version: e for e in Event.objects.filter(stream=stream, version__in=versions)}
    before = dict(
        Event.objects.filter(
            stream=stream, version__in=[v - 1 for v in versions if v - 1 not in rows]
        ).values_list("version", "hash")
    )
    result = []
    for version in versions:
        event = rows.get(version)
        if event is None:
            continue
        previous = rows[version - 1].hash if version - 1 in rows else before.get(version - 1)
        ok, text = chain_state(event, previous)
        result.append(ReviewedEvent(event, ok, text))
    return result


def round_review(round_: m.Round) -> RoundReview:
    hands = list(round_.hands.all())
    siblings = m.Round.objects.filter(table=round_.table, gaming_day=round_.gaming_day)
    return RoundReview(
        round=round_,
        events=round_events(round_),
        dealer=next((h for h in hands if h.box == 0), None),
        hands=[h for h in hands if h.box != 0],
        bets=list(round_.bets.all()),
        findings=list(findings_of_round(round_)),
        previous=siblings.filter(number__lt=round_.number).order_by("-number").first(),
        next=siblings.filter(number__gt=round_.number).order_by("number").first(),
        shoe=round_.shoe,
    )


def findings_of_round(round_: m.Round, *, superseded: bool = False) -> QuerySet[Finding]:
    findings = Finding.objects.filter(
        stream=round_.table.stream, gaming_day=round_.gaming_day, round=round_.number
    )
    if not superseded:
        findings = findings.filter(superseded_by__isnull=True)
    return findings.order_by("id")


def table_days(*, table: str | None = None, day: date | None = None) -> QuerySet[m.TableDay]:
    """Tables' gaming days with their counts (rounds, bets, handle, nets) and
    ``findings`` / ``open_findings``: current (not superseded) findings, and those
    still open."""
    days = m.TableDay.objects.select_related("table")
    if table:
        days = days.filter(table__stream=table)
    if day:
        days = days.filter(gaming_day=day)
    current = (
        Finding.objects.filter(
            stream=OuterRef("table__stream"),
            gaming_day=OuterRef("gaming_day"),
            superseded_by__isnull=True,
        )
        .order_by()
        .values("gaming_day")
    )
    count = current.annotate(n=Count("id")).values("n")
    still_open = current.filter(status=Finding.Status.OPEN).annotate(n=Count("id")).values("n")
    return days.annotate(
        findings=Coalesce(Subquery(count[:1]), 0),
        open_findings=Coalesce(Subquery(still_open[:1]), 0),
    ).order_by("table__stream", "gaming_day")


def tables_list() -> QuerySet[m.Table]:
    """Tables with ``day_count``, ``round_count``, ``bet_count`` (over their gaming days)
    and ``finding_count`` (current, not superseded, findings)."""
    current = (
        Finding.objects.filter(stream=OuterRef("stream"), superseded_by__isnull=True)
        .order_by()
        .values("stream")
        .annotate(n=Count("id"))
        .values("n")
    )
    return m.Table.objects.annotate(
        day_count=Count("days"),
        round_count=Coalesce(Sum("days__rounds"), 0),
        bet_count=Coalesce(Sum("days__bets"), 0),
        finding_count=Coalesce(Subquery(current[:1]), 0),
    ).order_by("stream")


def day_summary(day: date) -> dict[str, Any]:
    """A gaming day in figures, per table and in all: rounds, bets, handle, the house's
    result as recorded and as the rules give it (minor units; + the house won), and the
    current findings by kind."""
    tables = []
    for row in table_days(day=day):
        tables.append(
            {
                "table": row.table.stream,
                "ruleset": row.table.ruleset,
                "currency": row.table.currency,
                "rounds": row.rounds,
                "bets": row.bets,
                "handle": row.handle,
                "house_result": -row.recorded_net,
                "house_result_recomputed": -row.expected_net,
                "findings": row.findings,
                "open_findings": row.open_findings,
            }
        )
    kinds = (
        Finding.objects.filter(gaming_day=day, superseded_by__isnull=True)
        .values_list("kind")
        .annotate(n=Count("id"))
        .values_list("kind", "n")
    )
    return {
        "gaming_day": day.isoformat(),
        "tables": tables,
        "rounds": sum(t["rounds"] for t in tables),
        "bets": sum(t["bets"] for t in tables),
        "findings_by_kind": dict(sorted(kinds)),
    }
