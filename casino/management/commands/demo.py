from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import CommandError

from audit.presenting.commands import BackOfficeCommand
from casino.demo import (
    demo_database_ready,
    demo_days_build,
    demo_logins_ensure,
    demo_package_build,
    gaming_days,
    planted_faults_found,
    plural,
    port_free,
    second_day_rounds,
    summary_lines,
)


class Command(BackOfficeCommand):
    requires_system_checks = "__all__"  # the demo serves the site: its checks are worth the start
    help = (
        "The main job on the embedded default: migrate, simulate two gaming days of every rule "
        "set (the second a tenth as long) with planted faults, ingest them, replay them, print a "
        "summary and whether every planted fault was found, create a demo login, and serve the "
        "admin and API. The port is checked first. Any --rounds from 1 works: the faults sit at "
        "the same share of the first day (a fault that needs a moment the short day never has is "
        "reported as not planted)."
    )
    exit_codes = {0: "ready (and served until stopped)", 2: "the port is taken, or a bad option"}

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000", help="address to serve on")
        parser.add_argument(
            "--no-serve", action="store_true", help="set up and print, but do not serve"
        )
        parser.add_argument(
            "--rounds",
            type=int,
            default=400,
            help="rounds per table on the first day (default 400; 7 tables; at least 1)",
        )
        parser.add_argument(
            "--live-bets",
            type=int,
            default=200,
            help="bets per round on the live table (default 200)",
        )
        parser.add_argument(
            "--folder",
            help="where the days' events, manifest and regulator's package go (default var/demo)",
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
            raise CommandError("--rounds and --live-bets must be at least 1", returncode=2)
        if not no_serve:
            taken = port_free(addr)
            if taken is not None:
                raise CommandError(
                    f"--addr {addr}: cannot serve there ({taken}); is a demo already running? "
                    "Stop it, or pass another --addr (or --no-serve)",
                    returncode=2,
                )
        # the in-process tasks' own log lines would drown the summary
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
        self.stdout.write("1/5 migrating the database")
        roles = demo_database_ready()
        if roles:
            self.stdout.write(f"    {roles}")
        second = second_day_rounds(rounds)
        self.stdout.write(
            f"2/5 simulating two gaming days: 7 tables, {plural(rounds, 'round')} each and "
            f"{plural(second, 'round')} the next day, planted faults; 3/5 ingesting them; "
            "4/5 replaying them through the rules engine; verifying them; their regulator's package, "
            "verified offline"
        )
        manifest = demo_days_build(
            rounds=rounds,
            live_bets=live_bets,
            out=self.stdout,
            folder=Path(folder) if folder else None,
        )
        package = demo_package_build(
            manifest, folder=Path(folder) if folder else None, out=self.stdout
        )
        checks = planted_faults_found(manifest)
        self.stdout.write("")
        for line in summary_lines(gaming_days(manifest), checks, manifest.get("not_planted", [])):
            self.stdout.write(line)
        logins = demo_logins_ensure()
        base = f"http://{addr}"
        self.stdout.write(self.style.SUCCESS("\n5/5 the blackjack back-office is ready.\n"))
        self.stdout.write(
            f"  the floor  {base}/admin/   login: {logins.username}  password: {logins.password}"
        )
        self.stdout.write(f"  findings   {base}/admin/audit/finding/")
        self.stdout.write(f"  API docs   {base}/api/docs/")
        self.stdout.write(f"  device     table {logins.device_table}, token {logins.device_token}")
        self.stdout.write(
            f"  try        curl -H 'Authorization: Token {logins.device_token}' "
            f"'{base}/api/streams/{logins.device_table}/events?limit=3'"
        )
        auditor = Path(sys.executable).with_name("blackjack-audit")
        command = str(auditor) if auditor.exists() else "blackjack-audit"
        self.stdout.write(
            f"  regulator  {command} verify {package.path}   "
            f"(gaming days {package.first} to {package.last}; offline, no Django)"
        )
        self.stdout.write(
            f"  recall     {command} round {package.path} {logins.device_table} {package.first} 1\n"
        )
        if not no_serve:
            call_command("runserver", addr, use_reloader=False)
