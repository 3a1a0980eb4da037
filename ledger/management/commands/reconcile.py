from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

from django.core.management.base import CommandError
from django.db.models import Max, Min
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.feed.fanout import default_jobs
from audit.feed.subscribers import catch_up
from audit.presenting.commands import BackOfficeCommand
from audit.presenting.progress import progress_bar
from audit.store.gaming_day import gaming_day
from ledger import models as m
from ledger import reconciliation, selectors
from ledger.accounting_admin import machine_read
from ledger.feed import NAME


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Reconcile table-days four ways - chip-count, recorded, replayed and theoretical win - "
        "and record what is found (the ledger's read models are brought up to the feed's head "
        "first). Every table of --day (default: today's gaming day), or with --table every day "
        "of that table; prints each table-day's state (open, incomplete and what is missing, no "
        "drop box, counted, reconciled, signed off, adjusted). A progress bar on stderr on a terminal."
    )
    exit_codes = {
        0: gettext_lazy(
            "every table-day is complete and every variance explained (none beyond its "
            "currency's threshold, LEDGER_VARIANCE_THRESHOLDS)"
        ),
        1: gettext_lazy(
            "a table-day lacks a count, a drop or a finished slip, or has a variance not explained"
        ),
        2: gettext_lazy(
            "bad input: a malformed day, a table or day the ledger has no figures for, an "
            "unmigrated database"
        ),
    }

    def add_arguments(self, parser):
        parser.add_argument("--day", help=_("the gaming day, YYYY-MM-DD"))
        parser.add_argument("--table", help=_("one table's code only"))
        parser.add_argument(
            "--json",
            action="store_true",
            help=_(
                "a JSON array, one object per table-day (amounts in minor units, with their text)"
            ),
        )

    def handle(self, *args, day=None, table=None, json=False, **options):
        try:
            wanted = date.fromisoformat(day) if day else None
        except ValueError:
            raise CommandError(
                _("%(option)s %(text)r: expected YYYY-MM-DD") % {"option": "--day", "text": day},
                returncode=2,
            ) from None
        # a bulk catch-up (a day ingested with nothing projected) folds every table of it:
        # the tables in a process per core, as replay_day takes them
        catch_up(NAME, jobs=default_jobs())
        if table is not None and not m.LedgerTable.objects.filter(stream=table).exists():
            tables = sorted(m.LedgerTable.objects.values_list("stream", flat=True))
            raise CommandError(
                _("--table %(table)r: the ledger has no such table (%(tables)s)")
                % {"table": table, "tables": ", ".join(tables) or _("none yet")},
                returncode=2,
            )
        today = wanted is None and table is None
        if today:
            wanted = gaming_day(datetime.now(UTC))
        days = list(
            selectors.reconciliations(table=table, day=wanted).values_list(
                "table__stream", "gaming_day"
            )
        )
        if not days:
            raise CommandError(_no_figures(table, wanted, today=today), returncode=2)
        results = []
        with progress_bar(total=len(days), unit=_("table-day"), desc="reconcile") as bar:
            for stream, when in days:
                done = reconciliation.reconcile_table_day(table=stream, gaming_day=when)
                if done is not None:
                    results.append(done)
                bar.update(1)
        if json:
            with machine_read():  # for programs: English and ISO amounts, whatever the locale
                self.stdout.write(_json([self._object(r) for r in results]))
        else:
            for result in results:
                self._print(result)
        unexplained = sum(1 for r in results if r.rows[0].unexplained)
        lacking = sum(1 for r in results if r.rows[0].missing)
        said: list[str] = []
        if lacking:
            said.append(
                ngettext(
                    "%(lacking)d of %(total)d table-day(s) lack a count, a drop or a finished slip",
                    "%(lacking)d of %(total)d table-day(s) lack a count, a drop or a finished slip",
                    lacking,
                )
                % {"lacking": lacking, "total": len(results)}
            )
        if unexplained:
            said.append(
                ngettext(
                    "%(unexplained)d of %(total)d table-day(s) have a variance the record "
                    "does not explain",
                    "%(unexplained)d of %(total)d table-day(s) have a variance the record "
                    "does not explain",
                    unexplained,
                )
                % {"unexplained": unexplained, "total": len(results)}
            )
        if said:
            raise CommandError("; ".join(said), returncode=1)

    def _object(self, result: reconciliation.Reconciled) -> dict[str, Any]:
        day, *shifts = result.rows
        findings = list(selectors.findings_of_day(table=result.table, day=result.gaming_day))
        signoff = m.SignOff.objects.filter(table=result.table, gaming_day=result.gaming_day).first()
        return {
            **selectors.as_dict(day, findings=findings, signoff=signoff),
            "shifts": [selectors.as_dict(s) for s in shifts],
        }

    def _print(self, result: reconciliation.Reconciled) -> None:
        day = result.rows[0]
        shown = selectors.as_dict(day)["display"]
        self.stdout.write(
            _(
                "%(table)s %(day)s: chip-count %(chip_count_win)s, recorded %(recorded_win)s, "
                "replayed %(replayed_win)s, theoretical %(theoretical_win)s (SD "
                "%(theoretical_sd)s), drop %(drop)s, hold %(hold)s; %(state)s"
            )
            % {
                **shown,  # the figures, as the screens write them
                "table": result.table,
                "day": result.gaming_day.isoformat(),
                "state": selectors.state_text(day),
            }
        )
        for finding in selectors.findings_of_day(table=result.table, day=result.gaming_day):
            self.stdout.write(
                f"  {finding.kind} ({finding.severity}, {finding.status}): {finding.message}"
            )


def _no_figures(table: str | None, day: date | None, *, today: bool) -> str:
    """Exit 2's line when nothing matches: what was looked for (today's gaming day when
    no --day was given) and the days the ledger has figures of, to pass as --day."""
    where = {"table": table, "day": day.isoformat() if day is not None else None}
    if day is None:
        said = (
            _("the ledger has no figures for table %(table)s") % where
            if table
            else _("the ledger has no figures for any table")
        )
    elif table:
        said = _("the ledger has no figures for table %(table)s on %(day)s") % where
    elif today:
        said = (
            _(
                "the ledger has no figures for any table on %(day)s (today's gaming day: --day "
                "YYYY-MM-DD for another)"
            )
            % where
        )
    else:
        said = _("the ledger has no figures for any table on %(day)s") % where
    known = selectors.reconciliations(table=table).aggregate(
        first=Min("gaming_day"), last=Max("gaming_day")
    )
    if known["first"] is None:
        has = _("it has none yet (ingest a day's events, then manage.py catch_up)")
    else:
        first, last = known["first"].isoformat(), known["last"].isoformat()
        has = (
            _("it has figures of %(first)s") % {"first": first}
            if first == last
            else _("it has figures of %(first)s to %(last)s") % {"first": first, "last": last}
        )
    return f"{said}; {has}"


def _json(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False)
