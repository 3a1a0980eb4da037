"""Sign-off (COMAR-style): accounting signs a table's gaming day's reconciliation off - which
closes the day - and may reopen it with a note saying why.

Who: a person (never a device account) holding ``ledger.sign_off`` (the ``accounting``
group, a superuser); the services check it themselves, whatever the caller checked.

Each action runs in one durable transaction that locks nothing but its own row, appends
its event to the stream ``audit.ledger`` and writes the :class:`~ledger.models.SignOff`
row - the audit record written with the change, as the findings' actions do.

- ``ledger.signed_off`` carries the figures signed and their hash, the day's state, the
  **exceptions** its note signs over - what the record lacks (``closer_missing``, ...), a
  variance not explained, a day not final - and the adjustments from earlier signed days
  the day carries. A day with any exception is signed only with a note.
- A signed day is **closed**: its rows stay as signed (:mod:`ledger.projection`); events
  that arrive later for it are posted as an adjustment into the first day of the table
  not signed off (:func:`ledger.reconciliation.route_adjustments`), and are the finding
  ``signed_day_changed``.
- ``ledger.reopened`` needs a note. A day whose later events a signed day carries is
  reopened only after that day (409): else the change would count twice. Reopened, the
  day is folded again: its rows are the record as it is now.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import get_args

from django.db import IntegrityError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from audit.access.authority import require_person
from audit.findings.workflow import server_change, server_event_append, username_of
from audit.record.events.catalogue import DayState
from audit.store.errors import StoreError
from ledger.books.reconcile import MISSING_WORDS

from . import models as m
from . import reconciliation as r
from . import selectors

LEDGER_STREAM = "audit.ledger"
DAY_STATES = frozenset(get_args(DayState))


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


def _may_sign(user: object) -> None:
    require_person(
        user, "ledger.sign_off", "sign off or reopen a gaming day (the accounting group)"
    )


# what each exception says, in the refusal and on the screens
EXCEPTION_WORDS = {
    **MISSING_WORDS,
    "chip_variance": gettext_noop("a chip variance not explained"),
    "replay_variance": gettext_noop("a replay variance not explained"),
    "drop_mismatch": gettext_noop("the drop posted differs from its count"),
    "currency_mismatch": gettext_noop(
        "an amount in another currency not booked (no rate of the day)"
    ),
    "slip_mismatch": gettext_noop("a fill or credit slip whose steps disagree"),
    "not_final": gettext_noop("the table has not opened a later gaming day"),
}


def exceptions_of(day: m.Reconciliation, shifts: list[m.Reconciliation]) -> list[str]:
    """What signing ``day`` off would sign over: what its record lacks, each difference not
    explained (a variance, by the day or its shifts; a drop posted other than counted),
    and a day its table has not left yet."""
    out = list(day.missing)
    if day.unexplained:
        found = {f.get("kind") for row in (day, *shifts) for f in row.findings}
        found.update(r.custody_of_day(day, shifts, drop_box=day.drop_box)[1])
        out += [kind for kind in r.UNEXPLAINED if kind in found] or ["chip_variance"]
    if not day.final:
        out.append("not_final")
    return out


def exceptions_text(exceptions: list[str]) -> str:
    """What a sign-off signs over, in the active language (the record keeps the codes)."""
    return "; ".join(
        selectors.missing_words([e]) if e in MISSING_WORDS else _(EXCEPTION_WORDS.get(e, e))
        for e in exceptions
    )


def day_sign_off(
    *,
    table: str,
    gaming_day: date,
    user: object,
    note: str | None = None,
    now: datetime | None = None,
) -> m.SignOff:
    """Sign ``table``'s ``gaming_day`` off with the figures its reconciliation has now,
    which closes it. A day with an exception (:func:`exceptions_of`) needs a note, which
    the event records with them. Refused (409) while it is signed off already, and while
    its replay is not yet available (the tables' read models behind the ledger's)."""
    _may_sign(user)
    username = username_of(user)
    note = (note or "").strip() or None
    now = now or datetime.now(UTC)

    def action() -> m.SignOff:
        rows = list(
            m.Reconciliation.objects.select_related("table").filter(
                table__stream=table, gaming_day=gaming_day
            )
        )
        row = next((x for x in rows if not x.shift), None)
        if row is None:
            raise NothingToSign(
                _("The ledger has no figures for table %(table)r on %(day)s.")
                % {"table": table, "day": gaming_day.isoformat()}
            )
        existing = (
            m.SignOff.objects.select_for_update().filter(table=table, gaming_day=gaming_day).first()
        )
        if existing is not None and existing.status == m.SignOff.Status.SIGNED:
            raise SignOffError(
                _("%(table)s %(day)s is signed off already (by %(who)s); reopen it first.")
                % {"table": table, "day": gaming_day.isoformat(), "who": existing.signed_by}
            )
        if row.replayed_win is None:
            # its replayed win is not given yet (state replay_pending, or open or incomplete
            # besides): a figure missing that no note may sign over, and it comes by itself
            raise SignOffError(
                _(
                    "%(table)s %(day)s: the replay is not yet available (the game's read models "
                    "are behind the ledger); sign it off once they have caught up."
                )
                % {"table": table, "day": gaming_day.isoformat()}
            )
        exceptions = exceptions_of(row, [x for x in rows if x.shift])
        if note is None and exceptions:
            raise NoteRequired(
                _(
                    "%(table)s %(day)s is %(state)s: %(what)s. Signing it off needs a note saying why."
                )
                % {
                    "table": table,
                    "day": gaming_day.isoformat(),
                    "state": row.get_state_display(),
                    "what": exceptions_text(exceptions),
                }
            )
        figures = r.signed_figures(row)
        digest = r.figures_hash(figures)
        state = row.state if row.state in DAY_STATES else None
        version = server_event_append(
            stream=LEDGER_STREAM,
            type="ledger.signed_off",
            payload={
                "table": table,
                "gaming_day": gaming_day.isoformat(),
                "currency": row.currency,
                "figures": figures,
                "figures_hash": digest,
                "by": username,
                "note": note,
                "state": state,
                "exceptions": exceptions,
                "adjustments": [
                    {
                        "gaming_day": a["gaming_day"],
                        "figures": a["figures"],
                        "win": a["win"],
                        "drop": a["drop"],
                        "house_result": a["house_result"],
                    }
                    for a in row.adjustments
                ],
            },
            user=user,
            now=now,
        ).version
        values = {
            "status": m.SignOff.Status.SIGNED,
            "figures": figures,
            "figures_hash": digest,
            "signed_by": username,
            "signed_at": now,
            "note": note or "",
            "state": state or "",
            "exceptions": exceptions,
            "reopened_by": "",
            "reopened_at": None,
            "reopen_note": "",
            "event_version": version,
        }
        try:
            signoff, _created = m.SignOff.objects.update_or_create(
                table=table, gaming_day=gaming_day, defaults=values
            )
        except IntegrityError:  # a concurrent first sign-off of the same day committed first
            raise SignOffError(
                _("%(table)s %(day)s was signed off at the same moment.")
                % {"table": table, "day": gaming_day.isoformat()}
            ) from None
        return signoff

    signoff = server_change(action)
    r.reconcile_table_day(table=table, gaming_day=gaming_day)
    return signoff


def day_reopen(
    *, table: str, gaming_day: date, user: object, note: str, now: datetime | None = None
) -> m.SignOff:
    """Reopen a signed-off day; the note saying why is required. Refused (409) while a
    signed day carries the day's later events. The day is then folded again."""
    _may_sign(user)
    username = username_of(user)
    text = (note or "").strip()
    if not text:
        raise NoteRequired(_("Reopening a signed-off day needs a note saying why."))
    now = now or datetime.now(UTC)

    def action() -> m.SignOff:
        signoff = (
            m.SignOff.objects.select_for_update().filter(table=table, gaming_day=gaming_day).first()
        )
        if signoff is None or signoff.status != m.SignOff.Status.SIGNED:
            raise SignOffError(
                _("%(table)s %(day)s is not signed off.")
                % {"table": table, "day": gaming_day.isoformat()}
            )
        carriers = [
            row.gaming_day.isoformat()
            for row in m.Reconciliation.objects.filter(
                table__stream=table, shift="", gaming_day__gt=gaming_day
            ).order_by("gaming_day")
            if any(a.get("gaming_day") == gaming_day.isoformat() for a in row.adjustments)
            and m.SignOff.objects.filter(
                table=table, gaming_day=row.gaming_day, status=m.SignOff.Status.SIGNED
            ).exists()
        ]
        if carriers:
            raise SignOffError(
                _(
                    "%(table)s %(day)s: its later events were posted into %(days)s, signed off; "
                    "reopen %(last)s first."
                )
                % {
                    "table": table,
                    "day": gaming_day.isoformat(),
                    "days": ", ".join(carriers),
                    "last": carriers[-1],
                }
            )
        signoff.event_version = server_event_append(
            stream=LEDGER_STREAM,
            type="ledger.reopened",
            payload={
                "table": table,
                "gaming_day": gaming_day.isoformat(),
                "figures_hash": signoff.figures_hash,
                "by": username,
                "note": text,
            },
            user=user,
            now=now,
        ).version
        signoff.status = m.SignOff.Status.REOPENED
        signoff.reopened_by, signoff.reopened_at, signoff.reopen_note = username, now, text
        signoff.save()
        return signoff

    signoff = server_change(action)
    # the day's rows were kept as signed: folded again, they are the record as it is now
    from .projection import project_table

    project_table(stream=table, redo={gaming_day.isoformat()})
    r.reconcile_table_day(table=table, gaming_day=gaming_day)
    return signoff
