"""``manage.py house_edge --ruleset NAME [--set PARAM=VALUE ...] [--json]``: the exact house
edge of a rule set played by its basic-strategy chart and by composition-dependent play
(CDZ-), the variance of a round, and the chart's parts (tables/engine/math/house_edge.py).
In JSON ``house_edge`` and ``cd_house_edge`` are the house's expected gain per unit of
initial stake (0.0045 is 0.45%); ``variance`` and ``sd`` are per round per unit of initial
stake."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from audit.presenting.commands import BackOfficeCommand
from tables.engine.math.house_edge import house_edge

from .strategy import EXIT_CODES, add_ruleset_arguments, load_ruleset, ruleset_title


class Command(BackOfficeCommand):
    help = (
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
            (
                f"House edge of {ruleset_title(rules)} ({rules.decks} decks), played by its basic strategy: "
                f"{100 * result.house_edge:.4f}%"
            ),
            f"  composition-dependent play (CDZ-): {100 * result.cd_house_edge:.4f}%",
            f"  variance of a round: {result.variance:.4f} (standard deviation {result.sd:.4f}) per unit staked",
            f"  dealer natural on a first deal: {100 * result.dealer_natural:.4f}%",
            "",
            "  first decision     probability   player return per unit staked",
        ]
        for name, part in result.parts.items():
            lines.append(
                f"  {name:<16} {100 * part.probability:>11.4f}%   {100 * part.player_return:>+10.4f}%"
            )
        lines.append(f"  {'total':<16} {100.0:>11.4f}%   {-100 * result.house_edge:>+10.4f}%")
        self.stdout.write("\n".join(lines))
