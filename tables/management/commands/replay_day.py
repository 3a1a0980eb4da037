from __future__ import annotations

import time
from datetime import UTC, date, datetime

from django.conf import settings
from django.core.management.base import CommandError
from django.db.models import Max
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.models import Event, ReplayRun
from audit.presenting.commands import BackOfficeCommand, no_events_in
from audit.presenting.progress import progress_bar
from audit.record.money import format_number
from audit.store.gaming_day import gaming_day
from tables import models as m
from tables import replay_service


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Replay a gaming day through the rules engine: every table of the day (one Celery "
        "task per table, gathered by a chord; without a broker, the tables in --jobs processes here) "
        "or one --stream; incremental unless --full. "
        "Writes the read models and the findings; prints a summary. --day is required "
        "without --stream ('--day today' for the current gaming day); with --stream and no "
        "--day, every gaming day of that table. A progress bar (tables) on stderr, on a "
        "terminal only."
    )
    exit_codes = {
        0: gettext_lazy("replayed (findings or not: they are in the summary)"),
        1: gettext_lazy("the workers did not finish within --timeout"),
        2: gettext_lazy(
            "no --day without --stream, a bad --day or --jobs, an unknown --stream, or an "
            "unmigrated database"
        ),
    }

    def add_arguments(self, parser):
        parser.add_argument(
            "--day",
            help=_(
                "the gaming day, YYYY-MM-DD, or 'today' (the current gaming day, by "
                "GAMING_DAY_CUTOFF_HOUR); required without --stream, where leaving it out means "
                "every day"
            ),
        )
        parser.add_argument("--stream", help=_("one table's stream only"))
        parser.add_argument(
            "--full", action="store_true", help=_("refold everything, not only what is new")
        )
        parser.add_argument(
            "--timeout", type=int, default=3600, help=_("seconds to wait for the workers")
        )
        parser.add_argument(
            "--jobs",
            type=int,
            default=None,
            help=_(
                "without a broker: tables replayed by this many processes at once (default: one "
                "per core on PostgreSQL; 1 on SQLite, which takes one writer at a time)"
            ),
        )

    def handle(self, *args, day=None, stream=None, full=False, timeout=3600, jobs=None, **options):
        if jobs is not None and jobs < 1:
            raise CommandError(
                _("--jobs %(jobs)s: expected a whole number of at least 1") % {"jobs": jobs},
                returncode=2,
            )
        today = gaming_day(datetime.now(UTC))
        try:
            wanted = today if day == "today" else date.fromisoformat(day) if day else None
        except ValueError:
            raise CommandError(
                _("--day %(day)r: expected YYYY-MM-DD or 'today'") % {"day": day}, returncode=2
            ) from None
        if stream is not None:
            if not Event.objects.filter(stream=stream).exists():
                raise no_events_in(stream)
            with progress_bar(total=1, unit=_("table"), desc="replay") as bar:
                summary = replay_service.replay_table(
                    stream=stream, day=wanted, full=full, trigger="command"
                )
                bar.update(1)
            self._print([summary], summary)
            return
        if wanted is None:
            latest = m.TableDay.objects.aggregate(latest=Max("gaming_day"))["latest"]
            raise CommandError(
                _(
                    "say which gaming day: --day YYYY-MM-DD, or --day today (%(today)s); the "
                    "latest gaming day the read models hold is %(latest)s; or --stream T for "
                    "every day of one table"
                )
                % {"today": today, "latest": latest}
                if latest
                else _(
                    "say which gaming day: --day YYYY-MM-DD, or --day today (%(today)s); or "
                    "--stream T for every day of one table"
                )
                % {"today": today},
                returncode=2,
            )
        if settings.CELERY_TASK_ALWAYS_EAGER:
            if jobs is None:
                jobs = replay_service.default_jobs()
            summary = self._in_process(wanted, full, jobs)
        else:
            summary = self._on_workers(wanted, full, timeout)
        self._print(summary.pop("_tables"), summary)

    def _in_process(self, day: date, full: bool, jobs: int) -> dict:
        """No broker: the tables in ``jobs`` processes here, the bar moving per table."""
        tables = len(replay_service.day_streams(day))
        with progress_bar(total=tables, unit=_("table"), desc=f"replay {day}") as bar:
            return replay_service.replay_day_here(
                day=day,
                full=full,
                trigger="command",
                jobs=jobs,
                progress=lambda _summary: bar.update(1),
            )

    def _on_workers(self, day: date, full: bool, timeout: int) -> dict:
        """A broker: the chord on the workers; the bar follows the parent run."""
        parent = replay_service.replay_day_launch(day=day, full=full, trigger="command")
        deadline = time.monotonic() + timeout
        with progress_bar(total=parent.tables_total, unit=_("table"), desc=f"replay {day}") as bar:
            while True:
                parent.refresh_from_db()
                bar.update(parent.tables_done - bar.n)
                if parent.status != ReplayRun.Status.RUNNING:
                    break
                if time.monotonic() > deadline:
                    raise CommandError(
                        _("replay run %(run)s is still running after %(timeout)s s")
                        % {"run": parent.pk, "timeout": timeout},
                        returncode=1,
                    )
                time.sleep(0.5)
        tables = [child.summary for child in parent.children.order_by("stream") if child.summary]
        return {**parent.summary, "_tables": tables}

    def _print(self, tables: list[dict], summary: dict) -> None:
        for table in tables:
            rounds = ngettext(
                "%(count)s round replayed", "%(count)s rounds replayed", table["rounds"]
            ) % {"count": format_number(table["rounds"])}
            findings = ngettext(
                "%(count)s finding (%(new)s new, %(superseded)s superseded)",
                "%(count)s findings (%(new)s new, %(superseded)s superseded)",
                table["findings"],
            ) % {
                "count": format_number(table["findings"]),
                "new": format_number(table["new"]),
                "superseded": format_number(table["superseded"]),
            }
            self.stdout.write(f"{table['stream']}: {rounds}, {findings}")
        kinds = summary.get("open_by_kind") or {}
        # the kinds are the findings' codes, as --kind and the API take them
        self.stdout.write(
            _("findings by kind: %(kinds)s")
            % {"kinds": ", ".join(f"{k} {n}" for k, n in kinds.items()) or _("none")}
        )
