from __future__ import annotations

import os
import sys
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.models import Event
from audit.presenting.commands import BackOfficeCommand, no_events_in
from audit.presenting.progress import progress_bar
from audit.store.export import export_events


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Write events as JSON Lines (one envelope per line, payloads as stored), in position "
        "order: every stream, or one. A progress bar on stderr, on a terminal only."
    )
    exit_codes = {
        0: gettext_lazy("exported"),
        2: gettext_lazy(
            "nothing to export (a --stream with no events), an --out path that cannot be written, "
            "or an unmigrated database"
        ),
    }

    def add_arguments(self, parser):
        parser.add_argument("--stream", help=_("one table's stream only"))
        parser.add_argument("--out", help=_("file to write (default: standard output)"))

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
                        _("--out %(path)s: cannot write there (%(error)s)")
                        % {"path": out, "error": error.strerror or error},
                        returncode=2,
                    ) from None
                try:
                    with handle:
                        count = export_events(handle, stream=stream, progress=bar.update)
                except OSError as error:  # the disk filled up, the file system went away
                    raise CommandError(
                        _("--out %(path)s: writing failed (%(error)s); the file is incomplete")
                        % {"path": out, "error": error.strerror or error},
                        returncode=2,
                    ) from None
        if out:
            said = ngettext(
                "exported %(count)d events to %(path)s",
                "exported %(count)d events to %(path)s",
                count,
            )
        else:
            said = ngettext("exported %(count)d events", "exported %(count)d events", count)
        self.stderr.write(said % {"count": count, "path": os.path.abspath(out) if out else ""})
