"""``manage.py event_partitions``: the event table's partitions by gaming day (PostgreSQL)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.db import DatabaseError, connection
from django.utils.timezone import localtime

from audit.presenting.commands import BackOfficeCommand, unmigrated
from audit.store.partitions import (
    PartitionOverlap,
    is_partitioned,
    make_ahead,
    make_day,
    partitions,
)
from regulator.archive import ArchiveRefused, detach_day


def _day(option: str, text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(
            f"{option} {text!r}: expected a gaming day, YYYY-MM-DD", returncode=2
        ) from None


class Command(BackOfficeCommand):
    help = (
        "PostgreSQL: list the event table's partitions (one a gaming day, and the default) with their "
        "bounds, rows (the planner's estimate) and size; --create-ahead N makes today's and the next N days' "
        "where missing (what celery beat does); --create-day DAY makes one day's, a past one too (a restore: "
        "the table's owner only); --detach DAY --package PATH archives a past day's partition "
        "once the regulator's package at PATH verifies and holds every event of it (the table's owner only)."
    )
    exit_codes = {
        0: "done",
        1: "the detach was refused (the line says why) or failed in the database",
        2: "bad input: a bad day or option, the database is not partitioned (SQLite, unmigrated), or "
        "a partition to make would overlap one made before (the gaming day's settings changed)",
    }

    def add_arguments(self, parser: Any) -> None:
        action = parser.add_mutually_exclusive_group()
        action.add_argument(
            "--create-ahead",
            type=int,
            metavar="N",
            help="make today's and the next N days' partitions (0-366)",
        )
        action.add_argument(
            "--create-day",
            action="append",
            metavar="DAY",
            help="make this gaming day's partition, past days too (repeatable; the owner only)",
        )
        action.add_argument(
            "--detach", metavar="DAY", help="archive this gaming day's partition (YYYY-MM-DD)"
        )
        parser.add_argument(
            "--package", help="with --detach: the regulator's package that covers the day"
        )

    def handle(
        self,
        *args: Any,
        create_ahead: int | None,
        create_day: list[str] | None,
        detach: str | None,
        package: str | None,
        **options: Any,
    ) -> None:
        if detach is None and package is not None:
            raise CommandError("--package goes with --detach", returncode=2)
        if create_ahead is not None and not 0 <= create_ahead <= 366:
            raise CommandError(
                f"--create-ahead {create_ahead}: expected 0 to 366 days", returncode=2
            )
        day = _day("--detach", detach) if detach is not None else None
        days = [_day("--create-day", text) for text in create_day or []]
        if day is not None and package is None:
            raise CommandError(
                f"--detach {detach}: needs --package PATH, a regulator's package covering the day "
                "(manage.py export_package --day ...)",
                returncode=2,
            )
        if package is not None and not Path(package).exists():
            raise CommandError(f"--package {package}: no such file or folder", returncode=2)
        if connection.vendor != "postgresql":
            raise CommandError(
                f"event_partitions: the database is {connection.vendor}; the event table's "
                "partitions are PostgreSQL's (DATABASE_URL=postgresql://...)",
                returncode=2,
            )
        if not is_partitioned(connection):
            # migrate partitions the table: a database without it was not migrated
            raise unmigrated() or CommandError(
                "event_partitions: the event table is not partitioned, though every migration "
                "is applied (were they applied with --fake?)",
                returncode=2,
            )
        try:
            if create_ahead is not None or days:
                made = (
                    make_ahead(connection, create_ahead)
                    if create_ahead is not None
                    else [name for name in (make_day(connection, d) for d in days) if name]
                )
                self.stdout.write(
                    f"made {len(made)} partition(s)" + (f": {', '.join(made)}" if made else "")
                )
            elif day is not None:
                assert package is not None
                done = detach_day(day, Path(package))
                self.stdout.write(
                    f"detached {done.name}: {done.events} events of {done.streams} stream(s), "
                    f"recorded as {done.recorded.stream} version {done.recorded.version}; the table "
                    "is still append-only: dump it and drop it as docs/event-store.md says"
                )
                return
        except PartitionOverlap as error:
            raise CommandError(f"event_partitions: {error}", returncode=2) from None
        except ArchiveRefused as error:
            raise CommandError(f"--detach {detach}: refused: {error}", returncode=1) from None
        except DatabaseError as error:
            raise CommandError(f"event_partitions: {str(error).strip()}", returncode=1) from None
        for part in partitions(connection):
            when = (
                f"{part.day}  {localtime(part.low):%Y-%m-%d %H:%M} to {localtime(part.high):%Y-%m-%d %H:%M}"
                if part.day and part.low and part.high
                else "default"
            )
            rows = "?" if part.rows < 0 else f"~{part.rows:,}"
            self.stdout.write(
                f"{part.name:24} {when:40} {rows:>12} rows {part.bytes / 1024 / 1024:10.1f} MiB"
            )
