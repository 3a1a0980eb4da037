from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.presenting.commands import BackOfficeCommand
from audit.record.money import active_locale, in_locale
from casino.demo import (
    DEMO_LIVE_BETS,
    DEMO_ROUNDS,
    checkout_publisher_ready,
    demo_database_ready,
    demo_days_build,
    demo_logins_ensure,
    demo_package_build,
    demo_package_of,
    gaming_days,
    planted_faults_found,
    port_free,
    ready_lines,
    step_line,
    summary_lines,
)


class Command(BackOfficeCommand):
    requires_system_checks = "__all__"  # the demo serves the site: its checks are worth the start

    help = gettext_lazy(
        "The main job on the embedded default: migrate, simulate two gaming days of every rule "
        "set (the second a tenth as long) with planted faults, ingest them, replay them, print a "
        "summary and whether every planted fault was found, create a demo login, and serve the "
        "admin and API; verifying the chains and making the regulator's package, verified "
        "offline, runs while it serves (before the summary with --no-serve). The port is checked "
        "first. Any --rounds from 1 works: the faults sit at the same share of the first day (a "
        "fault that needs a moment the short day never has is reported as not planted)."
    )

    exit_codes = {
        0: gettext_lazy("ready (and served until stopped)"),
        2: gettext_lazy("the port is taken, or a bad option"),
    }

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000", help=_("address to serve on"))
        parser.add_argument(
            "--no-serve", action="store_true", help=_("set up and print, but do not serve")
        )
        parser.add_argument(
            "--rounds",
            type=int,
            default=DEMO_ROUNDS,
            help=_("rounds per table on the first day (default %(rounds)d; 7 tables; at least 1)")
            % {"rounds": DEMO_ROUNDS},
        )
        parser.add_argument(
            "--live-bets",
            type=int,
            default=DEMO_LIVE_BETS,
            help=_("bets per round on the live table (default %(bets)d)")
            % {"bets": DEMO_LIVE_BETS},
        )
        parser.add_argument(
            "--folder",
            help=_(
                "where the days' events, manifest and regulator's package go (default var/demo)"
            ),
        )

    def handle(
        self,
        *args: Any,
        addr: str,
        no_serve: bool,
        rounds: int,
        live_bets: int,
        folder: str | None = None,
        **options: Any,
    ) -> None:
        if rounds < 1 or live_bets < 1:
            raise CommandError(_("--rounds and --live-bets must be at least 1"), returncode=2)
        if not no_serve:
            taken = port_free(addr)
            if taken is not None:
                raise CommandError(
                    _(
                        "--addr %(addr)s: cannot serve there (%(why)s); is a demo already running? "
                        "Stop it, or pass another --addr (or --no-serve)"
                    )
                    % {"addr": addr, "why": taken},
                    returncode=2,
                )
        # the in-process tasks' own log lines would drown the summary
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
        self._say(step_line(1, _("migrating the database")))
        roles = demo_database_ready()
        for said in (roles, checkout_publisher_ready()):
            if said:
                self._say(f"    {said}")
        where = Path(folder) if folder else None
        manifest = demo_days_build(
            rounds=rounds, live_bets=live_bets, out=self.stdout, folder=where
        )
        regulator = step_line(
            5, _("verifying the record; the regulator's package of the two days, verified offline")
        )
        if no_serve:
            self._say(regulator)
            package = demo_package_build(manifest, folder=where, out=self.stdout)
        else:
            package = demo_package_of(manifest, folder=where)
        checks = planted_faults_found(manifest)
        self._say("")
        for line in summary_lines(gaming_days(manifest), checks, manifest.get("not_planted", [])):
            self._say(line)
        logins = demo_logins_ensure()
        ready = _("The blackjack back-office is ready.")
        self._say(self.style.SUCCESS(f"\n{ready}\n"))
        auditor = Path(sys.executable).with_name("blackjack-audit")
        for line in ready_lines(
            logins,
            package,
            addr=addr,
            served=not no_serve,
            auditor=str(auditor) if auditor.exists() else "blackjack-audit",
        ):
            self._say(line)
        self._say("")
        if no_serve:
            return
        # the heaviest step, every event read three times, runs while it serves: the floor
        # answers without waiting for it, and its lines follow the server's first ones
        self._say(_("%(step)s - while it serves, its lines below") % {"step": regulator})
        threading.Thread(
            target=self._regulator_step,
            args=(manifest, where, translation.get_language(), active_locale()),
            name="demo-package",
            daemon=True,
        ).start()
        # (the demo ran the system checks at its start)
        call_command("runserver", addr, use_reloader=False, skip_checks=True)

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()

    def _regulator_step(
        self,
        manifest: dict[str, Any],
        folder: Path | None,
        language: str | None,
        locale: str | None,
    ) -> None:
        # a thread starts in the default language and locale: the command's, again
        with translation.override(language), in_locale(locale):
            try:
                demo_package_build(manifest, folder=folder, out=self.stdout)
            except (CommandError, DatabaseError, OSError) as error:
                # one line beside the server's, as the command would have said it (anything
                # else is a bug: the thread's traceback)
                self.stderr.write(
                    _("the regulator's package was not made: %(error)s") % {"error": error}
                )
            finally:
                connection.close()  # this thread's own
