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

from audit.access.authority_seal import authority_changes, authority_problems, authority_seal
from audit.presenting.commands import BackOfficeCommand


def _described(user: Any) -> str:
    """The authority about to be sealed, in one line."""
    groups = ", ".join(sorted(user.groups.values_list("name", flat=True))) or "none"
    flags = [
        name
        for name, on in (
            ("active", user.is_active),
            ("staff", user.is_staff),
            ("superuser", user.is_superuser),
        )
        if on
    ] or ["inactive"]
    tokens = user.api_tokens.filter(revoked_at__isnull=True).count()
    own = user.user_permissions.count()
    device = getattr(getattr(user, "device_account", None), "stream", None)
    return (
        f"{' '.join(flags)}; groups: {groups}; own permissions: {own}; live API tokens: {tokens}"
        + (f"; device of table {device}" if device else "")
    )


class Command(BackOfficeCommand):
    help = (
        "Seal people's authority (user, flags, password, groups and their permissions, own permissions, API "
        "tokens, device account) as it stands, after a change made on purpose outside the application. With "
        "no name, list who does not hold its seal."
    )
    exit_codes: ClassVar[dict[int, str]] = {
        0: "sealed (or, with no name, everyone holds its seal)",
        1: "with no name: someone's authority does not hold its seal (one line each)",
        2: "no such user, or an unmigrated database",
    }

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("usernames", nargs="*", metavar="USERNAME", help="the people to seal")
        parser.add_argument(
            "--all",
            action="store_true",
            help="seal everyone whose authority does not hold its seal (each printed)",
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
                    f"no user {', '.join(map(repr, missing))}: nothing sealed", returncode=2
                )
            users = [found[name] for name in dict.fromkeys(usernames)]
        else:
            problems = authority_problems()
            for line in problems:
                self.stderr.write(line)
            if problems:
                raise CommandError(
                    f"{len(problems)} person(s) whose authority does not hold its seal; "
                    "seal each after checking it: manage.py authority_seal USERNAME",
                    returncode=1,
                )
            self.stdout.write(
                f"every person's authority holds its seal ({model.objects.count()} users)"
            )
            return
        for user in users:
            was = authority_changes(user) or "held its seal already"
            self.stdout.write(
                f"{json.dumps(user.get_username())}: {was}; sealing: {_described(user)}"
            )
        authority_seal([user.pk for user in users], reason="manage.py authority_seal")
        self.stdout.write(f"sealed the authority of {len(users)} person(s)")
