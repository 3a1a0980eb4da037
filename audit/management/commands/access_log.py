from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError
from django.db import DatabaseError

from audit.access.log import access_purge, access_seal, access_seals_problems
from audit.presenting.commands import BackOfficeCommand


class Command(BackOfficeCommand):
    help = (
        "The access log: --seal seals the rows recorded since the last seal into the record "
        "(the beat task does it every ACCESS_SEAL_EVERY_SECONDS); --check re-hashes every seal; "
        "--purge (as the owner role) removes sealed rows older than ACCESS_LOG_RETENTION_DAYS."
    )
    exit_codes = {
        0: "done",
        1: "--check found a broken seal",
        2: "bad input, a refused purge, or an unmigrated database",
    }

    def add_arguments(self, parser: Any) -> None:
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--seal", action="store_true")
        action.add_argument("--check", action="store_true")
        action.add_argument("--purge", action="store_true")
        parser.add_argument(
            "--retention-days", type=int, help="with --purge: instead of ACCESS_LOG_RETENTION_DAYS"
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
                self.stdout.write("nothing to seal")
            else:
                p = event.payload
                self.stdout.write(
                    f"sealed rows {p['first']}..{p['last']} ({p['count']}) as {event.stream} v{event.version}"
                )
        elif check:
            problems = access_seals_problems()
            for problem in problems:
                self.stderr.write(str(problem))
            if problems:
                raise CommandError(f"access_log: {len(problems)} seal(s) broken", returncode=1)
            self.stdout.write("every sealed access-log row matches its seal")
        else:
            try:
                removed = access_purge(retention_days=retention_days)
            except ValueError as error:
                raise CommandError(f"access_log: {error}", returncode=2) from None
            except DatabaseError as error:
                raise CommandError(
                    f"access_log: the purge was refused ({str(error).strip()}): run it as the owner role",
                    returncode=2,
                ) from None
            self.stdout.write(f"removed {removed} access-log rows")
