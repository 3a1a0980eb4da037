"""Sign-off (COMAR-style): accounting signs a table's gaming day's reconciliation off, and
may reopen it with a note saying why.

Each action runs in one durable transaction that locks nothing but its own row, appends
its event to the stream ``audit.ledger`` (``ledger.signed_off`` with the figures signed
and their hash; ``ledger.reopened``) and writes the :class:`~ledger.models.SignOff` row -
the audit record written with the change, as the findings' actions do. Then the day is
reconciled again, so that a ``signed_day_changed`` finding appears or goes at once.

A later event that changes a signed-off day's figures (a correction, a late count) is
found by the reconciliation (:mod:`ledger.reconciliation`): the figures no longer hash to
the signed ones.
"""
from __future__ import annotations

from datetime import UTC, date, datetime

from django.db import IntegrityError

from audit.errors import StoreError
from audit.findings import server_change, server_event_append, username_of

from . import models as m
from . import reconciliation as r

LEDGER_STREAM = "audit.ledger"


class SignOffError(StoreError):
    """An action the day's state does not allow (HTTP 409)."""

    http_status = 409
    code = "sign_off_state"


class NothingToSign(StoreError):
    http_status = 404
    code = "not_found"


class NoteRequired(StoreError):
    code = "note_required"

    def __init__(self, what: str) -> None:
        super().__init__(what)

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": {"note": [str(self)]}}


def day_sign_off(*, table: str, gaming_day: date, user: object, note: str | None = None,
                 now: datetime | None = None) -> m.SignOff:
    """Sign ``table``'s ``gaming_day`` off with the figures its reconciliation has now.
    A day with an unexplained variance or not yet complete (no later day opened) needs
    a note. Refused (409) while it is signed off already."""
    username = username_of(user)
    note = (note or "").strip() or None
    now = now or datetime.now(UTC)

    def action() -> m.SignOff:
        row = (m.Reconciliation.objects.select_related("table")
               .filter(table__stream=table, gaming_day=gaming_day, shift="").first())
        if row is None:
            raise NothingToSign(f"The ledger has no figures for table {table!r} on {gaming_day.isoformat()}.")
        existing = m.SignOff.objects.select_for_update().filter(table=table, gaming_day=gaming_day).first()
        if existing is not None and existing.status == m.SignOff.Status.SIGNED:
            raise SignOffError(f"{table} {gaming_day.isoformat()} is signed off already (by {existing.signed_by}); "
                               "reopen it first.")
        if note is None and (row.unexplained or not row.final):
            why = "has an unexplained variance" if row.unexplained else "is not complete yet (no later day opened)"
            raise NoteRequired(f"{table} {gaming_day.isoformat()} {why}: signing it off needs a note saying why.")
        figures = r.signed_figures(row)
        digest = r.figures_hash(figures)
        version = server_event_append(stream=LEDGER_STREAM, type="ledger.signed_off", payload={
            "table": table, "gaming_day": gaming_day.isoformat(), "currency": row.currency, "figures": figures,
            "figures_hash": digest, "by": username, "note": note,
        }, user=user, now=now).version
        values = {"status": m.SignOff.Status.SIGNED, "figures": figures, "figures_hash": digest, "signed_by": username,
                  "signed_at": now, "note": note or "", "reopened_by": "", "reopened_at": None, "reopen_note": "",
                  "event_version": version}
        try:
            signoff, _ = m.SignOff.objects.update_or_create(table=table, gaming_day=gaming_day, defaults=values)
        except IntegrityError:  # a concurrent first sign-off of the same day committed first
            raise SignOffError(f"{table} {gaming_day.isoformat()} was signed off at the same moment.") from None
        return signoff

    signoff = server_change(action)
    r.reconcile_table_day(table=table, gaming_day=gaming_day)
    return signoff


def day_reopen(*, table: str, gaming_day: date, user: object, note: str, now: datetime | None = None) -> m.SignOff:
    """Reopen a signed-off day; the note saying why is required."""
    username = username_of(user)
    text = (note or "").strip()
    if not text:
        raise NoteRequired("Reopening a signed-off day needs a note saying why.")
    now = now or datetime.now(UTC)

    def action() -> m.SignOff:
        signoff = m.SignOff.objects.select_for_update().filter(table=table, gaming_day=gaming_day).first()
        if signoff is None or signoff.status != m.SignOff.Status.SIGNED:
            raise SignOffError(f"{table} {gaming_day.isoformat()} is not signed off.")
        signoff.event_version = server_event_append(stream=LEDGER_STREAM, type="ledger.reopened", payload={
            "table": table, "gaming_day": gaming_day.isoformat(), "figures_hash": signoff.figures_hash,
            "by": username, "note": text,
        }, user=user, now=now).version
        signoff.status = m.SignOff.Status.REOPENED
        signoff.reopened_by, signoff.reopened_at, signoff.reopen_note = username, now, text
        signoff.save()
        return signoff

    signoff = server_change(action)
    r.reconcile_table_day(table=table, gaming_day=gaming_day)
    return signoff
