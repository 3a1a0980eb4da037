from __future__ import annotations

import os
import sys
from typing import Any

from django.core.management.base import CommandError

from audit.models import Event
from audit.presenting.commands import BackOfficeCommand, no_events_in
from audit.presenting.progress import progress_bar
from audit.store.export import export_events


class Command(BackOfficeCommand):
    help = (
        "Write events as JSON Lines (one envelope per line, payloads as stored), in position "
        "order: every stream, or one. A progress bar on stderr, on a terminal only."
    )
    exit_codes = {
        0: "exported",
        2: "nothing to export (a --stream with no events), an --out path that cannot "
        "be written, or an unmigrated database",
    }

    def add_arguments(self, parser):
        parser.add_argument("--stream", help="one table's stream only")
        parser.add_argument("--out", help="file to write (default: standard output)")

    def handle(
        self, *args: Any, stream: str | None = None, out: str | None = None, **options: Any
    ) -> None:
        total = Event.objects.filter(**({"stream": stream} if stream else {})).count()
        if stream is not None and not total:
            raise no_events_in(stream, nothing_exported=True)
        with progress_bar(total=total, unit="ev", desc="export") as bar:
            if out is None:
                count = export_events(sys.stdout, stream=stream, progress=bar.update)
            else:
                try:
                    handle = open(out, "w", encoding="utf-8")  # noqa: SIM115 - closed below
                except OSError as error:
                    raise CommandError(
                        f"--out {out}: cannot write there ({error.strerror or error})", returncode=2
                    ) from None
                try:
                    with handle:
                        count = export_events(handle, stream=stream, progress=bar.update)
                except OSError as error:  # the disk filled up, the file system went away
                    raise CommandError(
                        f"--out {out}: writing failed ({error.strerror or error}); "
                        f"the file is incomplete",
                        returncode=2,
                    ) from None
        where = f" to {os.path.abspath(out)}" if out else ""
        self.stderr.write(f"exported {count} events{where}")
