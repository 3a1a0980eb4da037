"""``python manage.py create_device TABLE_CODE [--username NAME] [--revoke [KEY_ID]]``:
create a table device's account if missing and print a NEW API token for it (only the
token, on stdout, so a script can capture it; it is shown this once: only its hash is
kept). Earlier tokens stay valid until they expire (``API_TOKEN_DAYS``) or are revoked:
``--revoke KEY_ID`` revokes one (its key id is the token's first 12 characters, printed
when it was issued), ``--revoke`` alone every token of the device; no token is issued
then."""

from __future__ import annotations

from typing import Any, ClassVar

from django.core.management.base import CommandError, CommandParser

from audit.access.devices import DeviceError, device_ensure, device_revoke
from audit.presenting.commands import BackOfficeCommand


class Command(BackOfficeCommand):
    help = "Create a device account that may append to one table's stream; print a new token, or revoke."
    exit_codes: ClassVar[dict[int, str]] = {
        0: "a new token printed, or tokens revoked",
        2: "a user name that belongs to a person or to "
        "another table's device, a bad table code, no such device to revoke from, or an unmigrated database",
    }

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_code", help="the table's code, i.e. its stream")
        parser.add_argument(
            "--username", help="the device's user name (default: device-TABLE_CODE)"
        )
        parser.add_argument(
            "--revoke",
            nargs="?",
            const="",
            default=None,
            metavar="KEY_ID",
            help="revoke the token with this key id (its first 12 characters), or with no value "
            "every token of the device; issues none",
        )

    def handle(
        self, *args: Any, table_code: str, username: str | None, revoke: str | None, **options: Any
    ) -> None:
        try:
            if revoke is not None:
                revoked = device_revoke(stream=table_code, username=username, key_id=revoke or None)
                which = f"token {revoke}" if revoke else "every token"
                self.stderr.write(
                    f"device of table {table_code}: {which} revoked ({revoked} were valid)"
                )
                return
            device = device_ensure(stream=table_code, username=username)
        except DeviceError as error:
            raise CommandError(str(error), returncode=2) from None
        what = "created" if device.created else "exists"
        self.stderr.write(
            f"device {device.account.user} for table {table_code} {what}; new token {device.issued.key_id}..., "
            f"valid until {device.issued.expires_at:%Y-%m-%d %H:%M} UTC (shown once):"
        )
        self.stdout.write(device.token)
