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
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.access.devices import DeviceError, device_ensure, device_revoke
from audit.presenting.commands import BackOfficeCommand


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Create a device account that may append to one table's stream; print a new token, or revoke."
    )
    exit_codes: ClassVar[dict[int, str]] = {
        0: gettext_lazy("a new token printed, or tokens revoked"),
        2: gettext_lazy(
            "a user name that belongs to a person or to another table's device, a bad table code, "
            "no such device to revoke from, or an unmigrated database"
        ),
    }

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_code", help=_("the table's code, i.e. its stream"))
        parser.add_argument(
            "--username", help=_("the device's user name (default: device-TABLE_CODE)")
        )
        parser.add_argument(
            "--revoke",
            nargs="?",
            const="",
            default=None,
            metavar="KEY_ID",
            help=_(
                "revoke the token with this key id (its first 12 characters), or with no value "
                "every token of the device; issues none"
            ),
        )

    def handle(
        self, *args: Any, table_code: str, username: str | None, revoke: str | None, **options: Any
    ) -> None:
        try:
            if revoke is not None:
                revoked = device_revoke(stream=table_code, username=username, key_id=revoke or None)
                said = (
                    ngettext(
                        "device of table %(table)s: token %(key)s revoked (%(valid)d were valid)",
                        "device of table %(table)s: token %(key)s revoked (%(valid)d were valid)",
                        revoked,
                    )
                    if revoke
                    else ngettext(
                        "device of table %(table)s: every token revoked (%(valid)d were valid)",
                        "device of table %(table)s: every token revoked (%(valid)d were valid)",
                        revoked,
                    )
                )
                self.stderr.write(said % {"table": table_code, "key": revoke, "valid": revoked})
                return
            device = device_ensure(stream=table_code, username=username)
        except DeviceError as error:
            raise CommandError(str(error), returncode=2) from None
        said = (
            _(
                "device %(device)s for table %(table)s created; new token %(key)s..., valid until "
                "%(until)s UTC (shown once):"
            )
            if device.created
            else _(
                "device %(device)s for table %(table)s exists; new token %(key)s..., valid until "
                "%(until)s UTC (shown once):"
            )
        )
        self.stderr.write(
            said
            % {
                "device": device.account.user,
                "table": table_code,
                "key": device.issued.key_id,
                "until": f"{device.issued.expires_at:%Y-%m-%d %H:%M}",
            }
        )
        self.stdout.write(device.token)
