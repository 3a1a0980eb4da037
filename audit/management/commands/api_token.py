"""``python manage.py api_token USERNAME [--revoke [KEY_ID]]``: a NEW API token for a
person of the back-office (a device's come from ``create_device``), printed once on
stdout; only its hash is kept. ``--revoke KEY_ID`` revokes one of the person's tokens,
``--revoke`` alone all of them, and issues none."""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.access.authority_seal import authority_changes
from audit.access.devices import device_of
from audit.access.tokens import token_issue, tokens_revoke
from audit.presenting.commands import BackOfficeCommand


class Command(BackOfficeCommand):
    help = gettext_lazy("Print a new API token for a person, or revoke the person's tokens.")
    exit_codes: ClassVar[dict[int, str]] = {
        0: gettext_lazy("a new token printed, or tokens revoked"),
        2: gettext_lazy(
            "no such user, an inactive one, a device (use create_device), or an unmigrated database"
        ),
    }

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--revoke",
            nargs="?",
            const="",
            default=None,
            metavar="KEY_ID",
            help=_(
                "revoke the token with this key id (its first 12 characters), or with no value "
                "every token of the user; issues none"
            ),
        )

    def handle(self, *args: Any, username: str, revoke: str | None, **options: Any) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(_("no user %(user)s") % {"user": repr(username)}, returncode=2)
        if revoke is not None:
            revoked = tokens_revoke(user=user, key_id=revoke or None)
            said = (
                ngettext(
                    "user %(user)s: token %(key)s revoked (%(valid)d were valid)",
                    "user %(user)s: token %(key)s revoked (%(valid)d were valid)",
                    revoked,
                )
                if revoke
                else ngettext(
                    "user %(user)s: every token revoked (%(valid)d were valid)",
                    "user %(user)s: every token revoked (%(valid)d were valid)",
                    revoked,
                )
            )
            self.stderr.write(said % {"user": username, "key": revoke, "valid": revoked})
            return
        if device_of(user) is not None:
            raise CommandError(
                _("%(user)s is a table device: use manage.py create_device")
                % {"user": repr(username)},
                returncode=2,
            )
        if not user.is_active:
            raise CommandError(
                _("user %(user)s is inactive") % {"user": repr(username)}, returncode=2
            )
        issued = token_issue(user=user)
        self.stderr.write(
            _("user %(user)s: new token %(key)s..., valid until %(until)s UTC (shown once):")
            % {
                "user": username,
                "key": issued.key_id,
                "until": f"{issued.expires_at:%Y-%m-%d %H:%M}",
            }
        )
        changed = authority_changes(get_user_model().objects.get(pk=user.pk))
        if changed is not None:
            # issued all the same: it works once an operator has checked and sealed the person
            self.stderr.write(
                _(
                    "user %(user)s: refused wherever it is used until sealed again - its authority "
                    "does not hold its seal: %(changed)s (manage.py authority_seal %(user)s)"
                )
                % {"user": username, "changed": changed}
            )
        self.stdout.write(issued.text)
