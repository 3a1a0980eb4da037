from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from audit.feed.subscribers import (
    catch_up,
    failures_of,
    feed_head,
    position_of,
    registered,
    take_back,
)
from audit.presenting.commands import BackOfficeCommand
from audit.presenting.progress import progress_bar

# positions per batch for a subscriber that sets no limit, so that the bar moves
_STEP = 20_000


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Bring the global feed's subscribers (the read models and findings) up to the "
        "feed's head, each from its own position, and name every table a subscriber has set "
        "aside (an event its read model cannot apply; the other tables go on). --take-back "
        "TABLE follows a set-aside table again at once. A progress bar per subscriber "
        "(positions) on stderr, on a terminal only."
    )
    exit_codes = {
        0: gettext_lazy("every subscriber is at the head and follows every table"),
        1: gettext_lazy(
            "a subscriber failed (it keeps its position; the others go on), or a table is set "
            "aside (each named)"
        ),
        2: gettext_lazy(
            "an unknown --subscriber, a bad --jobs, a --take-back of a table not set aside, or an "
            "unmigrated database"
        ),
    }

    def add_arguments(self, parser):
        parser.add_argument(
            "--subscriber", help=_("one subscriber only (default: every registered one)")
        )
        parser.add_argument(
            "--take-back",
            metavar="TABLE",
            help=_(
                "follow this set-aside table again (each subscriber that set it aside, or "
                "--subscriber's): its read models go on from where they stopped"
            ),
        )
        parser.add_argument(
            "--jobs",
            type=int,
            default=1,
            help=_(
                "processes that take the tables (PostgreSQL; after a bulk ingest): the new events "
                "are then handed over in one batch, the bar moving once at its end"
            ),
        )

    def handle(
        self,
        *args: Any,
        subscriber: str | None = None,
        jobs: int = 1,
        take_back: str | None = None,
        **options: Any,
    ) -> None:
        if jobs < 1:
            raise CommandError(
                _("--jobs %(jobs)s: expected a whole number of at least 1") % {"jobs": jobs},
                returncode=2,
            )
        names = [s.name for s in registered()]
        if subscriber is not None and subscriber not in names:
            raise CommandError(
                _("--subscriber %(subscriber)s: no such subscriber; registered: %(registered)s")
                % {
                    "subscriber": repr(subscriber),
                    "registered": ", ".join(names) or pgettext("no subscribers", "none"),
                },
                returncode=2,
            )
        if take_back is not None:
            self.take_back(take_back, [subscriber] if subscriber else names)
        failed = []
        for name in [subscriber] if subscriber else names:
            start, head = position_of(name), feed_head()
            with progress_bar(total=max(head - start, 0), unit="pos", desc=name) as bar:
                try:
                    # in batches of _STEP the bar moves; a process per table would fold each
                    # table's day again for every batch (it keeps no folds): one batch then
                    done = catch_up(
                        name,
                        most=_STEP if jobs == 1 else None,
                        jobs=jobs,
                        progress=lambda at, _head, bar=bar, start=start: bar.update(
                            at - start - bar.n
                        ),
                    )
                except Exception as error:  # noqa: BLE001 - any failure of a subscriber is reported, the others go on
                    failed.append(name)
                    self.stderr.write(
                        _(
                            "%(subscriber)s: failed (%(error)s); it stays where it was and is "
                            "retried next time"
                        )
                        % {"subscriber": name, "error": repr(error)}
                    )
                    continue
            self.stdout.write(
                _("%(subscriber)s: position %(start)s -> %(position)s (head %(head)s)")
                % {
                    "subscriber": name,
                    "start": done.start,
                    "position": done.position,
                    "head": feed_head(),
                }
            )
        aside = self.set_aside([subscriber] if subscriber else names)
        said: list[str] = []
        if failed:
            said.append(
                ngettext(
                    "%(count)d subscriber(s) failed: %(subscribers)s",
                    "%(count)d subscriber(s) failed: %(subscribers)s",
                    len(failed),
                )
                % {"count": len(failed), "subscribers": ", ".join(failed)}
            )
        if aside:
            said.append(
                ngettext("%(count)d table(s) set aside", "%(count)d table(s) set aside", aside)
                % {"count": aside}
            )
        if said:
            raise CommandError("; ".join(said), returncode=1)

    def set_aside(self, names: list[str]) -> int:
        """Name every table these subscribers set aside (stderr); how many."""
        count = 0
        for name in names:
            for stream, row in sorted(failures_of(name).items()):
                if row.set_aside_at is None:
                    continue
                count += 1
                said = {
                    "subscriber": name,
                    "table": stream,
                    "since": f"{row.set_aside_at:%Y-%m-%d %H:%M:%S}",
                    "version": row.from_version,
                    "error": row.error[:200],
                }
                if row.from_version is not None:
                    line = _(
                        "%(subscriber)s: table %(table)s set aside since %(since)s UTC: its events "
                        "from version %(version)s fail (%(error)s); a correction recorded in the "
                        "stream, or catch_up --take-back %(table)s, takes it back"
                    )
                else:
                    line = _(
                        "%(subscriber)s: table %(table)s set aside since %(since)s UTC: its events "
                        "fail (%(error)s); a correction recorded in the stream, or catch_up "
                        "--take-back %(table)s, takes it back"
                    )
                self.stderr.write(line % said)
        return count

    def take_back(self, stream: str, names: list[str]) -> None:
        held = [
            name
            for name in names
            if (row := failures_of(name).get(stream)) is not None and row.set_aside_at
        ]
        if not held:
            raise CommandError(
                _("--take-back %(table)s: no subscriber has set it aside") % {"table": stream},
                returncode=2,
            )
        for name in held:
            if take_back(name, stream):
                self.stdout.write(
                    _("%(subscriber)s: table %(table)s taken back: its read model follows it again")
                    % {"subscriber": name, "table": stream}
                )
            else:
                self.stderr.write(
                    _("%(subscriber)s: table %(table)s still fails: set aside it stays")
                    % {"subscriber": name, "table": stream}
                )
