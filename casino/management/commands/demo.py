from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import BaseCommand

from casino.demo import demo_logins_ensure


class Command(BaseCommand):
    help = (
        "The main job on the embedded default: migrate the database, create a demo login "
        "and a demo device token, print them, and serve the admin and API."
    )

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000", help="address to serve on")
        parser.add_argument("--no-serve", action="store_true", help="set up and print, but do not serve")

    def handle(self, *args, addr, no_serve, **options):
        self.stdout.write("Migrating the database ...")
        call_command("migrate", verbosity=0, interactive=False)
        logins = demo_logins_ensure()
        base = f"http://{addr}"
        self.stdout.write(self.style.SUCCESS("\nThe blackjack back-office is ready.\n"))
        self.stdout.write(f"  admin      {base}/admin/   login: {logins.username}  password: {logins.password}")
        self.stdout.write(f"  API docs   {base}/api/docs/")
        self.stdout.write(f"  device     table {logins.device_table}, token {logins.device_token}")
        self.stdout.write(
            f"  try        curl -H 'Authorization: Token {logins.device_token}' "
            f"'{base}/api/streams/{logins.device_table}/events'\n"
        )
        if not no_serve:
            call_command("runserver", addr, use_reloader=False)
