from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from audit.commands import BackOfficeCommand
from audit.progress import progress_bar
from audit.subscribers import catch_up, feed_head, position_of, registered

# positions per batch for a subscriber that sets no limit, so that the bar moves
_STEP = 20_000


class Command(BackOfficeCommand):
    help = (
        "Bring the global feed's subscribers (the read models and findings) up to the "
        "feed's head, each from its own position. A progress bar per subscriber (positions) "
        "on stderr, on a terminal only."
    )
    exit_codes = {0: "every subscriber is at the head", 1: "a subscriber failed (it keeps its position; the "
                  "others go on)", 2: "an unknown --subscriber, a bad --jobs, or an unmigrated database"}

    def add_arguments(self, parser):
        parser.add_argument("--subscriber", help="one subscriber only (default: every registered one)")
        parser.add_argument("--jobs", type=int, default=1,
                            help="processes that take the tables (PostgreSQL; after a bulk ingest): the new events "
                                 "are then handed over in one batch, the bar moving once at its end")

    def handle(self, *args: Any, subscriber: str | None = None, jobs: int = 1, **options: Any) -> None:
        if jobs < 1:
            raise CommandError(f"--jobs {jobs}: expected a whole number of at least 1", returncode=2)
        names = [s.name for s in registered()]
        if subscriber is not None and subscriber not in names:
            raise CommandError(f"--subscriber {subscriber!r}: no such subscriber; registered: "
                               f"{', '.join(names) or 'none'}", returncode=2)
        failed = []
        for name in [subscriber] if subscriber else names:
            start, head = position_of(name), feed_head()
            with progress_bar(total=max(head - start, 0), unit="pos", desc=name) as bar:
                try:
                    # in batches of _STEP the bar moves; a process per table would fold each
                    # table's day again for every batch (it keeps no folds): one batch then
                    done = catch_up(name, most=_STEP if jobs == 1 else None, jobs=jobs, progress=lambda at, _head, bar=bar, start=start:
                                    bar.update(at - start - bar.n))
                except Exception as error:  # noqa: BLE001 - any failure of a subscriber is reported, the others go on
                    failed.append(name)
                    self.stderr.write(f"{name}: failed ({error!r}); it stays where it was and is retried next time")
                    continue
            self.stdout.write(f"{name}: position {done.start} -> {done.position} (head {feed_head()})")
        if failed:
            raise CommandError(f"{len(failed)} subscriber(s) failed: {', '.join(failed)}", returncode=1)
