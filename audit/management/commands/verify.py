"""``manage.py verify``: re-hash the chains of the store, or of a JSON Lines file
(``--file``, offline). Both run the record core's one chain verifier: exit 0 intact, 1
with one line per problem (a stream's first bad event, naming the line for a file), 2
when the input cannot be used (an unreadable file, a line that is not an envelope)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from datetime import datetime, time
from typing import Any

from django.core.management.base import CommandError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.integrity.chains import archived_starts, last_detach_of
from audit.integrity.digests import DigestError
from audit.integrity.verification import integrity_check
from audit.models import Event
from audit.presenting.commands import BackOfficeCommand, no_events_in
from audit.presenting.progress import count_lines, progress_bar
from audit.record.jsonl import LineError
from audit.record.money import format_number
from audit.record.verify import Report, verify_lines


def _since(text: str) -> datetime:
    moment = parse_datetime(text)
    if moment is None:
        day = parse_date(text)
        if day is None:
            raise CommandError(
                _("--since %(since)s: expected YYYY-MM-DD or an ISO 8601 timestamp")
                % {"since": repr(text)},
                returncode=2,
            )
        moment = datetime.combine(day, time.min)
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def _counted(lines: Iterable[bytes], bar: Any) -> Iterator[bytes]:
    for number, line in enumerate(lines, 1):
        if not number % 2000:
            bar.update(2000)
        yield line


def _verify_file(path: str) -> Report:
    try:
        if path == "-":
            return verify_lines(sys.stdin.buffer)
        total = count_lines(path)
        with (
            open(path, "rb") as lines,
            progress_bar(total=total, unit="line", desc="verify") as bar,
        ):
            # binary: lines split at newlines only
            return verify_lines(_counted(lines, bar))
    except OSError as error:
        raise CommandError(f"{path}: {error.strerror or error}", returncode=2) from None
    except LineError as error:
        raise CommandError(
            _("%(path)s: not an envelope at %(where)s") % {"path": path, "where": error},
            returncode=2,
        ) from None


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Re-hash every stream's chain, in the store or in a JSON Lines file (--file); report "
        "the first bad event of each stream (gap, reordering, alteration ...). In the store it also "
        "checks that the append-only triggers and the refusal of unsealed rows are in place as shipped, every "
        "row's server seal, the store against the latest signed tree head in the database, at each publisher and "
        "in --head files (a cut tail, a deleted stream, a re-hashed or moved event, a seal stripped; events and no "
        "trusted head at all is a problem) and that the "
        "access log still matches its seals, that the rows people act on (findings' status, sign-offs, "
        "alerts' acknowledgements) agree with their events, names an ingest that stopped while writing "
        "(a stream of it may be cut short) and every person whose authority (user, groups, permissions, API "
        "tokens, device account) does not hold its seal. A progress bar on stderr, on a terminal only."
    )
    exit_codes = {
        0: gettext_lazy("every chain intact (or no events to verify)"),
        1: gettext_lazy(
            "a problem was found (one line each), or events and no trusted signed head"
        ),
        2: gettext_lazy(
            "the file cannot be read, a line is not an envelope, an unknown --stream, a bad "
            "--since, or an unmigrated database"
        ),
    }

    def add_arguments(self, parser):
        parser.add_argument(
            "--file", help=_("verify this JSON Lines file ('-' for stdin) instead of the store")
        )
        parser.add_argument("--stream", help=_("verify one table's stream only (the store)"))
        parser.add_argument(
            "--since",
            help=_(
                "only events recorded since this date (YYYY-MM-DD, TIME_ZONE) or timestamp "
                "(the store)"
            ),
        )
        parser.add_argument(
            "--head",
            action="append",
            metavar="FILE",
            help=_(
                "also check the store against this signed head, one kept apart (the regulator's "
                "own check; repeatable). The latest head in the database and the latest at each of "
                "DIGEST_PUBLISHERS are always checked"
            ),
        )

    def handle(self, *args, file=None, stream=None, since=None, head=None, **options):
        if file is not None:
            if stream or since:
                raise CommandError(
                    _("--stream and --since apply to the store, not to --file"), returncode=2
                )
            report = _verify_file(file)
            self._report(report, where=f"{file}: ")
            return
        since_at = _since(since) if since else None
        total = Event.objects.filter(**({"stream": stream} if stream else {})).count()
        if stream and not total:
            self._archived_only(stream)
            return
        with progress_bar(total=total, unit="ev", desc="verify") as bar:
            try:
                # what protects the record, the signed heads and the access log's seals
                # are checked with the chains (audit.integrity.verification)
                result = integrity_check(
                    stream=stream, since=since_at, head_files=head or (), progress=bar.update
                )
            except DigestError as error:
                raise CommandError(str(error), returncode=2) from None
        # what protects the record, an ingest that stopped while writing, the rows people
        # act on against their events (audit.integrity.verification: the periodic task checks the same)
        report, guards = result.report, result.problems
        for unread in result.unread:  # a publisher that did not answer: the others still count
            self.stdout.write(_("signed heads: %(publisher)s: not read") % {"publisher": unread})
        if stream is None and result.signed:
            self.stdout.write(_("signed heads: %(heads)s") % {"heads": "; ".join(result.looked)})
        self._report(report, where="", guards=guards)

    def _archived_only(self, stream: str) -> None:
        """A stream every event of which was detached (regulator.archive): nothing of it is
        left to re-hash here, but its archived head must still agree with the key table, and
        the regulator's package that holds its events is named."""
        starts, problems = archived_starts(stream)
        detach = last_detach_of(stream)
        if stream not in starts or detach is None:
            raise no_events_in(stream)
        version = starts[stream][0]
        for problem in problems:
            self.stderr.write(str(problem))
        said = {
            "stream": stream,
            "version": version,
            "day": detach.day,
            "partition": detach.partition,
            "first": detach.first,
            "last": detach.last,
            "sha256": detach.package_sha256,
        }
        if problems:
            raise CommandError(
                _(
                    "%(stream)s: no events attached - versions 1 to %(version)s are archived; the "
                    "last of them were detached with gaming day %(day)s (partition %(partition)s, "
                    "versions %(first)s to %(last)s), held by the regulator's package whose "
                    "manifest has SHA-256 %(sha256)s: verify that package offline (blackjack-audit "
                    "verify); its archived head disagrees with the key table"
                )
                % said,
                returncode=1,
            )
        self.stdout.write(
            _(
                "%(stream)s: no events attached - versions 1 to %(version)s are archived; the last "
                "of them were detached with gaming day %(day)s (partition %(partition)s, versions "
                "%(first)s to %(last)s), held by the regulator's package whose manifest has SHA-256 "
                "%(sha256)s: verify that package offline (blackjack-audit verify); the archived head "
                "agrees with the key table"
            )
            % said
        )

    def _report(self, report: Report, *, where: str, guards: list[str] = ()) -> None:
        for guard in guards:
            self.stderr.write(guard)
        for problem in report.problems:
            self.stderr.write(f"{where}{problem}")
        if guards:
            # each kind of problem counted under its own name (audit.integrity.verification's lines)
            rows = sum(1 for g in guards if g.startswith("read model: "))
            stopped = sum(1 for g in guards if g.startswith("ingest: "))
            people = sum(1 for g in guards if g.startswith("authority: "))
            others = len(guards) - rows - stopped - people
            counted = (
                (
                    others,
                    ngettext(
                        "%(count)d problem(s) with what protects the record",
                        "%(count)d problem(s) with what protects the record",
                        others,
                    ),
                ),
                (
                    rows,
                    ngettext(
                        "%(count)d field(s) of rows people act on differ from their events",
                        "%(count)d field(s) of rows people act on differ from their events",
                        rows,
                    ),
                ),
                (
                    stopped,
                    ngettext(
                        "%(count)d ingest(s) stopped while writing",
                        "%(count)d ingest(s) stopped while writing",
                        stopped,
                    ),
                ),
                (
                    people,
                    ngettext(
                        "%(count)d person(s) whose authority does not hold its seal",
                        "%(count)d person(s) whose authority does not hold its seal",
                        people,
                    ),
                ),
                (
                    len(report.problems),
                    ngettext(
                        "%(count)d stream(s) with problems",
                        "%(count)d stream(s) with problems",
                        len(report.problems),
                    ),
                ),
            )
            said = [text % {"count": count} for count, text in counted if count]
            raise CommandError("; ".join(said), returncode=1)
        if not report.events and report.ok:
            nothing = _("no events to verify")
            self.stdout.write(f"{where}{nothing}")
            return
        figures = {
            "events": format_number(report.events),
            "streams": format_number(report.streams),
            "count": len(report.problems),
        }
        if report.ok:
            said = ngettext(
                "verified %(events)s events in %(streams)s streams: all chains intact",
                "verified %(events)s events in %(streams)s streams: all chains intact",
                report.events,
            )
        else:
            said = ngettext(
                "verified %(events)s events in %(streams)s streams: %(count)d stream(s) with problems",
                "verified %(events)s events in %(streams)s streams: %(count)d stream(s) with problems",
                len(report.problems),
            )
        summary = where + said % figures
        if not report.ok:
            raise CommandError(summary, returncode=1)
        self.stdout.write(summary)
