from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from audit.subscribers import catch_up, feed_head, registered


class Command(BaseCommand):
    help = (
        "Bring the global feed's subscribers (the read models and findings) up to the "
        "feed's head, each from its own position. Exit 0 when all are there, 1 when one "
        "failed (it keeps its position; the others go on)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--subscriber", help="one subscriber only (default: every registered one)")

    def handle(self, *args, subscriber=None, **options):
        names = [s.name for s in registered()]
        if subscriber is not None and subscriber not in names:
            raise CommandError(f"--subscriber {subscriber!r}: no such subscriber; registered: "
                               f"{', '.join(names) or 'none'}", returncode=2)
        failed = []
        for name in [subscriber] if subscriber else names:
            try:
                done = catch_up(name)
            except Exception as error:  # noqa: BLE001 - any failure of a subscriber is reported, the others go on
                failed.append(name)
                self.stderr.write(f"{name}: failed ({error!r}); it stays where it was and is retried next time")
                continue
            self.stdout.write(f"{name}: position {done.start} -> {done.position} (head {feed_head()})")
        if failed:
            raise CommandError(f"{len(failed)} subscriber(s) failed: {', '.join(failed)}", returncode=1)
