from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from audit.models import Event
from tables.projections import first_difference, rebuild


class Command(BaseCommand):
    help = (
        "Drop the read models (tables, days, shoes, rounds, hands, bets) and build them "
        "again from the first event by the rules engine's replay; then compare the rebuilt "
        "rows with the ones that were live, row by row. Exit 0 when equal, 1 naming the "
        "first difference otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument("--stream", help="one table's stream only")

    def handle(self, *args, stream=None, **options):
        if stream is not None and not Event.objects.filter(stream=stream).exists():
            raise CommandError(f"--stream {stream!r}: the store has no events in that stream", returncode=2)
        live, rebuilt = rebuild(stream)
        difference = first_difference(live, rebuilt)
        counts = ", ".join(f"{len(rows)} {name}s" for name, rows in rebuilt.items())
        if difference is not None:
            raise CommandError(f"the rebuilt projection differs from the live one: {difference}", returncode=1)
        self.stdout.write(f"rebuilt {counts}: equal to the live projection, row by row")
