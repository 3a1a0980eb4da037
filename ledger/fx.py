"""Foreign currency at the tables: the rate of each gaming day, set by accounting.

A table's amounts are in its currency. Where the casino takes another currency at a table
(a player's dollars at a euro table), accounting sets the day's rate:
``fx_rate_set`` appends ``fx.rate_set`` (the day, the currency, the house currency it is
taken into, the rate as an exact fraction, who, a note) to the server's stream
``audit.ledger`` and writes the :class:`~ledger.models.FxRate` row, in one durable
transaction - the audit record written with the change, as sign-off's is. The ledger's
fold then books each amount recorded in that currency that day at the rate, both amounts
kept (``Reconciliation.conversions``); without a rate such an amount is a
``currency_mismatch`` finding and is not booked. The tables whose books the new rate
changes - a ``currency_mismatch`` of the day open, or amounts converted at an earlier rate
of it - are folded again at once.

Who: a person holding ``ledger.add_fxrate`` (the ``accounting`` group); never a device.

The :class:`~ledger.models.FxRate` rows are a read model of those events
(:data:`FX_RATES`, registered with :mod:`audit.feed.derived`): ``manage.py verify`` names a row
that differs from what its events make it (a rate changed in the table books every
foreign amount of its day at it), ``manage.py rebuild_projections`` writes it back and
makes a deleted one again, then the tables of the rates it wrote back are folded again.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import UTC, date, datetime
from fractions import Fraction
from typing import Any

from audit.access.authority import require_person
from audit.feed.derived import Derived, server_events
from audit.findings.workflow import server_change, server_event_append, username_of
from audit.models import Finding
from audit.record.events.fields import MAX_SAFE_INT
from audit.record.money import minor_unit_digits
from audit.store.errors import FieldInvalid

from . import models as m
from .signoff import LEDGER_STREAM


class RateInvalid(FieldInvalid):
    """A rate that cannot be: the field and why (HTTP 400)."""


def parse_rate(text: str) -> Fraction:
    """``0.9215`` or ``9215/10000`` -> an exact positive fraction (never through a float).

    >>> parse_rate("0.9215"), parse_rate("161/1")
    (Fraction(1843, 2000), Fraction(161, 1))
    """
    try:
        rate = Fraction(text.strip()) if isinstance(text, str) and "e" not in text.lower() else None
    except (ValueError, ZeroDivisionError):
        rate = None
    if rate is None or rate <= 0:
        raise RateInvalid(
            "rate", f"{text!r}: expected a positive number, e.g. 0.9215 or 9215/10000"
        )
    if rate.numerator > MAX_SAFE_INT or rate.denominator > MAX_SAFE_INT:
        raise RateInvalid("rate", f"{text!r}: too many digits")
    return rate


def rates() -> dict[tuple[str, str, str], Fraction]:
    """Every rate recorded: (gaming day, currency, house currency) -> units of the house
    currency per unit of the currency - what the ledger's fold books foreign amounts by."""
    return {
        (r.gaming_day.isoformat(), r.currency, r.house): Fraction(r.numerator, r.denominator)
        for r in m.FxRate.objects.all()
    }


def fx_rate_set(
    *,
    gaming_day: date,
    currency: str,
    rate: Fraction,
    user: object,
    house: str | None = None,
    note: str | None = None,
    now: datetime | None = None,
) -> m.FxRate:
    """Set the rate of ``currency`` into ``house`` (default: the house currency,
    ``LEDGER_HOUSE_CURRENCY``) on ``gaming_day``, then fold again the tables it changes."""
    from django.conf import settings

    # a rate books money: a person holding the permission, on every path (not the API's alone)
    require_person(user, "ledger.add_fxrate", "set an exchange rate (the accounting group)")
    house = house or settings.LEDGER_HOUSE_CURRENCY
    for field, code in (("currency", currency), ("house", house)):
        try:
            minor_unit_digits(code)
        except ValueError as error:
            raise RateInvalid(field, str(error)) from None
    if currency == house:
        raise RateInvalid("currency", f"{currency} is the house currency itself")
    if rate <= 0:
        raise RateInvalid("rate", "a rate is positive")
    username = username_of(user)
    note = (note or "").strip() or None
    now = now or datetime.now(UTC)

    def action() -> m.FxRate:
        version = server_event_append(
            stream=LEDGER_STREAM,
            type="fx.rate_set",
            payload={
                "gaming_day": gaming_day.isoformat(),
                "currency": currency,
                "house": house,
                "numerator": rate.numerator,
                "denominator": rate.denominator,
                "by": username,
                "note": note,
            },
            user=user,
            now=now,
        ).version
        row, _ = m.FxRate.objects.update_or_create(
            gaming_day=gaming_day,
            currency=currency,
            house=house,
            defaults={
                "numerator": rate.numerator,
                "denominator": rate.denominator,
                "set_by": username,
                "set_at": now,
                "note": note or "",
                "event_version": version,
            },
        )
        return row

    row = server_change(action)
    refold(gaming_day=gaming_day, currency=currency, house=house)
    return row


def refold(*, gaming_day: date, currency: str, house: str) -> list[str]:
    """Fold again the day of every table of currency ``house`` whose books a rate of
    ``currency`` that day changes: one with a current ``currency_mismatch`` of the day,
    or one that converted ``currency`` that day already. Returns the tables."""
    from .feed import CACHE
    from .projection import project_table

    mismatched = set(
        Finding.objects.filter(
            kind="currency_mismatch", gaming_day=gaming_day, superseded_by__isnull=True
        ).values_list("stream", flat=True)
    )
    converted = {
        stream
        for stream, conversions in m.Reconciliation.objects.filter(
            gaming_day=gaming_day, shift=""
        ).values_list("table__stream", "conversions")
        if any(c.get("currency") == currency for c in conversions)
    }
    tables = sorted(
        set(
            m.LedgerTable.objects.filter(
                stream__in=mismatched | converted, currency=house
            ).values_list("stream", flat=True)
        )
    )
    for stream in tables:
        project_table(stream=stream, cache=CACHE, redo={gaming_day.isoformat()})
    return tables


# --- the rows as their events make them (audit.feed.derived) --------------------------------------------

FX_FIELDS = ("numerator", "denominator", "set_by", "set_at", "note", "event_version")


def fx_rates_from_events() -> dict[tuple[date, str, str], dict[str, Any]]:
    """Every rate row's fields by (gaming day, currency, house), as the ``fx.rate_set``
    events of ``audit.ledger`` make them: the last event of a day and pair is its rate."""
    rows: dict[tuple[date, str, str], dict[str, Any]] = {}
    for event in server_events(LEDGER_STREAM, ("fx.rate_set",)):
        p = event.payload
        rows[(date.fromisoformat(p["gaming_day"]), p["currency"], p["house"])] = {
            "numerator": p["numerator"],
            "denominator": p["denominator"],
            "set_by": p["by"],
            "set_at": event.occurred_at,
            "note": p.get("note") or "",
            "event_version": event.version,
        }
    return rows


def _fx_key_text(key: Hashable) -> str:
    day, currency, house = key  # type: ignore[misc]
    return f"{day.isoformat()} {currency} to {house}"


def _fx_create(key: Hashable, fields: dict[str, Any]) -> m.FxRate:
    day, currency, house = key  # type: ignore[misc]
    return m.FxRate.objects.create(gaming_day=day, currency=currency, house=house, **fields)


def _fx_restored(keys: list[Hashable]) -> None:
    """The books of a restored rate's day were folded at the wrong rate (or at none):
    fold its tables again."""
    for day, currency, house in keys:  # type: ignore[misc]
        refold(gaming_day=day, currency=currency, house=house)


FX_RATES = Derived(
    name="exchange rate",
    model=m.FxRate,
    fields=FX_FIELDS,
    derive=fx_rates_from_events,
    key=lambda row: (row.gaming_day, row.currency, row.house),
    describe=lambda row: _fx_key_text((row.gaming_day, row.currency, row.house)),
    describe_key=_fx_key_text,
    unevented=None,
    create=_fx_create,
    after=_fx_restored,
    table_field=None,  # a day's rate, of every table: restored by the whole check only
)
