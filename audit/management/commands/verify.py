from __future__ import annotations

from datetime import datetime, time

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from audit.models import Event
from audit.progress import progress_bar
from audit.verify import verify_chains


def _since(text: str) -> datetime:
    moment = parse_datetime(text)
    if moment is None:
        day = parse_date(text)
        if day is None:
            raise CommandError(f"--since {text!r}: expected YYYY-MM-DD or an ISO 8601 timestamp", returncode=2)
        moment = datetime.combine(day, time.min)
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


class Command(BaseCommand):
    help = (
        "Re-hash every stream's chain; report the first bad event of each stream "
        "(gap, reordering, alteration). Exits 1 if any problem is found."
    )

    def add_arguments(self, parser):
        parser.add_argument("--stream", help="verify one table's stream only")
        parser.add_argument("--since", help="only events recorded since this date (YYYY-MM-DD, TIME_ZONE) or timestamp")

    def handle(self, *args, stream=None, since=None, **options):
        since_at = _since(since) if since else None
        total = Event.objects.filter(**({"stream": stream} if stream else {})).count()
        if stream and not total:
            raise CommandError(f"--stream {stream!r}: the store has no events in that stream", returncode=2)
        with progress_bar(total=total, unit="ev", desc="verify") as bar:
            report = verify_chains(stream=stream, since=since_at, progress=bar.update)
        for problem in report.problems:
            self.stderr.write(str(problem))
        summary = (
            f"verified {report.events} events in {report.streams} streams: "
            + ("all chains intact" if report.ok else f"{len(report.problems)} stream(s) with problems")
        )
        if not report.ok:
            raise CommandError(summary, returncode=1)
        self.stdout.write(summary)
