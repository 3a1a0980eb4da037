from __future__ import annotations

import time
from datetime import UTC, date, datetime

from django.conf import settings
from django.core.management.base import CommandError
from django.db.models import Max

from audit.models import Event, ReplayRun
from audit.presenting.commands import BackOfficeCommand, no_events_in
from audit.presenting.progress import progress_bar
from audit.store.gaming_day import gaming_day
from tables import models as m
from tables import replay_service


class Command(BackOfficeCommand):
    help = (
        "Replay a gaming day through the rules engine: every table of the day (one Celery "
        "task per table, gathered by a chord; without a broker, the tables in --jobs processes here) "
        "or one --stream; incremental unless --full. "
        "Writes the read models and the findings; prints a summary. --day is required "
        "without --stream ('--day today' for the current gaming day); with --stream and no "
        "--day, every gaming day of that table. A progress bar (tables) on stderr, on a "
        "terminal only."
    )
    exit_codes = {
        0: "replayed (findings or not: they are in the summary)",
        1: "the workers did not finish within --timeout",
        2: "no --day without --stream, a bad --day or --jobs, an unknown --stream, or an unmigrated database",
    }

    def add_arguments(self, parser):
        parser.add_argument(
            "--day",
            help="the gaming day, YYYY-MM-DD, or 'today' (the current gaming day, by "
            "GAMING_DAY_CUTOFF_HOUR); required without --stream, where leaving it out means every day",
        )
        parser.add_argument("--stream", help="one table's stream only")
        parser.add_argument(
            "--full", action="store_true", help="refold everything, not only what is new"
        )
        parser.add_argument(
            "--timeout", type=int, default=3600, help="seconds to wait for the workers"
        )
        parser.add_argument(
            "--jobs",
            type=int,
            default=None,
            help="without a broker: tables replayed by this many processes at once (default: one "
            "per core on PostgreSQL; 1 on SQLite, which takes one writer at a time)",
        )

    def handle(self, *args, day=None, stream=None, full=False, timeout=3600, jobs=None, **options):
        if jobs is not None and jobs < 1:
            raise CommandError(
                f"--jobs {jobs}: expected a whole number of at least 1", returncode=2
            )
        today = gaming_day(datetime.now(UTC))
        try:
            wanted = today if day == "today" else date.fromisoformat(day) if day else None
        except ValueError:
            raise CommandError(
                f"--day {day!r}: expected YYYY-MM-DD or 'today'", returncode=2
            ) from None
        if stream is not None:
            if not Event.objects.filter(stream=stream).exists():
                raise no_events_in(stream)
            with progress_bar(total=1, unit="table", desc="replay") as bar:
                summary = replay_service.replay_table(
                    stream=stream, day=wanted, full=full, trigger="command"
                )
                bar.update(1)
            self._print([summary], summary)
            return
        if wanted is None:
            latest = m.TableDay.objects.aggregate(latest=Max("gaming_day"))["latest"]
            known = f"; the latest gaming day the read models hold is {latest}" if latest else ""
            raise CommandError(
                f"say which gaming day: --day YYYY-MM-DD, or --day today ({today}){known}; "
                "or --stream T for every day of one table",
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
        with progress_bar(total=tables, unit="table", desc=f"replay {day}") as bar:
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
        with progress_bar(total=parent.tables_total, unit="table", desc=f"replay {day}") as bar:
            while True:
                parent.refresh_from_db()
                bar.update(parent.tables_done - bar.n)
                if parent.status != ReplayRun.Status.RUNNING:
                    break
                if time.monotonic() > deadline:
                    raise CommandError(
                        f"replay run {parent.pk} is still running after {timeout} s", returncode=1
                    )
                time.sleep(0.5)
        tables = [child.summary for child in parent.children.order_by("stream") if child.summary]
        return {**parent.summary, "_tables": tables}

    def _print(self, tables: list[dict], summary: dict) -> None:
        for table in tables:
            self.stdout.write(
                f"{table['stream']}: {_n(table['rounds'], 'round')} replayed, {_n(table['findings'], 'finding')} "
                f"({table['new']} new, {table['superseded']} superseded)"
            )
        kinds = summary.get("open_by_kind") or {}
        self.stdout.write(
            "findings by kind: " + (", ".join(f"{k} {n}" for k, n in kinds.items()) or "none")
        )


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
