"""What a table's page and a table-day's page show (``tables.admin``): the day at the
table as a pit boss reads it - its rounds, findings, dealers and shoes, the figures of
its play and the ledger's (drop, win, hold: :mod:`tables.accounts`), the reconciliation
with its state - each figure linked to the list or page behind it. A table's page shows
the latest gaming day it played; a table-day's page its own day.

Money and counts come out as text from the one formatter (:mod:`audit.record.money`);
every word a person reads is marked for translation.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import Count
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from audit.models import Event, Finding
from audit.presenting.vocabulary import kind_sentence, kind_title, severity_text
from audit.record.findings import SEVERITIES
from audit.record.money import format_number, money_text, not_available, percent

from . import accounts, selectors
from . import models as m
from .floor import result_of_handle_text


def _findings_url(table: str, day: date, **more: str) -> str:
    return (
        reverse("admin:audit_finding_changelist")
        + "?"
        + urlencode({"stream": table, "gaming_day": day.isoformat(), **more})
    )


def _rounds_url(table: str, day: date, **more: str) -> str:
    return (
        reverse("admin:tables_round_changelist")
        + "?"
        + urlencode({"table__stream": table, "gaming_day": day.isoformat(), **more})
    )


def _findings(table: str, day: date) -> dict[str, Any]:
    """The day's current findings: in all and open, by severity and by kind, each linked."""
    current = Finding.objects.filter(stream=table, gaming_day=day, superseded_by__isnull=True)
    by_severity = dict(
        current.values_list("severity").annotate(n=Count("id")).values_list("severity", "n")
    )
    open_by_severity = dict(
        current.filter(status=Finding.Status.OPEN)
        .values_list("severity")
        .annotate(n=Count("id"))
        .values_list("severity", "n")
    )
    by_kind = sorted(
        current.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"),
        key=lambda kind_n: (-kind_n[1], kind_n[0]),
    )
    rounds = current.exclude(round=None).values("round").distinct().count()
    total = sum(by_severity.values())
    still_open = sum(open_by_severity.values())
    return {
        "total": total,
        "open": still_open,
        "rounds": rounds,
        "url": _findings_url(table, day),
        "open_url": _findings_url(table, day, status__exact="open"),
        "severities": [
            {
                "severity": severity,
                "label": severity_text(severity),
                "count": by_severity.get(severity, 0),
                "open": open_by_severity.get(severity, 0),
                "url": _findings_url(table, day, severity__exact=severity),
            }
            for severity in SEVERITIES
            if by_severity.get(severity)
        ],
        "kinds": [
            {
                "kind": kind,
                "title": kind_title(kind),
                "text": kind_sentence(kind),
                "count": n,
                "url": _findings_url(table, day, kind__exact=kind),
            }
            for kind, n in by_kind
        ],
    }


def _dealers(table: str, row: m.TableDay) -> list[dict[str, Any]]:
    """Who dealt the day, in the order assigned (``dealer.assigned`` in the day's part of
    the table's stream); the last is at the table now (or was when it closed)."""
    assigned = (
        Event.objects.filter(
            stream=table,
            type="dealer.assigned",
            version__gte=row.first_version,
            version__lte=row.last_version,
        )
        .order_by("version")
        .values_list("payload", "occurred_at")
    )
    return [
        {"dealer": str(payload.get("dealer") or "?"), "since": occurred}
        for payload, occurred in assigned
        if isinstance(payload, dict)
    ]


def _shoes(table: m.Table, day: date) -> dict[str, Any]:
    from .admin import shoe_url

    shoes = list(m.Shoe.objects.filter(table=table, gaming_day=day).select_related("table"))
    latest = shoes[-1] if shoes else None
    return {
        "count": len(shoes),
        "latest": latest,
        "latest_url": shoe_url(latest) if latest else None,
        "latest_text": (
            _("shoe %(shoe)s: %(decks)s decks, %(method)s, %(rounds)s rounds")
            % {
                "shoe": latest.shoe,
                "decks": latest.decks,
                "method": latest.method,
                "rounds": format_number(latest.rounds),
            }
            if latest
            else not_available()
        ),
        "list_url": reverse("admin:tables_shoe_changelist")
        + "?"
        + urlencode({"table__stream": table.stream, "gaming_day": day.isoformat()}),
    }


def _accounts(table: str, day: date, currency: str) -> dict[str, Any]:
    """The ledger's figures of the day (n/a where it has none) and its reconciliation."""
    found = accounts.day_accounts(table, day)
    if found is None:
        return {
            "known": False,
            "drop": not_available(),
            "win": not_available(),
            "hold": not_available(),
            "state": "",
            "state_text": _("not reconciled: the ledger has no figures of this day"),
            "url": None,
        }
    return {
        "known": True,
        "drop": money_text(found.drop, found.currency or currency, none=not_available()),
        "drop_minor": found.drop,
        "win": money_text(found.win, found.currency or currency, signed=True, none=not_available()),
        "win_minor": found.win,
        "hold": percent(found.hold),  # as the reconciliation shows it
        "hold_fraction": found.hold,
        "state": found.state,
        "state_text": found.state_text,
        "url": found.url,
    }


def day_context(row: m.TableDay) -> dict[str, Any]:
    """Everything a table-day's hub shows (``row`` from :func:`selectors.table_days`, so
    annotated with its findings)."""
    table = row.table
    code, day, currency = table.stream, row.gaming_day, table.currency or "EUR"
    house = -row.recorded_net
    recomputed = -row.expected_net
    dealers = _dealers(code, row)
    rounds = m.Round.objects.filter(table=table, gaming_day=day)
    return {
        "row": row,
        "table": table,
        "day": day,
        "day_url": reverse(
            "admin:tables_tableday_key", kwargs={"table": code, "day": day.isoformat()}
        ),
        "table_url": reverse("admin:tables_table_key", kwargs={"table": code}),
        "rounds": {
            "count": format_number(row.rounds),
            "url": _rounds_url(code, day),
            "with_findings_url": _rounds_url(code, day, with_findings="yes"),
            "never_settled": rounds.filter(status=m.Round.Status.OPEN).count(),
            "voided": rounds.filter(status=m.Round.Status.VOIDED).count(),
            "never_settled_url": _rounds_url(code, day, status__exact="open"),
        },
        "figures": {
            "bets": format_number(row.bets),
            "handle": money_text(row.handle, currency),
            "house_result": money_text(house, currency, signed=True),
            "house_result_minor": house,
            "recomputed": money_text(recomputed, currency, signed=True),
            "differs": recomputed != house,
            "result_of_handle": result_of_handle_text(house, row.handle),
        },
        "accounts": _accounts(code, day, currency),
        "findings": _findings(code, day),
        "dealers": dealers,
        "dealer": dealers[-1]["dealer"] if dealers else not_available(),
        "shoes": _shoes(table, day),
    }


def latest_day(table: m.Table) -> m.TableDay | None:
    """The table's latest gaming day with play (rounds), else its latest day at all."""
    days = selectors.table_days(table=table.stream).order_by("-gaming_day")
    return days.filter(rounds__gt=0).first() or days.first()


def table_context(table: m.Table) -> dict[str, Any]:
    """A table's hub: its latest gaming day with play in full, and its other days."""
    row = latest_day(table)
    days = [
        {
            "day": other.gaming_day,
            "url": reverse(
                "admin:tables_tableday_key",
                kwargs={"table": table.stream, "day": other.gaming_day.isoformat()},
            ),
            "rounds": format_number(other.rounds),
            "house_result": money_text(-other.recorded_net, table.currency or "EUR", signed=True),
            "findings": other.findings,  # type: ignore[attr-defined]
        }
        for other in selectors.table_days(table=table.stream).order_by("-gaming_day")[:30]
    ]
    return {
        "hub": day_context(row) if row else None,
        "days": days,
        "pit": accounts.pits([table.stream]).get(table.stream, ""),
        "limits": _("%(low)s to %(high)s")
        % {
            "low": money_text(table.min_bet, table.currency, none=not_available()),
            "high": money_text(table.max_bet, table.currency, none=not_available()),
        },
    }


def neighbours(row: m.TableDay) -> dict[str, str | None]:
    """The table's gaming days before and after this one (their pages)."""
    days = m.TableDay.objects.filter(table=row.table)
    before = days.filter(gaming_day__lt=row.gaming_day).order_by("-gaming_day").first()
    after = days.filter(gaming_day__gt=row.gaming_day).order_by("gaming_day").first()

    def url(other: m.TableDay | None) -> str | None:
        return (
            reverse(
                "admin:tables_tableday_key",
                kwargs={"table": row.table.stream, "day": other.gaming_day.isoformat()},
            )
            if other
            else None
        )

    return {
        "previous_url": url(before),
        "previous_day": before.gaming_day if before else None,
        "next_url": url(after),
        "next_day": after.gaming_day if after else None,
    }
