from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import date

from django.core.management.base import CommandError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.presenting.commands import BackOfficeCommand
from audit.presenting.reports import TOTAL
from ledger import general_ledger, master_game, receivables, reports, slip_sequence
from ledger.accounting_admin import machine_read
from ledger.admin import shown

# the reports of one day (--day), and how each is made: (day, --from, the options)
AS_OF = {
    "master-game": lambda day, _, o: master_game.master_game(
        day=day, shift=o["shift"], table=o["table"], game=o["game"], pit=o["pit"]
    ),
    "marker-aging": lambda day, _, o: receivables.marker_aging(
        day=day, table=o["table"], pit=o["pit"]
    )[0],
    "markers": lambda day, _, o: receivables.marker_aging(
        day=day, table=o["table"], pit=o["pit"], outstanding_only=not o["every"]
    )[1],
    "chips-outstanding": lambda day, since, o: receivables.chips_outstanding(
        day=day, day_from=since, table=o["table"], pit=o["pit"]
    ),
    "journal": lambda day, _, o: general_ledger.journal(day=day, table=o["table"]),
    "trial-balance": lambda day, _, o: general_ledger.trial_balance(day=day, table=o["table"]),
}
# a text cell that is one of the reports' own words, not data (a totals row's label, the
# casino as a statistics group): shown in the language, as the screens show it
OWN_WORDS = (TOTAL, "casino")
NAMES = ("hold", "statistics", "daily", "drop", *AS_OF, "slip-books", "slip-sequence")


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "The ledger's reports. `report hold --from D --to D`: drop, chip-count win, hold and "
        "theoretical hold per table over the days that have both a chip-count win and a drop (the "
        "others listed as left out), beside the house result, handle and theoretical win of every "
        "day's rounds; `report statistics --group table|game|pit|casino --period "
        "shift|day|mtd|ytd --day D` (or `--period range --from D --to D`): the same per group beside "
        "a year before; `report daily` and `report drop --from D --to D`; `report master-game --day D "
        "[--shift S|all]`: the master game report (stiff sheet) of the day; `report marker-aging|markers "
        "[--every]|chips-outstanding [--from D]|journal|trial-balance --day D`: marker receivables, chips "
        "outstanding, the general ledger export of the day; `report slip-books|slip-sequence [--kind "
        "fill|credit]`: slip sequence control. --table, --game and --pit "
        "narrow them; --csv writes CSV (amounts as text, in currency units and in minor units, and a "
        "totals row per currency)."
    )
    exit_codes = {
        0: gettext_lazy("the report was written"),
        2: gettext_lazy(
            "bad input: an unknown report, a malformed or missing day, from after to, an "
            "unmigrated database"
        ),
    }

    def add_arguments(self, parser):
        parser.add_argument("report", help=_("hold, statistics, daily or drop"))
        parser.add_argument("--from", dest="day_from", help=_("the first gaming day, YYYY-MM-DD"))
        parser.add_argument("--to", dest="day_to", help=_("the last gaming day, YYYY-MM-DD"))
        parser.add_argument("--day", help=_("statistics: the day the period ends on"))
        parser.add_argument(
            "--group", default="table", help=_("statistics: table, game, pit or casino")
        )
        parser.add_argument(
            "--period", default="day", help=_("statistics: shift, day, mtd, ytd or range")
        )
        parser.add_argument("--table", help=_("one table's code"))
        parser.add_argument("--game", help=_("one rule set"))
        parser.add_argument("--pit", help=_("one pit"))
        parser.add_argument(
            "--shift", help=_("master-game: a shift's label, or all (default: the whole day)")
        )
        parser.add_argument(
            "--every", action="store_true", help=_("markers: every marker, paid or not")
        )
        parser.add_argument("--kind", help=_("slip-books, slip-sequence: fill or credit"))
        parser.add_argument("--csv", action="store_true", help=_("CSV instead of a table"))
        parser.add_argument(
            "--consolidate",
            action="store_true",
            help=_(
                "statistics, hold, daily: every table-day in the house currency at its day's rate"
            ),
        )

    def handle(self, *args, report, csv=False, **options):
        days = {name: _day(options[name], name) for name in ("day_from", "day_to", "day")}
        filters = {k: options[k] for k in ("table", "game", "pit")}
        # a CSV is for programs: made in English and ISO amounts, whatever the locale (the
        # errors stay in the person's language)
        made_for: Callable[[], AbstractContextManager[None]] = machine_read if csv else nullcontext
        if days["day_from"] and days["day_to"] and days["day_from"] > days["day_to"]:
            raise CommandError(
                _("--from %(start)s is after --to %(end)s")
                % {"start": days["day_from"], "end": days["day_to"]},
                returncode=2,
            )
        try:
            if report == "statistics":
                _statistics_options(options["group"], options["period"], **days)
                with made_for():
                    made = reports.statistics(
                        group=options["group"],
                        period=options["period"],
                        day=days["day"],
                        day_from=days["day_from"],
                        day_to=days["day_to"],
                        consolidate=options["consolidate"],
                        **filters,
                    )
            elif report in AS_OF:
                if days["day"] is None:
                    raise CommandError(
                        _("report %(report)s needs --day (YYYY-MM-DD)") % {"report": report},
                        returncode=2,
                    )
                with made_for():
                    made = AS_OF[report](days["day"], days["day_from"], options)
            elif report in ("slip-books", "slip-sequence"):
                if options["kind"] not in (None, "fill", "credit"):
                    raise CommandError(
                        _("--kind %(kind)r: expected fill or credit") % {"kind": options["kind"]},
                        returncode=2,
                    )
                with made_for():
                    made = (
                        slip_sequence.slip_books
                        if report == "slip-books"
                        else slip_sequence.slip_sequence
                    )(kind=options["kind"])
            elif report in ("hold", "daily", "drop"):
                if days["day_from"] is None or days["day_to"] is None:
                    raise CommandError(
                        _(
                            "report %(report)s needs --from and --to (YYYY-MM-DD; one day: --from "
                            "D --to D)"
                        )
                        % {"report": report},
                        returncode=2,
                    )
                more = {"consolidate": True} if options["consolidate"] and report != "drop" else {}
                with made_for():
                    made = getattr(reports, report)(
                        day_from=days["day_from"], day_to=days["day_to"], **more, **filters
                    )
            else:
                raise CommandError(
                    _("%(report)r: no such report (%(names)s)")
                    % {"report": report, "names": ", ".join(NAMES)},
                    returncode=2,
                )
        except reports.ReportError as error:
            raise CommandError(str(error), returncode=2) from None
        if csv:
            with machine_read():
                self.stdout.write(made.as_csv(), ending="")
            return
        self.stdout.write(made.title)
        columns = [c for c in made.columns if c.screen]
        totals = [[made.total_display(row, c) for c in columns] for row in made.totals]
        for line in totals:  # its label may sit in a column left out of the table
            line[0] = line[0] or TOTAL
        cells = [[_(c.title) for c in columns]] + [
            [
                # a yes-or-no in words, as on the screen (n/a where not known)
                shown(made, row, c) if c.kind == "bool" else made.display(row, c) or "-"
                for c in columns
            ]
            for row in made.rows
        ]
        cells += totals
        for line in cells[1:]:  # the reports' own words, in the language (codes as they are)
            for i, (text, c) in enumerate(zip(line, columns)):
                if c.kind == "text" and text in OWN_WORDS:
                    line[i] = _(text)
        widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
        for line in cells:
            self.stdout.write(
                "  ".join(
                    text.rjust(w) if c.kind != "text" else text.ljust(w)
                    for text, w, c in zip(line, widths, columns)
                ).rstrip()
            )
        if not made.rows:
            self.stdout.write(_("(nothing in the range)"))
        left_out = [row for row in made.rows if row.get("left_out_days")]
        if left_out:
            self.stdout.write(_("Left out of the hold (no chip-count win or no drop):"))
            label = next((c for c in made.columns if c.kind == "text"), None)
            for row in left_out:
                name = made.display(row, label) if label else ""
                days = row["left_out_days"]
                self.stdout.write(
                    f"  {name + ': ' if name and not days.startswith(name) else ''}{days}"
                )
        unconverted = [row for row in made.rows if row.get("no_rate_days")]
        if unconverted:
            self.stdout.write(_("Not in the house currency (no rate of the day):"))
            for row in unconverted:
                self.stdout.write(f"  {row['no_rate_days']}")


def _statistics_options(
    group: str, period: str, *, day: date | None, day_from: date | None, day_to: date | None
) -> None:
    """Refuse options ``report statistics`` cannot make a report of, naming the options
    to use (the report's own errors name the API's parameters)."""

    def refuse(said: str) -> CommandError:
        return CommandError(said, returncode=2)

    if group not in reports.GROUPS:
        raise refuse(
            _("report statistics: --group %(group)r: expected one of %(groups)s")
            % {"group": group, "groups": ", ".join(reports.GROUPS)}
        )
    if period not in reports.PERIODS:
        raise refuse(
            _("report statistics: --period %(period)r: expected one of %(periods)s")
            % {"period": period, "periods": ", ".join(reports.PERIODS)}
        )
    ranged = day_from is not None or day_to is not None
    if period == "range":
        if day_from is None or day_to is None:
            raise refuse(_("report statistics: --period range needs --from and --to (YYYY-MM-DD)"))
        if day is not None:
            raise refuse(_("report statistics: --period range takes --from and --to, not --day"))
    elif ranged:
        raise refuse(
            _(
                "report statistics: --from and --to make a range: add --period range (the "
                "default, --period day, takes --day D)"
            )
            if day is None and period == "day"
            else _(
                "report statistics: --period %(period)s takes --day D, the day it ends on; --from "
                "and --to go with --period range"
            )
            % {"period": period}
        )
    elif day is None:
        raise refuse(
            _(
                "report statistics: --period %(period)s needs --day YYYY-MM-DD, the day it ends on "
                "(or --period range --from D --to D)"
            )
            % {"period": period}
        )


def _day(text: str | None, name: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        flag = {"day_from": "--from", "day_to": "--to", "day": "--day"}[name]
        raise CommandError(
            _("%(option)s %(text)r: expected YYYY-MM-DD") % {"option": flag, "text": text},
            returncode=2,
        ) from None
