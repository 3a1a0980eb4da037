from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from audit.commands import BackOfficeCommand, no_events_in
from audit.models import Event
from audit.progress import progress_bar
from tables.projections import first_difference, rebuild, rebuild_streams


class Command(BackOfficeCommand):
    help = (
        "Drop the read models (tables, days, shoes, rounds, hands, bets) and build them "
        "again from the first event by the rules engine's replay; then compare the rebuilt "
        "rows with the ones that were live, row by row. A progress bar (tables) on stderr, "
        "on a terminal only."
    )
    exit_codes = {0: "rebuilt, equal to the live rows", 1: "rebuilt, but it differs from the live rows (the first "
                  "difference is named; the rebuilt rows stay)", 2: "an unknown --stream, or an unmigrated database"}

    def add_arguments(self, parser):
        parser.add_argument("--stream", help="one table's stream only")

    def handle(self, *args: Any, stream: str | None = None, **options: Any) -> None:
        if stream is not None and not Event.objects.filter(stream=stream).exists():
            raise no_events_in(stream)
        with progress_bar(total=len(rebuild_streams(stream)), unit="table", desc="rebuild") as bar:
            live, rebuilt = rebuild(stream, progress=lambda _table: bar.update(1))
        difference = first_difference(live, rebuilt)
        counts = ", ".join(f"{len(rows)} {name}s" for name, rows in rebuilt.items() if name != "without a round")
        if difference is not None:
            raise CommandError(f"the rebuilt projection differs from the live one: {difference}", returncode=1)
        self.stdout.write(f"rebuilt {counts}: equal to the live projection, row by row")
