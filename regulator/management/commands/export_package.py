from __future__ import annotations

import argparse
import getpass
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

from django.core.management.base import CommandError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.presenting.commands import BackOfficeCommand
from audit.presenting.progress import progress_bar
from audit.record.money import format_number
from regulator.package import PackageError, export_logged


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("%(text)r is not a date (YYYY-MM-DD)") % {"text": text}
        ) from None


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Write the regulator's package of gaming days: each table's events (JSON Lines, gzip), "
        "a manifest (hashes, rule sets, signed tree heads, inclusion and consistency proofs, public "
        "keys) and the reports (rounds, reconciliation, checks, findings with their trail, access log), "
        "to a folder or a .zip. The same record gives a byte-identical package. Verify it offline with "
        "blackjack-audit verify PACKAGE. Each export, and each refused, is written to the access log "
        "(method EXPORT, principal command:<login>)."
    )

    exit_codes: ClassVar[dict[int, str]] = {
        0: gettext_lazy("written"),
        2: gettext_lazy(
            "bad input (an unknown table, a period with no table open, --out existing "
            "without --force or not writable, an unreadable --previous): nothing written"
        ),
    }

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--day", type=_day, required=True, help=_("the (first) gaming day, YYYY-MM-DD")
        )
        parser.add_argument("--to", type=_day, help=_("the last gaming day (default: --day)"))
        parser.add_argument(
            "--table",
            action="append",
            default=[],
            help=_("a table's code (repeat; default: every table open in the period)"),
        )
        parser.add_argument(
            "--out", required=True, help=_("the package: a folder, or a file ending in .zip")
        )
        parser.add_argument("--force", action="store_true", help=_("replace --out if it exists"))
        parser.add_argument(
            "--previous",
            help=_("an earlier package: the manifest proves this one's head grew from it"),
        )

    def handle(
        self,
        *args: Any,
        day: date,
        to: date | None,
        table: list[str],
        out: str,
        force: bool,
        previous: str | None,
        **options: Any,
    ) -> None:
        bar = progress_bar(total=None, unit="ev", desc="export")

        def total(count: int) -> None:
            bar.total = count
            bar.refresh()

        try:
            with bar:
                manifest = export_logged(
                    principal=f"command:{getpass.getuser()}",
                    day_from=day,
                    day_to=to or day,
                    tables=table,
                    out=Path(out),
                    force=force,
                    previous=Path(previous) if previous else None,
                    progress=bar.update,
                    total=total,
                )
        except PackageError as error:
            raise CommandError(str(error), returncode=2) from None
        except OSError as error:
            raise CommandError(
                _("--out %(path)s: writing failed (%(why)s); nothing written")
                % {"path": out, "why": error.strerror or error},
                returncode=2,
            ) from None
        self.stderr.write(
            ngettext(
                "exported %(events)s events of %(tables)d table(s) to %(path)s",
                "exported %(events)s events of %(tables)d table(s) to %(path)s",
                manifest["events"],
            )
            % {
                "events": format_number(manifest["events"]),
                "tables": len(manifest["streams"]),
                "path": Path(out).resolve(),
            }
        )
