from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from audit.feed.derived import derived_disagreements, derived_restore
from audit.models import Event
from audit.presenting.commands import BackOfficeCommand, no_events_in
from audit.presenting.progress import progress_bar
from tables.projections import first_difference, rebuild, rebuild_streams


class Command(BackOfficeCommand):
    help = (
        "Drop the read models (tables, days, shoes, rounds, hands, bets) and build them "
        "again from the first event by the rules engine's replay; then compare the rebuilt "
        "rows with the ones that were live, row by row. Then writes the rows people act on (findings' "
        "status, sign-offs, alerts' acknowledgements) as their events make them, naming each row it "
        "wrote - with --stream, those of that table only. A progress bar (tables) on stderr, on a terminal only."
    )
    exit_codes = {
        0: "rebuilt, equal to the live rows",
        1: "rebuilt, but it differs from the live rows (the first "
        "difference is named; the rebuilt rows stay), or a row people act on differed from its events "
        "(each is named and written as its events make it, or named as left)",
        2: "an unknown --stream, or an unmigrated database",
    }

    def add_arguments(self, parser):
        parser.add_argument("--stream", help="one table's stream only")

    def handle(self, *args: Any, stream: str | None = None, **options: Any) -> None:
        if stream is not None and not Event.objects.filter(stream=stream).exists():
            raise no_events_in(stream)
        with progress_bar(total=len(rebuild_streams(stream)), unit="table", desc="rebuild") as bar:
            live, rebuilt = rebuild(stream, progress=lambda _table: bar.update(1))
        difference = first_difference(live, rebuilt)
        counts = ", ".join(
            f"{len(rows)} {name}s" for name, rows in rebuilt.items() if name != "without a round"
        )
        restored = self._read_models(stream)
        if difference is not None:
            raise CommandError(
                f"the rebuilt projection differs from the live one: {difference}", returncode=1
            )
        self.stdout.write(f"rebuilt {counts}: equal to the live projection, row by row")
        if restored:
            raise CommandError("; ".join(restored), returncode=1)

    def _read_models(self, stream: str | None) -> list[str]:
        """The rows people act on (of table ``stream`` only, when given) written as their
        events make them (audit.feed.derived): each disagreement named on stderr; what it says
        of them (empty: all agreed)."""
        disagreements = derived_disagreements(stream)
        if not disagreements:
            of = f" of table {stream}" if stream is not None else ""
            self.stdout.write(f"the rows people act on{of} agree with their events")
            return []
        for found in disagreements:
            self.stderr.write(f"read model: {found}")
        done = derived_restore(stream)
        said = [
            f"{count} {name} row(s) written as their events make them"
            for name, count in done.written.items()
        ]
        said += [
            f"{count} {name} row(s) made again from their events"
            for name, count in done.made.items()
        ]
        for found in done.left:
            self.stderr.write(f"read model left as it is: {found}")
        if done.left:
            said.append(
                f"{len(done.left)} disagreement(s) left (a row no event made, or one only its check makes)"
            )
        return said
