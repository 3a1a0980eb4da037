"""``python manage.py create_device TABLE_CODE [--username NAME]``: create a table
device's account and print its API token (only the token, on stdout, so a script can
capture it). Idempotent: for an existing device it prints the same token."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from audit.commands import BackOfficeCommand
from audit.devices import DeviceError, device_ensure


class Command(BackOfficeCommand):
    help = "Create a device account that may append to one table's stream; print its token."
    exit_codes = {0: "created, or it exists (the same token)", 2: "a user name that belongs to a person or to "
                  "another table's device, a bad table code, or an unmigrated database"}

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_code", help="the table's code, i.e. its stream")
        parser.add_argument(
            "--username", help="the device's user name (default: device-TABLE_CODE)"
        )

    def handle(self, *args: Any, table_code: str, username: str | None, **options: Any) -> None:
        try:
            device = device_ensure(stream=table_code, username=username)
        except DeviceError as error:
            raise CommandError(str(error), returncode=2) from None
        what = "created" if device.created else "exists"
        self.stderr.write(f"device {device.account.user} for table {table_code} {what}; token:")
        self.stdout.write(device.token)
