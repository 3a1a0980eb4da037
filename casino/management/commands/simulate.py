"""``manage.py simulate``: realistic gaming days as events, into a JSON Lines file or
straight into the event store, with faults planted on demand and a manifest of them.
The work is ``tables.simulator`` (docs/simulator.md)."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.presenting.commands import BackOfficeCommand
from audit.presenting.progress import progress_bar
from audit.record.money import active_locale, format_number
from audit.store.gaming_day import gaming_day
from tables.simulator.config import SimConfig
from tables.simulator.faults import KINDS, FaultError, parse_at, parse_rate
from tables.simulator.run import simulate, simulate_file


def _bad(message: str) -> CommandError:
    # "simulate: " names the command, the message is in the person's language
    return CommandError(f"simulate: {message}", returncode=2)


def _decimal(value: float, digits: int) -> str:
    """``12.5`` with ``digits`` decimals, the locale's way (``12,5`` in Italian and Czech;
    no thousands separator in English, as ``{:.1f}``, but the locale's with no decimals)."""
    locale = active_locale()
    if locale is None:
        return f"{value:,.0f}" if digits == 0 else f"{value:.{digits}f}"
    from babel.numbers import format_decimal

    return format_decimal(
        value, format="#,##0" + ("." + "0" * digits if digits else ""), locale=locale
    )


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Simulate gaming days of blackjack tables as events, with faults planted on demand. A progress "
        "bar (rounds) on stderr, on a terminal only."
    )

    exit_codes = {
        0: gettext_lazy("simulated (and with --check, the audit found exactly what was planted)"),
        1: gettext_lazy("--check: the audit and the manifest differ"),
        2: gettext_lazy(
            "bad input: an option, a fault, an --out path that cannot be written, a stream "
            "already in the store"
        ),
    }

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--tables", type=int, default=7, help=_("how many tables (default 7: one per preset)")
        )
        parser.add_argument(
            "--preset",
            action="append",
            metavar="NAME",
            help=_("rule set(s) the tables deal, in turn (default: every preset)"),
        )
        size = parser.add_mutually_exclusive_group()
        size.add_argument("--rounds", type=int, help=_("rounds per table and gaming day"))
        size.add_argument(
            "--hours", type=float, help=_("hours of play per gaming day at --pace (default 8)")
        )
        parser.add_argument("--pace", type=int, default=60, help=_("rounds an hour (default 60)"))
        parser.add_argument("--days", type=int, default=1, help=_("gaming days (default 1)"))
        parser.add_argument(
            "--last-day-rounds",
            type=int,
            metavar="N",
            help=_(
                "rounds per table on the last gaming day, when it is shorter (default: as every day)"
            ),
        )
        parser.add_argument(
            "--seed", help=_("make the run reproducible: the same seed gives the same bytes")
        )
        parser.add_argument(
            "--start",
            help=_(
                "when the first day opens (ISO 8601; default: today 12:00 UTC, or 2026-11-29 with --seed)"
            ),
        )
        parser.add_argument(
            "--seats",
            type=int,
            help=_("occupied boxes per table, fixed (default: players come and go)"),
        )
        parser.add_argument(
            "--live-bets",
            type=int,
            default=2000,
            help=_("bets per round on it-live tables (default 2000)"),
        )
        parser.add_argument("--prefix", default="BJ-", help=_("table code prefix (default BJ-)"))
        out = parser.add_mutually_exclusive_group()
        out.add_argument("--out", metavar="FILE", help=_("write JSON Lines here ('-' for stdout)"))
        out.add_argument(
            "--into-store", action="store_true", help=_("append straight into the event store")
        )
        parser.add_argument(
            "--fault-rate",
            action="append",
            default=[],
            metavar="KIND=RATE",
            help=_("plant KIND with probability RATE per round; kinds: %(kinds)s")
            % {"kinds": ", ".join(KINDS)},
        )
        parser.add_argument(
            "--fault",
            action="append",
            default=[],
            metavar="KIND@TABLE:ROUND",
            help=_(
                "plant KIND at that round of that table (or the first round after it that allows it)"
            ),
        )
        parser.add_argument(
            "--manifest", metavar="FILE", help=_("write the JSON manifest of planted faults here")
        )
        parser.add_argument(
            "--check",
            action="store_true",
            help=_(
                "audit the file afterwards (replay, chip reconciliation, chain) against the "
                "manifest; exit 1 on a difference"
            ),
        )
        parser.add_argument(
            "--jobs",
            type=int,
            default=1,
            help=_("tables dealt by this many processes at once (file output; default 1)"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        config = self._config(options)
        if options["jobs"] < 1:
            raise _bad(_("--jobs must be at least 1"))
        if options["check"] and (options["into_store"] or options["out"] in (None, "-")):
            raise _bad(_("--check audits a file: use it with --out FILE"))
        if options["jobs"] > 1 and options["into_store"]:
            raise _bad(
                _("--jobs works with --out only (the store takes one writer per stream anyway)")
            )
        if not options["out"] and not options["into_store"]:
            raise _bad(_("say where the events go: --out FILE or --into-store"))
        total = config.tables * config.total_rounds
        began = time.perf_counter()
        with progress_bar(total=total, unit=_("round"), desc="simulate") as bar:
            if options["into_store"]:
                manifest = self._into_store(config, bar.update)
                where = _("the event store")
            else:
                manifest = self._to_file(config, options["out"], options["jobs"], bar.update)
                where = options["out"]
        took = time.perf_counter() - began
        if options["manifest"]:
            with open(options["manifest"], "w", encoding="utf-8") as out:
                json.dump(manifest, out, indent=2, ensure_ascii=False)
                out.write("\n")
        report = self.stderr if options["out"] == "-" else self.stdout
        report.write(
            ngettext(
                "%(rounds)s rounds, %(events)s events on %(tables)d tables into %(where)s in "
                "%(seconds)s s (%(rate)s rounds/s); %(faults)d faults planted",
                "%(rounds)s rounds, %(events)s events on %(tables)d tables into %(where)s in "
                "%(seconds)s s (%(rate)s rounds/s); %(faults)d faults planted",
                manifest["rounds"],
            )
            % {
                "rounds": format_number(manifest["rounds"]),
                "events": format_number(manifest["events"]),
                "tables": config.tables,
                "where": where,
                "seconds": _decimal(took, 1),
                "rate": _decimal(manifest["rounds"] / took, 0),
                "faults": len(manifest["faults"]),
            }
        )
        for missed in manifest["not_planted"]:
            # the reason is the simulator's own text (English)
            self.stderr.write(
                _("simulate: %(fault)s was not planted: %(reason)s")
                % {
                    "fault": f"{missed['kind']}@{missed['table']}:{missed['round']}",
                    "reason": missed["reason"],
                }
            )
        if options["check"]:
            self._check(options["out"], manifest)

    def _check(self, path: str, manifest: dict[str, Any]) -> None:
        from casino.simcheck import check_file

        result = check_file(path, manifest)
        if result.ok:
            self.stdout.write(
                ngettext(
                    "check: the audit reports exactly what the %(faults)d planted faults must "
                    "show (%(findings)d findings; a chain shows only its first tampering), and "
                    "nothing else",
                    "check: the audit reports exactly what the %(faults)d planted faults must "
                    "show (%(findings)d findings; a chain shows only its first tampering), and "
                    "nothing else",
                    len(manifest["faults"]),
                )
                % {"faults": len(manifest["faults"]), "findings": sum(result.expected.values())}
            )
            return
        for (check, table, kind, where), n in sorted(result.missed.items()):
            self.stderr.write(
                _("check: missed %(n)d x %(kind)s (%(check)s) at %(table)s %(where)s")
                % {"n": n, "kind": kind, "check": check, "table": table, "where": where}
            )
        for (check, table, kind, where), n in sorted(result.unexpected.items()):
            self.stderr.write(
                _("check: unexpected %(n)d x %(kind)s (%(check)s) at %(table)s %(where)s")
                % {"n": n, "kind": kind, "check": check, "table": table, "where": where}
            )
        raise CommandError(_("simulate: the audit and the manifest differ"), returncode=1)

    def _config(self, options: dict[str, Any]) -> SimConfig:
        try:
            rates = dict(parse_rate(text) for text in options["fault_rate"])
            at = tuple(parse_at(text) for text in options["fault"])
            start = self._start(options["start"])
            return SimConfig(
                tables=options["tables"],
                presets=tuple(options["preset"]) if options["preset"] else SimConfig.presets,
                rounds=options["rounds"],
                hours=options["hours"] if options["hours"] is not None else 8.0,
                pace=options["pace"],
                days=options["days"],
                last_day_rounds=options["last_day_rounds"],
                seed=options["seed"],
                start=start,
                gaming_day=gaming_day(start) if start is not None else None,
                seats=options["seats"],
                live_bets=options["live_bets"],
                rates=rates,
                at=at,
                prefix=options["prefix"],
            )
        except FaultError as error:
            raise _bad(str(error)) from None

    def _start(self, text: str | None) -> datetime | None:
        if text is None:
            return None
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise FaultError(
                _(
                    "--start %(text)r: expected an ISO 8601 timestamp such as 2026-11-29T14:00:00+01:00"
                )
                % {"text": text}
            ) from None
        return timezone.make_aware(moment) if timezone.is_naive(moment) else moment

    def _to_file(self, config: SimConfig, path: str, jobs: int, progress: Any) -> dict[str, Any]:
        if path == "-":
            return simulate_file(config, sys.stdout.buffer, jobs=jobs, progress=progress)
        try:
            out = open(path, "wb")  # noqa: SIM115 - closed below, after the run
        except OSError as error:
            raise CommandError(
                _("simulate: --out %(path)s: cannot write there (%(why)s)")
                % {"path": path, "why": error.strerror},
                returncode=2,
            ) from None
        with out:
            return simulate_file(config, out, jobs=jobs, progress=progress)

    def _into_store(self, config: SimConfig, progress: Any) -> dict[str, Any]:
        from tables.simulator.store import StoreSink, StreamExists, TamperRefused

        try:
            sink = StoreSink(config)
        except (StreamExists, TamperRefused) as error:
            raise _bad(str(error)) from None
        return simulate(config, sink, progress=progress)
