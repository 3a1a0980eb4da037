from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from ledger import master_game, reports


class Command(BaseCommand):
    help = (
        "The ledger's reports. `report hold --from D --to D`: drop, chip-count win, hold and "
        "theoretical hold per table over the days that have both a chip-count win and a drop (the "
        "others listed as left out), beside the house result, handle and theoretical win of every "
        "day's rounds; `report statistics --group table|game|pit|casino --period "
        "shift|day|mtd|ytd --day D` (or `--period range --from D --to D`): the same per group beside "
        "a year before; `report daily` and `report drop --from D --to D`; `report master-game --day D "
        "[--shift S|all]`: the master game report (stiff sheet) of the day. --table, --game and --pit "
        "narrow them; --csv writes CSV (amounts as text, in currency units and in minor units, and a "
        "totals row per currency). Exit codes: 0 the "
        "report was written; 2 bad input (an unknown report, a malformed or missing day, from after "
        "to)."
    )

    def add_arguments(self, parser):
        parser.add_argument("report", help="hold, statistics, daily or drop")
        parser.add_argument("--from", dest="day_from", help="the first gaming day, YYYY-MM-DD")
        parser.add_argument("--to", dest="day_to", help="the last gaming day, YYYY-MM-DD")
        parser.add_argument("--day", help="statistics: the day the period ends on")
        parser.add_argument("--group", default="table", help="statistics: table, game, pit or casino")
        parser.add_argument("--period", default="day", help="statistics: shift, day, mtd, ytd or range")
        parser.add_argument("--table", help="one table's code")
        parser.add_argument("--game", help="one rule set")
        parser.add_argument("--pit", help="one pit")
        parser.add_argument("--shift", help="master-game: a shift's label, or all (default: the whole day)")
        parser.add_argument("--csv", action="store_true", help="CSV instead of a table")
        parser.add_argument("--consolidate", action="store_true",
                            help="statistics, hold, daily: every table-day in the house currency at its day's rate")

    def handle(self, *args, report, csv=False, **options):
        days = {name: _day(options[name], name) for name in ("day_from", "day_to", "day")}
        filters = {k: options[k] for k in ("table", "game", "pit")}
        try:
            if report == "statistics":
                made = reports.statistics(group=options["group"], period=options["period"], day=days["day"],
                                          day_from=days["day_from"], day_to=days["day_to"],
                                          consolidate=options["consolidate"], **filters)
            elif report == "master-game":
                if days["day"] is None:
                    raise CommandError("report master-game needs --day (YYYY-MM-DD)", returncode=2)
                made = master_game.master_game(day=days["day"], shift=options["shift"], **filters)
            elif report in ("hold", "daily", "drop"):
                if days["day_from"] is None or days["day_to"] is None:
                    raise CommandError(f"report {report} needs --from and --to (YYYY-MM-DD)", returncode=2)
                more = {"consolidate": True} if options["consolidate"] and report != "drop" else {}
                made = getattr(reports, report)(day_from=days["day_from"], day_to=days["day_to"], **more, **filters)
            else:
                raise CommandError(f"{report!r}: no such report (hold, statistics, daily, drop, master-game)",
                                   returncode=2)
        except reports.ReportError as error:
            raise CommandError(str(error), returncode=2) from None
        if csv:
            self.stdout.write(made.as_csv(), ending="")
            return
        self.stdout.write(made.title)
        columns = [c for c in made.columns if c.screen]
        cells = ([[c.title for c in columns]] + [[made.display(row, c) or "-" for c in columns] for row in made.rows]
                 + [[made.total_display(row, c) for c in columns] for row in made.totals])
        widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
        for line in cells:
            self.stdout.write("  ".join(text.rjust(w) if c.kind != "text" else text.ljust(w)
                                        for text, w, c in zip(line, widths, columns)).rstrip())
        if not made.rows:
            self.stdout.write("(nothing in the range)")
        left_out = [row for row in made.rows if row.get("left_out_days")]
        if left_out:
            self.stdout.write("Left out of the hold (no chip-count win or no drop):")
            label = next((c for c in made.columns if c.kind == "text"), None)
            for row in left_out:
                name = made.display(row, label) if label else ""
                days = row["left_out_days"]
                self.stdout.write(f"  {name + ': ' if name and not days.startswith(name) else ''}{days}")
        unconverted = [row for row in made.rows if row.get("no_rate_days")]
        if unconverted:
            self.stdout.write("Not in the house currency (no rate of the day):")
            for row in unconverted:
                self.stdout.write(f"  {row['no_rate_days']}")


def _day(text: str | None, name: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        flag = {"day_from": "--from", "day_to": "--to", "day": "--day"}[name]
        raise CommandError(f"{flag} {text!r}: expected YYYY-MM-DD", returncode=2) from None
