from __future__ import annotations

import getpass
import os
from typing import Any

from django.core.management.base import CommandError

from audit.access.authority import person_for_ingest
from audit.presenting.commands import BackOfficeCommand
from audit.presenting.progress import count_lines, progress_bar
from audit.record.authority import ingest_principal
from audit.store.ingest import DatabaseLost, ingest_file


class Command(BackOfficeCommand):
    help = (
        "Append a JSON Lines file of events. Every line is checked first; a stream with "
        "any bad line is not stored at all. A line of a type that changes money after the "
        "fact (a correction, a void) is stored only with --as a person holding its "
        "permission. A progress bar (lines checked, then events written) on stderr, on a "
        "terminal only."
    )
    exit_codes = {
        0: "every line stored (or already stored)",
        1: "some line or stream was refused (each is named)",
        2: "the file cannot be read, the database is not migrated, or --as names no person",
        3: "the database went away during the ingest (a restart, a dropped connection): a file "
        "written as it was planned (PostgreSQL, a file over 4 MB) stored nothing; otherwise "
        "the chunks committed stay and verify names the unfinished ingest; running the same command "
        "again completes it (what is stored is skipped, nothing is stored twice)",
    }

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument(
            "--chunk", type=int, default=5000, help="events per transaction (default 5000)"
        )
        parser.add_argument(
            "--as",
            dest="as_user",
            metavar="USERNAME",
            help="the person the file is ingested for (recorded with every event): its corrections "
            "and voids are stored only when they hold the permission each needs "
            "(the pit_boss group holds them); without it, those lines are refused",
        )

    def handle(
        self, *args: Any, file: str, chunk: int, as_user: str | None = None, **options: Any
    ) -> None:
        if not os.path.isfile(file):
            raise CommandError(f"{file}: not a readable file", returncode=2)
        if chunk < 1:
            raise CommandError(f"--chunk {chunk}: must be at least 1", returncode=2)
        if as_user is not None:
            try:
                person_for_ingest(as_user)
            except LookupError as error:
                raise CommandError(str(error), returncode=2) from None
        principal = ingest_principal(getpass.getuser(), as_user)
        try:
            lines = count_lines(file)
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror or error}", returncode=2) from None
        writing = []  # set once the write pass has begun: the bar starts again
        with progress_bar(total=lines, unit="line", desc="ingest: check") as bar:

            def checked(n: int) -> None:
                bar.update(n - bar.n)

            def written(n: int) -> None:
                if not writing:
                    writing.append(True)
                    bar.reset(total=lines)
                    bar.set_description("ingest: write")
                bar.update(n)

            try:
                report = ingest_file(
                    file, chunk=chunk, progress=written, checked=checked, principal=principal
                )
            except DatabaseLost as lost:
                stored = (
                    "nothing was stored (the file is written in one transaction, which was not "
                    "committed)"
                    if not lost.stored
                    else f"{lost.stored} events were stored in whole chunks"
                )
                raise CommandError(
                    f"{file}: the database went away during the ingest ({lost.detail}); {stored} - run the same "
                    "ingest again to complete it",
                    returncode=3,
                ) from None
        for bad in report.bad_lines:
            self.stderr.write(f"{file}:{bad.number}: {bad.reason}")
        for stream, why in sorted(report.failed_streams.items()):
            self.stderr.write(f"{file}: stream {stream}: {why}")
        summary = (
            f"{file}: {report.lines:,} lines, {report.stored:,} events stored, "
            f"{report.already_stored:,} already stored, {len(report.bad_lines):,} bad lines"
        )
        if not report.ok:
            raise CommandError(summary, returncode=1)
        self.stdout.write(summary)
