"""``manage.py house_edge --ruleset NAME [--set PARAM=VALUE ...] [--json]``: the exact house
edge of a rule set played by its basic-strategy chart and by composition-dependent play
(CDZ-), the variance of a round, and the chart's parts (tables/engine/math/house_edge.py).
In JSON ``house_edge`` and ``cd_house_edge`` are the house's expected gain per unit of
initial stake (0.0045 is 0.45%); ``variance`` and ``sd`` are per round per unit of initial
stake."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from audit.presenting.commands import BackOfficeCommand
from audit.record.money import active_locale
from tables.engine.math.house_edge import house_edge

from .strategy import EXIT_CODES, add_ruleset_arguments, load_ruleset, ruleset_title

# the chart's first decisions, as the engine names them, in the words the screens use
PARTS = {
    "natural": pgettext_lazy("outcome", "natural"),
    "stand": pgettext_lazy("decision", "stand"),
    "hit": pgettext_lazy("decision", "hit"),
    "double": pgettext_lazy("decision", "double"),
    "split": pgettext_lazy("decision", "split"),
    "surrender": pgettext_lazy("decision", "surrender"),
}


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Print the exact house edge of a rule set (played by its chart, and by composition-"
        "dependent play), the variance of a round, and the chart's parts."
    )
    exit_codes = EXIT_CODES

    def add_arguments(self, parser: CommandParser) -> None:
        add_ruleset_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        rules = load_ruleset(options["ruleset"], options["assignments"])
        result = house_edge(rules)
        if options["json"]:
            payload = result.as_dict() | {"rules": rules.as_overrides()}
            self.stdout.write(json.dumps(payload, indent=2))
            return
        lines = [
            ngettext(
                "House edge of %(ruleset)s (%(decks)s decks), played by its basic strategy: "
                "%(edge)s",
                "House edge of %(ruleset)s (%(decks)s decks), played by its basic strategy: "
                "%(edge)s",
                rules.decks,
            )
            % {
                "ruleset": ruleset_title(rules),
                "decks": rules.decks,
                "edge": _percent(result.house_edge),
            },
            "  "
            + _("composition-dependent play (CDZ-): %(edge)s")
            % {"edge": _percent(result.cd_house_edge)},
            "  "
            + _("variance of a round: %(variance)s (standard deviation %(sd)s) per unit staked")
            % {"variance": _decimal(result.variance), "sd": _decimal(result.sd)},
            "  "
            + _("dealer natural on a first deal: %(rate)s")
            % {"rate": _percent(result.dealer_natural)},
            "",
            "  " + _("first decision     probability   player return per unit staked"),
        ]
        for name, part in result.parts.items():
            lines.append(
                f"  {PARTS.get(name, name)!s:<16} {_percent(part.probability):>12}   "
                f"{_percent(part.player_return, signed=True):>11}"
            )
        total = _("total")
        lines.append(
            f"  {total:<16} {_percent(1.0):>12}   {_percent(-result.house_edge, signed=True):>11}"
        )
        self.stdout.write("\n".join(lines))


def _decimal(value: float) -> str:
    """``0.1234`` to four places, the locale's way (``0,1234`` in Italian and Czech)."""
    text = f"{value:.4f}"
    locale = active_locale()
    if locale is None:
        return text
    from babel.numbers import format_decimal

    return format_decimal(Decimal(text), format="#,##0.0000", locale=locale)


def _percent(value: float, *, signed: bool = False) -> str:
    """A rate as a percentage to four places: ``0.4500%``, ``+1.2300%`` (``0,4500 %`` in
    Czech); the figure rounded as the English text rounds it."""
    text = f"{100 * value:{'+' if signed else ''}.4f}"
    locale = active_locale()
    if locale is None:
        return text + "%"
    from babel import Locale
    from babel.numbers import format_percent

    pattern = Locale.parse(locale).percent_formats[None].pattern.replace("#,##0", "#,##0.0000")
    if signed:
        pattern = f"+{pattern};-{pattern}"
    return format_percent(Decimal(text) / 100, format=pattern, locale=locale)
