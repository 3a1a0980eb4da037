from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from audit.feed.derived import derived_disagreements, derived_restore
from audit.models import Event
from audit.presenting.commands import BackOfficeCommand, no_events_in
from audit.presenting.progress import progress_bar
from tables.projections import first_difference, rebuild, rebuild_streams


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Drop the read models (tables, days, shoes, rounds, hands, bets) and build them "
        "again from the first event by the rules engine's replay; then compare the rebuilt "
        "rows with the ones that were live, row by row. Then writes the rows people act on (findings' "
        "status, sign-offs, alerts' acknowledgements) as their events make them, naming each row it "
        "wrote - with --stream, those of that table only. A progress bar (tables) on stderr, on a terminal only."
    )
    exit_codes = {
        0: gettext_lazy("rebuilt, equal to the live rows"),
        1: gettext_lazy(
            "rebuilt, but it differs from the live rows (the first difference is named; the "
            "rebuilt rows stay), or a row people act on differed from its events (each is named "
            "and written as its events make it, or named as left)"
        ),
        2: gettext_lazy("an unknown --stream, or an unmigrated database"),
    }

    def add_arguments(self, parser):
        parser.add_argument("--stream", help=_("one table's stream only"))

    def handle(self, *args: Any, stream: str | None = None, **options: Any) -> None:
        if stream is not None and not Event.objects.filter(stream=stream).exists():
            raise no_events_in(stream)
        with progress_bar(
            total=len(rebuild_streams(stream)), unit=_("table"), desc="rebuild"
        ) as bar:
            live, rebuilt = rebuild(stream, progress=lambda _table: bar.update(1))
        difference = first_difference(live, rebuilt)
        counts = ", ".join(
            _counted(name, len(rows)) for name, rows in rebuilt.items() if name != "without a round"
        )
        restored = self._read_models(stream)
        if difference is not None:
            raise CommandError(
                _("the rebuilt projection differs from the live one: %(difference)s")
                % {"difference": difference},
                returncode=1,
            )
        self.stdout.write(
            _("rebuilt %(counts)s: equal to the live projection, row by row") % {"counts": counts}
        )
        if restored:
            raise CommandError("; ".join(restored), returncode=1)

    def _read_models(self, stream: str | None) -> list[str]:
        """The rows people act on (of table ``stream`` only, when given) written as their
        events make them (audit.feed.derived): each disagreement named on stderr; what it says
        of them (empty: all agreed)."""
        disagreements = derived_disagreements(stream)
        # what each disagreement says is the audit feed's text (audit.feed.derived), and the
        # read models' names are their codes
        if not disagreements:
            self.stdout.write(
                _("the rows people act on of table %(table)s agree with their events")
                % {"table": stream}
                if stream is not None
                else _("the rows people act on agree with their events")
            )
            return []
        for found in disagreements:
            self.stderr.write(_("read model: %(found)s") % {"found": found})
        done = derived_restore(stream)
        said = [
            ngettext(
                "%(count)s %(name)s row(s) written as their events make them",
                "%(count)s %(name)s row(s) written as their events make them",
                count,
            )
            % {"count": count, "name": name}
            for name, count in done.written.items()
        ]
        said += [
            ngettext(
                "%(count)s %(name)s row(s) made again from their events",
                "%(count)s %(name)s row(s) made again from their events",
                count,
            )
            % {"count": count, "name": name}
            for name, count in done.made.items()
        ]
        for found in done.left:
            self.stderr.write(_("read model left as it is: %(found)s") % {"found": found})
        if done.left:
            said.append(
                ngettext(
                    "%(count)s disagreement(s) left (a row no event made, or one only its check "
                    "makes)",
                    "%(count)s disagreement(s) left (a row no event made, or one only its check "
                    "makes)",
                    len(done.left),
                )
                % {"count": len(done.left)}
            )
        return said


# the read models a rebuild counts (tables.projections.snapshot), each counted in words
# (in English as ever: "1 tables")
_COUNTED = {
    "table": ngettext_lazy("%(count)s tables", "%(count)s tables", "count"),
    "table day": ngettext_lazy("%(count)s table days", "%(count)s table days", "count"),
    "shoe": ngettext_lazy("%(count)s shoes", "%(count)s shoes", "count"),
    "round": ngettext_lazy("%(count)s rounds", "%(count)s rounds", "count"),
    "hand": ngettext_lazy("%(count)s hands", "%(count)s hands", "count"),
    "bet": ngettext_lazy("%(count)s bets", "%(count)s bets", "count"),
}


def _counted(name: str, count: int) -> str:
    if name in _COUNTED:
        return str(_COUNTED[name] % {"count": count})
    return f"{count} {name}s"
