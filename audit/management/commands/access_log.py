from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError
from django.db import DatabaseError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.access.log import access_purge, access_seal, access_seals_problems
from audit.presenting.commands import BackOfficeCommand


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "The access log: --seal seals the rows recorded since the last seal into the record "
        "(the beat task does it every ACCESS_SEAL_EVERY_SECONDS); --check re-hashes every seal; "
        "--purge (as the owner role) removes sealed rows older than ACCESS_LOG_RETENTION_DAYS."
    )
    exit_codes = {
        0: gettext_lazy("done"),
        1: gettext_lazy("--check found a broken seal"),
        2: gettext_lazy("bad input, a refused purge, or an unmigrated database"),
    }

    def add_arguments(self, parser: Any) -> None:
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--seal", action="store_true")
        action.add_argument("--check", action="store_true")
        action.add_argument("--purge", action="store_true")
        parser.add_argument(
            "--retention-days",
            type=int,
            help=_("with --purge: instead of ACCESS_LOG_RETENTION_DAYS"),
        )

    def handle(
        self,
        *args: Any,
        seal: bool,
        check: bool,
        purge: bool,
        retention_days: int | None,
        **options: Any,
    ) -> None:
        if seal:
            event = access_seal()
            if event is None:
                self.stdout.write(_("nothing to seal"))
            else:
                p = event.payload
                self.stdout.write(
                    _("sealed rows %(first)s..%(last)s (%(count)s) as %(stream)s v%(version)s")
                    % {
                        "first": p["first"],
                        "last": p["last"],
                        "count": p["count"],
                        "stream": event.stream,
                        "version": event.version,
                    }
                )
        elif check:
            problems = access_seals_problems()
            for problem in problems:
                self.stderr.write(str(problem))
            if problems:
                raise CommandError(
                    ngettext(
                        "access_log: %(count)d seal(s) broken",
                        "access_log: %(count)d seal(s) broken",
                        len(problems),
                    )
                    % {"count": len(problems)},
                    returncode=1,
                )
            self.stdout.write(_("every sealed access-log row matches its seal"))
        else:
            try:
                removed = access_purge(retention_days=retention_days)
            except ValueError as error:
                raise CommandError(f"access_log: {error}", returncode=2) from None
            except DatabaseError as error:
                raise CommandError(
                    _("access_log: the purge was refused (%(error)s): run it as the owner role")
                    % {"error": str(error).strip()},
                    returncode=2,
                ) from None
            self.stdout.write(
                ngettext(
                    "removed %(count)d access-log rows",
                    "removed %(count)d access-log rows",
                    removed,
                )
                % {"count": removed}
            )
