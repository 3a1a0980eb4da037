"""``python manage.py authority_seal [USERNAME ...] [--all]``: seal people's authority as it
stands, after a change made on purpose outside the application (a fix in the database, a
migration that changed a group's permissions). Run by an operator holding the seal key
(the application's settings): the database's roles cannot seal. With no name, lists who
does not hold its seal (exit 1 if anyone) and seals no one; each person sealed is printed
with what changed and the authority sealed, so the operator sees what they vouch for."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from audit.access.authority_seal import authority_changes, authority_problems, authority_seal
from audit.presenting.commands import BackOfficeCommand


def _described(user: Any) -> str:
    """The authority about to be sealed, in one line."""
    groups = ", ".join(sorted(user.groups.values_list("name", flat=True))) or pgettext(
        "no groups", "none"
    )
    flags = [
        name
        for name, on in (
            (pgettext("user flag", "active"), user.is_active),
            (pgettext("user flag", "staff"), user.is_staff),
            (pgettext("user flag", "superuser"), user.is_superuser),
        )
        if on
    ] or [pgettext("user flag", "inactive")]
    tokens = user.api_tokens.filter(revoked_at__isnull=True).count()
    own = user.user_permissions.count()
    device = getattr(getattr(user, "device_account", None), "stream", None)
    said = {
        "flags": " ".join(flags),
        "groups": groups,
        "own": own,
        "tokens": tokens,
        "table": device,
    }
    if device:
        return (
            _(
                "%(flags)s; groups: %(groups)s; own permissions: %(own)d; live API tokens: "
                "%(tokens)d; device of table %(table)s"
            )
            % said
        )
    return (
        _("%(flags)s; groups: %(groups)s; own permissions: %(own)d; live API tokens: %(tokens)d")
        % said
    )


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Seal people's authority (user, flags, password, groups and their permissions, own permissions, API "
        "tokens, device account) as it stands, after a change made on purpose outside the application. With "
        "no name, list who does not hold its seal."
    )
    exit_codes: ClassVar[dict[int, str]] = {
        0: gettext_lazy("sealed (or, with no name, everyone holds its seal)"),
        1: gettext_lazy("with no name: someone's authority does not hold its seal (one line each)"),
        2: gettext_lazy("no such user, or an unmigrated database"),
    }

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "usernames", nargs="*", metavar="USERNAME", help=_("the people to seal")
        )
        parser.add_argument(
            "--all",
            action="store_true",
            help=_("seal everyone whose authority does not hold its seal (each printed)"),
        )

    def handle(self, *args: Any, usernames: list[str], all: bool, **options: Any) -> None:
        model = get_user_model()
        if all:
            users = [
                user for user in model.objects.order_by("pk") if authority_changes(user) is not None
            ]
        elif usernames:
            found = {
                user.get_username(): user for user in model.objects.filter(username__in=usernames)
            }
            missing = [name for name in usernames if name not in found]
            if missing:
                raise CommandError(
                    _("no user %(users)s: nothing sealed")
                    % {"users": ", ".join(map(repr, missing))},
                    returncode=2,
                )
            users = [found[name] for name in dict.fromkeys(usernames)]
        else:
            problems = authority_problems()
            for line in problems:
                self.stderr.write(line)
            if problems:
                raise CommandError(
                    ngettext(
                        "%(count)d person(s) whose authority does not hold its seal; "
                        "seal each after checking it: manage.py authority_seal USERNAME",
                        "%(count)d person(s) whose authority does not hold its seal; "
                        "seal each after checking it: manage.py authority_seal USERNAME",
                        len(problems),
                    )
                    % {"count": len(problems)},
                    returncode=1,
                )
            users_count = model.objects.count()
            self.stdout.write(
                ngettext(
                    "every person's authority holds its seal (%(count)d users)",
                    "every person's authority holds its seal (%(count)d users)",
                    users_count,
                )
                % {"count": users_count}
            )
            return
        for user in users:
            was = authority_changes(user) or _("held its seal already")
            self.stdout.write(
                _("%(user)s: %(was)s; sealing: %(authority)s")
                % {
                    "user": json.dumps(user.get_username()),
                    "was": was,
                    "authority": _described(user),
                }
            )
        authority_seal([user.pk for user in users], reason="manage.py authority_seal")
        self.stdout.write(
            ngettext(
                "sealed the authority of %(count)d person(s)",
                "sealed the authority of %(count)d person(s)",
                len(users),
            )
            % {"count": len(users)}
        )
