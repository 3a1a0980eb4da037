from __future__ import annotations

import getpass
import os
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.access.authority import person_for_ingest
from audit.presenting.commands import BackOfficeCommand
from audit.presenting.progress import count_lines, progress_bar
from audit.record.authority import ingest_principal
from audit.record.money import format_number
from audit.store.ingest import DatabaseLost, ingest_file


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Append a JSON Lines file of events. Every line is checked first; a stream with "
        "any bad line is not stored at all. A line of a type that changes money after the "
        "fact (a correction, a void) is stored only with --as a person holding its "
        "permission. A progress bar (lines checked, then events written) on stderr, on a "
        "terminal only."
    )
    exit_codes = {
        0: gettext_lazy("every line stored (or already stored)"),
        1: gettext_lazy("some line or stream was refused (each is named)"),
        2: gettext_lazy(
            "the file cannot be read, the database is not migrated, or --as names no person"
        ),
        3: gettext_lazy(
            "the database went away during the ingest (a restart, a dropped connection): a file "
            "written as it was planned (PostgreSQL, a file over 4 MB) stored nothing; otherwise "
            "the chunks committed stay and verify names the unfinished ingest; running the same "
            "command again completes it (what is stored is skipped, nothing is stored twice)"
        ),
    }

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument(
            "--chunk", type=int, default=5000, help=_("events per transaction (default 5000)")
        )
        parser.add_argument(
            "--as",
            dest="as_user",
            metavar="USERNAME",
            help=_(
                "the person the file is ingested for (recorded with every event): its corrections "
                "and voids are stored only when they hold the permission each needs "
                "(the pit_boss group holds them); without it, those lines are refused"
            ),
        )

    def handle(
        self, *args: Any, file: str, chunk: int, as_user: str | None = None, **options: Any
    ) -> None:
        if not os.path.isfile(file):
            raise CommandError(_("%(file)s: not a readable file") % {"file": file}, returncode=2)
        if chunk < 1:
            raise CommandError(
                _("--chunk %(chunk)s: must be at least 1") % {"chunk": chunk}, returncode=2
            )
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
        with progress_bar(total=lines, unit="line", desc=_("ingest: check")) as bar:

            def checked(n: int) -> None:
                bar.update(n - bar.n)

            def written(n: int) -> None:
                if not writing:
                    writing.append(True)
                    bar.reset(total=lines)
                    bar.set_description(_("ingest: write"))
                bar.update(n)

            try:
                report = ingest_file(
                    file, chunk=chunk, progress=written, checked=checked, principal=principal
                )
            except DatabaseLost as lost:
                if not lost.stored:
                    said = _(
                        "%(file)s: the database went away during the ingest (%(detail)s); nothing "
                        "was stored (the file is written in one transaction, which was not "
                        "committed) - run the same ingest again to complete it"
                    )
                else:
                    said = ngettext(
                        "%(file)s: the database went away during the ingest (%(detail)s); "
                        "%(stored)d events were stored in whole chunks - run the same ingest again "
                        "to complete it",
                        "%(file)s: the database went away during the ingest (%(detail)s); "
                        "%(stored)d events were stored in whole chunks - run the same ingest again "
                        "to complete it",
                        lost.stored,
                    )
                raise CommandError(
                    said % {"file": file, "detail": lost.detail, "stored": lost.stored},
                    returncode=3,
                ) from None
        for bad in report.bad_lines:
            self.stderr.write(f"{file}:{bad.number}: {bad.reason}")
        for stream, why in sorted(report.failed_streams.items()):
            self.stderr.write(
                _("%(file)s: stream %(stream)s: %(why)s")
                % {"file": file, "stream": stream, "why": why}
            )
        summary = _(
            "%(file)s: %(lines)s lines, %(stored)s events stored, %(already)s already stored, "
            "%(bad)s bad lines"
        ) % {
            "file": file,
            "lines": format_number(report.lines),
            "stored": format_number(report.stored),
            "already": format_number(report.already_stored),
            "bad": format_number(len(report.bad_lines)),
        }
        if not report.ok:
            raise CommandError(summary, returncode=1)
        self.stdout.write(summary)
