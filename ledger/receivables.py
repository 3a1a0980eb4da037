"""What players owe and what the tables gave them, as reports: marker receivables aged
across days, and the chips the tables put into players' hands (the tables' side of the
chip float).

- :func:`marker_aging` - as of a gaming day: per currency and age bucket (0-30, 31-60,
  61-90, 90+ days since the issue) the markers issued, what was redeemed and what is
  outstanding, and the markers themselves. Built on the one selector
  (:func:`ledger.selectors.marker_aging`); it only arranges what that gives.
- :func:`chips_outstanding` - per table, the chips its books put into players' hands,
  net (the ``players`` account of each day's trial balance: buy-ins, markers, payouts,
  corrections paid at the cage, less stakes lost, chips found in the drop box and markers
  paid in chips): brought forward from the days before a range, the range's movement,
  carried forward. It is **not** the casino's chip float: chips sold for cash or cashed at
  the cage are not in the record (no event says so), so it grows with every buy-in and
  never falls by a cage cash-out. The report's title and the screen say so.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from audit.presenting.reports import Column, Report
from ledger.books import journal

from . import selectors

AGING_COLUMNS = (
    Column("bucket", gettext_noop("days since issue")),
    Column("currency", gettext_noop("currency")),
    Column("markers", gettext_noop("markers"), "int", total=True),
    Column("issued", gettext_noop("issued"), "money", total=True),
    Column("redeemed", gettext_noop("redeemed"), "money", total=True),
    Column("outstanding", gettext_noop("outstanding"), "money", total=True),
)
MARKER_COLUMNS = (
    Column("number", gettext_noop("marker")),
    Column("table", gettext_noop("table")),
    Column("player", gettext_noop("player")),
    Column("issued_on", gettext_noop("issued on")),
    Column("age_days", gettext_noop("age (days)"), "int"),
    Column("bucket", gettext_noop("bucket")),
    Column("currency", gettext_noop("currency"), screen=False),
    Column("amount", gettext_noop("issued"), "money", total=True),
    Column("redeemed", gettext_noop("redeemed"), "money", total=True),
    Column("outstanding", gettext_noop("outstanding"), "money", total=True),
    Column("last_redeemed_on", gettext_noop("last redeemed on")),
)


def marker_aging(
    *, day: date, table: str | None = None, pit: str | None = None, outstanding_only: bool = True
) -> tuple[Report, Report]:
    """Marker receivables as of gaming day ``day``: the aging by bucket (every marker issued
    on or before it, paid or not), and the markers (those still outstanding, or every one)."""
    aged = selectors.marker_aging(day, table=table, pit=pit)
    parameters = {
        "day": day.isoformat(),
        "table": table,
        "pit": pit,
        "outstanding_only": outstanding_only,
    }
    buckets = []
    for currency in sorted(aged.by_bucket):
        for _low, _high, name in selectors.AGE_BUCKETS:
            mine = [mk for mk in aged.markers if mk.currency == currency and mk.bucket == name]
            buckets.append(
                {
                    "bucket": name,
                    "currency": currency,
                    "markers": len(mine),
                    "issued": sum(mk.amount for mk in mine),
                    "redeemed": sum(mk.redeemed for mk in mine),
                    "outstanding": sum(mk.outstanding for mk in mine),
                }
            )
    listed = [
        {
            "number": mk.number,
            "table": mk.table,
            "player": mk.player or None,
            "issued_on": mk.issued_on.isoformat(),
            "age_days": mk.age_days,
            "bucket": mk.bucket,
            "currency": mk.currency,
            "amount": mk.amount,
            "redeemed": mk.redeemed,
            "outstanding": mk.outstanding,
            "last_redeemed_on": mk.last_redeemed_on.isoformat() if mk.last_redeemed_on else None,
        }
        for mk in sorted(aged.markers, key=lambda mk: (-mk.age_days, mk.table, mk.number))
        if mk.outstanding or not outstanding_only
    ]
    return (
        Report(
            "marker_aging",
            _("Marker receivables as of %(day)s, by days since issue")
            % {"day": selectors.day_text(day)},
            AGING_COLUMNS,
            buckets,
            parameters,
        ).with_totals(),
        Report(
            "markers",
            (
                _("Markers outstanding as of %(day)s, the oldest first")
                if outstanding_only
                else _("Markers issued as of %(day)s, the oldest first")
            )
            % {"day": selectors.day_text(day)},
            MARKER_COLUMNS,
            listed,
            parameters,
        ).with_totals(),
    )


CHIP_COLUMNS = (
    Column("table", gettext_noop("table")),
    Column("pit", gettext_noop("pit")),
    Column("currency", gettext_noop("currency")),
    Column("days", gettext_noop("days on record"), "int"),
    Column("brought_forward", gettext_noop("brought forward"), "money", total=True),
    Column("movement", gettext_noop("to players in the range"), "signed", total=True),
    Column("outstanding", gettext_noop("net to players"), "signed", total=True),
)


def chips_outstanding(
    *, day: date, day_from: date | None = None, table: str | None = None, pit: str | None = None
) -> Report:
    """Per table: the chips its books put into players' hands, net, as of the end of gaming
    day ``day`` - brought forward from the days before ``day_from`` (default: ``day``), what
    the days ``day_from`` to ``day`` moved, and the net after them (positive: the tables
    gave players more chips than came back). Not the chip float (module docstring)."""
    since = day_from or day
    rows = selectors.reconciliations(day_to=day, table=table, pit=pit)
    lines: dict[str, dict[str, Any]] = {}
    for row in rows:
        line = lines.setdefault(
            row.table.stream,
            {
                "table": row.table.stream,
                "pit": row.table.pit or None,
                "currency": row.currency,
                "days": 0,
                "brought_forward": 0,
                "movement": 0,
            },
        )
        held = row.trial_balance.get(journal.PLAYERS, 0)
        line["days"] += 1
        line["brought_forward" if row.gaming_day < since else "movement"] += held
    out = [
        {**line, "outstanding": line["brought_forward"] + line["movement"]}
        for _, line in sorted(lines.items())
    ]
    title = (
        _(
            "Chips the tables put into players' hands, net, at the end of %(day)s, moved "
            "%(since)s to %(day)s - not the chip float: chips sold or cashed at the cage are "
            "not on record"
        )
        if since != day
        else _(
            "Chips the tables put into players' hands, net, at the end of %(day)s - not the "
            "chip float: chips sold or cashed at the cage are not on record"
        )
    ) % {"day": selectors.day_text(day), "since": selectors.day_text(since)}
    return Report(
        "chips_outstanding",
        title,
        CHIP_COLUMNS,
        out,
        {"day": day.isoformat(), "from": since.isoformat(), "table": table, "pit": pit},
    ).with_totals()
