"""What every management command of the back-office shares.

- **Exit codes, stated.** A command lists its exit codes in ``exit_codes``; ``--help``
  prints them after the options. The convention: 0 done (or clean), 1 the command worked
  and found a problem (findings, a broken chain, a difference), 2 it could not do what
  was asked (bad input, an unusable file, a database that was never migrated).
- **A database that was never migrated** is one answer for every command: exit 2 and
  ``run manage.py migrate``, instead of a traceback from the first query. The check costs
  nothing on the way: only a database error that escapes the command is looked at, and
  it is turned into that line only when migrations are in fact missing.
- **No system checks at the start.** Django's checks import every URL configuration,
  view and admin to look at them - about half a second of each command's start on the
  development machine, more than a whole round's replay - and what they check is how the
  site is served, which these commands do not do. The server's own start (``runserver``,
  the demo) and ``manage.py check`` still run them, and the test suite runs them every
  time (``tests/test_system_checks.py``).
- **The person's language.** A command speaks the language of its environment's locale,
  as any Unix program does (``LC_ALL``, else ``LC_MESSAGES``, else ``LANG``; ``LANGUAGE``
  lists preferences when the locale is not ``C``): ``LANG=it_IT.UTF-8`` gives Italian
  messages and amounts written ``1.234,56 €``. A language the back-office does not speak,
  or the ``C`` locale, gives English and ISO amounts (``EUR 1,234.56``). Files a command
  writes for programs (CSV, JSON, packages) never change with it.
- **A reader that went away** (``| head``) ends the command quietly with exit 141, as the
  pipe's signal ends a program (:mod:`audit.record.pipes`), not with a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError, connection
from django.utils import translation
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _lazy

from audit.record.money import in_locale
from audit.record.pipes import reader_gone

# the usual meanings; a command overrides what differs
EXIT_CODES: dict[int, str] = {
    0: _lazy("done"),
    1: _lazy("the command ran and found a problem"),
    2: _lazy(
        "bad input: nothing was done (an unknown option value, an unreadable file, an unmigrated "
        "database)"
    ),
}


def environment_language(environ: Mapping[str, str] | None = None) -> str:
    """The language a command speaks: the first the back-office knows among the locale's
    (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, with ``LANGUAGE``'s list before it unless the
    locale is ``C``), else the site's default (English)."""
    from django.conf import settings

    environ = os.environ if environ is None else environ
    known = {code for code, _name in settings.LANGUAGES}
    locale = next(
        (environ[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(name)), ""
    )
    wanted = [] if locale.split(".")[0] in ("", "C", "POSIX") else [locale]
    if wanted and environ.get("LANGUAGE"):
        wanted = [*environ["LANGUAGE"].split(":"), *wanted]
    for name in wanted:
        language = name.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
        if language in known:
            return language
    return str(settings.LANGUAGE_CODE)


def unapplied_migrations() -> int:
    """How many migrations the database still lacks (all of them on a fresh file)."""
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connection)
        return len(executor.migration_plan(executor.loader.graph.leaf_nodes()))
    except DatabaseError:
        return 1


def unmigrated() -> CommandError | None:
    """Exit 2 saying ``run manage.py migrate`` where the database lacks migrations, else
    None: what a command answers, whatever it was about to do, on a database never
    migrated."""
    missing = unapplied_migrations()
    if not missing:
        return None
    return CommandError(
        ngettext(
            "the database %(database)s is not migrated (%(missing)d migration to apply): "
            "run manage.py migrate",
            "the database %(database)s is not migrated (%(missing)d migrations to apply): "
            "run manage.py migrate",
            missing,
        )
        % {"database": database_name(), "missing": missing},
        returncode=2,
    )


def no_events_in(stream: str, *, nothing_exported: bool = False) -> CommandError:
    """Exit 2 for a ``--stream`` the store holds no events of (``nothing_exported``: the
    export's answer, which says so). A stream every event of which was detached (a gaming
    day archived) says so, with the day and the regulator's package that holds them."""
    from audit.integrity.chains import last_detach_of

    detach = last_detach_of(stream)
    if detach is None:
        said = gettext("--stream %(stream)s: the store has no events in that stream") % {
            "stream": repr(stream)
        }
    else:
        said = gettext(
            "--stream %(stream)s: the store has no events in that stream - versions up to "
            "%(last)s were detached with gaming day %(day)s, and are in the regulator's package "
            "whose manifest has SHA-256 %(sha256)s"
        ) % {
            "stream": repr(stream),
            "last": detach.last,
            "day": detach.day,
            "sha256": detach.package_sha256,
        }
    if nothing_exported:
        said = gettext("%(problem)s; nothing exported") % {"problem": said}
    return CommandError(said, returncode=2)


def database_name() -> str:
    name = connection.settings_dict.get("NAME")
    return str(name) if name else connection.vendor


class BackOfficeCommand(BaseCommand):
    """A management command whose ``--help`` states its exit codes and which answers an
    unmigrated database with exit 2 and what to run."""

    exit_codes: dict[int, str] = EXIT_CODES
    requires_system_checks: list[str] | str = []  # why: the module's docstring

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        if parser.description is not None:
            # a lazy help (gettext_lazy) in the language active now: argparse wants a str
            parser.description = str(parser.description)
        if not self.requires_system_checks:
            # Django offers the option only where the checks run: a script that passes it, as
            # to any Django command, is not refused
            parser.add_argument(
                "--skip-checks",
                action="store_true",
                help=gettext("accepted and needless: these commands skip the system checks"),
            )
        parser.epilog = gettext("Exit codes: %(codes)s.") % {
            "codes": "; ".join(f"{code} {what}" for code, what in sorted(self.exit_codes.items()))
        }
        return parser

    def run_from_argv(self, argv: list[str]) -> None:
        # from the shell: the parser's --help and its errors in the language too
        language = environment_language()
        with translation.override(language), in_locale(language):
            super().run_from_argv(argv)

    def execute(self, *args: Any, **options: Any) -> Any:
        language = environment_language()
        with translation.override(language), in_locale(language):
            return self._execute(*args, **options)

    def _execute(self, *args: Any, **options: Any) -> Any:
        try:
            try:
                return super().execute(*args, **options)
            except DatabaseError:
                refused = unmigrated()
                if refused is None:
                    raise
                raise refused from None
            finally:
                sys.stdout.flush()  # here, where a reader gone is caught, not at the interpreter's exit
        except BrokenPipeError:
            sys.exit(reader_gone())
