from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError
from django.db import DatabaseError, connection
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.presenting.commands import BackOfficeCommand
from audit.store.roles import adopt_sql, create_roles_sql, grant_sql, privilege_problems


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "PostgreSQL least privilege: print (or with --execute, run as a superuser) the SQL that "
        "creates the owner role that migrates and the application role that only reads and "
        "appends; --check reports what the application role holds that it must not."
    )
    exit_codes = {
        0: gettext_lazy("done, or --check found nothing wrong"),
        1: gettext_lazy("--check found a problem"),
        2: gettext_lazy("bad input, or the database is not PostgreSQL"),
    }

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--owner",
            default="blackjack_owner",
            help=_("the role that owns the schema and migrates"),
        )
        parser.add_argument(
            "--app", default="blackjack_app", help=_("the role the application connects as")
        )
        parser.add_argument(
            "--database", help=_("the database (default: the one DATABASE_URL names)")
        )
        action = parser.add_mutually_exclusive_group()
        action.add_argument(
            "--execute",
            action="store_true",
            help=_("run the statements (needs a superuser connection)"),
        )
        action.add_argument(
            "--grants",
            action="store_true",
            help=_("print the grants the owner gives after a migration"),
        )
        action.add_argument(
            "--check", action="store_true", help=_("check the application role's privileges")
        )

    def handle(
        self,
        *args: Any,
        owner: str,
        app: str,
        database: str | None,
        execute: bool,
        grants: bool,
        check: bool,
        **options: Any,
    ) -> None:
        if connection.vendor != "postgresql" and (database is None or execute or check):
            raise CommandError(
                _(
                    "db_roles: the database is %(vendor)s; roles are PostgreSQL's "
                    "(DATABASE_URL=postgresql://..., or --database NAME to print a database's "
                    "statements)"
                )
                % {"vendor": connection.vendor},
                returncode=2,
            )
        database = database or str(connection.settings_dict["NAME"])
        try:
            # a database migrated before the roles existed is handed to the owner (nothing
            # to hand over on a fresh one)
            statements = (
                grant_sql(app=app)
                if grants
                else [
                    *create_roles_sql(owner=owner, app=app, database=database),
                    *adopt_sql(owner=owner),
                ]
            )
        except ValueError as error:
            raise CommandError(f"db_roles: {error}", returncode=2) from None
        if not (execute or check):
            self.stdout.write(";\n".join(statements) + ";")
            return
        try:
            with connection.cursor() as cursor:
                if check:
                    problems = privilege_problems(cursor, app=app)
                    for problem in problems:
                        self.stderr.write(f"db_roles: {problem}")
                    if problems:
                        raise CommandError(
                            ngettext(
                                "db_roles: %(count)d problem(s) with role %(role)s",
                                "db_roles: %(count)d problem(s) with role %(role)s",
                                len(problems),
                            )
                            % {"count": len(problems), "role": app},
                            returncode=1,
                        )
                    self.stdout.write(
                        _("role %(role)s: owns nothing protected, cannot change or remove events")
                        % {"role": app}
                    )
                    return
                for sql in statements:
                    cursor.execute(sql)
        except DatabaseError as error:
            raise CommandError(f"db_roles: {str(error).strip()}", returncode=2) from None
        self.stdout.write(
            _(
                "roles %(owner)s (owner, migrates) and %(app)s (application) are set up on "
                "%(database)s"
            )
            % {"owner": owner, "app": app, "database": database}
        )
