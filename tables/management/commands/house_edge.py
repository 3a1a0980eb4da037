"""``manage.py house_edge --ruleset NAME [--set PARAM=VALUE ...] [--json]``: the house edge
of a rule set played by its basic strategy, and its parts (tables/engine/math/house_edge.py).
In JSON ``house_edge`` is the house's expected gain per unit of initial stake (0.0045 is
0.45%)."""
from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from audit.commands import BackOfficeCommand
from tables.engine.math.house_edge import house_edge

from .strategy import EXIT_CODES, add_ruleset_arguments, load_ruleset, ruleset_title


class Command(BackOfficeCommand):
    help = "Print the house edge of a rule set played by its basic strategy, and its parts."
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
            (f"House edge of {ruleset_title(rules)} ({rules.decks} decks), played by its basic strategy: "
            f"{100 * result.house_edge:.4f}%"),
            f"  (each first deal played by its own best action: {100 * result.optimal_house_edge:.4f}%)",
            f"  dealer natural on a first deal: {100 * result.dealer_natural:.4f}%",
            "",
            "  first decision     probability   player return per unit staked",
        ]
        for name, part in result.parts.items():
            lines.append(f"  {name:<16} {100 * part.probability:>11.4f}%   {100 * part.player_return:>+10.4f}%")
        lines.append(f"  {'total':<16} {100.0:>11.4f}%   {-100 * result.house_edge:>+10.4f}%")
        self.stdout.write("\n".join(lines))
