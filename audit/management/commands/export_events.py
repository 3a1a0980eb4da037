from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from audit.jsonl import export_events


class Command(BaseCommand):
    help = "Write events as JSON Lines (one envelope per line, payloads as stored), in position order."

    def add_arguments(self, parser):
        parser.add_argument("--stream", help="one table's stream only")
        parser.add_argument("--out", help="file to write (default: standard output)")

    def handle(self, *args, stream=None, out=None, **options):
        if out is None:
            count = export_events(sys.stdout, stream=stream)
        else:
            with open(out, "w", encoding="utf-8") as handle:
                count = export_events(handle, stream=stream)
        self.stderr.write(f"exported {count} events" + (f" to {out}" if out else ""))
