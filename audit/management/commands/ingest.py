from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError

from audit.ingest import ingest_file
from audit.progress import progress_bar


class Command(BaseCommand):
    help = (
        "Append a JSON Lines file of events. Every line is validated first; a stream with "
        "any bad line is not stored at all. Exits 1 if any line or stream was refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--chunk", type=int, default=5000, help="events per transaction (default 5000)")

    def handle(self, *args, file, chunk, **options):
        if not os.path.isfile(file):
            raise CommandError(f"{file}: not a readable file", returncode=2)
        with progress_bar(total=None, unit="ev", desc="ingest") as bar:
            report = ingest_file(file, chunk=chunk, progress=bar.update)
        for bad in report.bad_lines:
            self.stderr.write(f"{file}:{bad.number}: {bad.reason}")
        for stream, why in sorted(report.failed_streams.items()):
            self.stderr.write(f"{file}: stream {stream}: {why}")
        summary = (
            f"{file}: {report.lines} lines, {report.stored} events stored, "
            f"{report.already_stored} already stored, {len(report.bad_lines)} bad lines"
        )
        if not report.ok:
            raise CommandError(summary, returncode=1)
        self.stdout.write(summary)
