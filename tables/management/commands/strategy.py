"""``manage.py strategy --ruleset NAME [--set PARAM=VALUE ...] [--json]``: the rule set's
basic-strategy chart, generated from its rules (tables/engine/math/strategy.py)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.presenting.commands import BackOfficeCommand
from tables.engine.math.overrides import OverrideError, apply_assignments
from tables.engine.math.strategy import chart_for
from tables.engine.presets import preset
from tables.engine.rules import RuleSet


def add_ruleset_arguments(parser: CommandParser) -> None:
    parser.add_argument("--ruleset", required=True, help=_("a preset name, e.g. it-live"))
    parser.add_argument(
        "--set",
        dest="assignments",
        action="append",
        default=[],
        metavar="PARAM=VALUE",
        help=_("change one rule-set parameter (repeatable), e.g. --set decks=2"),
    )
    parser.add_argument("--json", action="store_true", help=_("print JSON"))


def load_ruleset(name: str, assignments: list[str]) -> RuleSet:
    # the rules engine's own words (no rule set of that name, a parameter it refuses) stay
    # English: the engine is pure Python, without the catalogues
    try:
        rules = preset(name)
    except KeyError as error:
        raise CommandError(str(error.args[0]), returncode=2) from None
    try:
        return apply_assignments(rules, assignments)
    except OverrideError as error:
        raise CommandError(f"--set {error}", returncode=2) from None


def ruleset_title(rules: RuleSet) -> str:
    """The rule set's name and every parameter ``--set`` changed from its preset:
    ``hoyle with decks=2, surrender=late``."""
    base = preset(rules.name).as_overrides()
    changed = [
        f"{name}={value}" for name, value in rules.as_overrides().items() if base.get(name) != value
    ]
    if not changed:
        return rules.name
    return _("%(ruleset)s with %(changed)s") % {
        "ruleset": rules.name,
        "changed": ", ".join(changed),
    }


EXIT_CODES = {
    0: gettext_lazy("printed"),
    2: gettext_lazy("an unknown --ruleset or a bad --set"),
}


class Command(BackOfficeCommand):
    help = gettext_lazy("Print the basic-strategy chart of a rule set, computed from its rules.")
    exit_codes = EXIT_CODES

    def add_arguments(self, parser: CommandParser) -> None:
        add_ruleset_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        rules = load_ruleset(options["ruleset"], options["assignments"])
        chart = chart_for(rules)
        if options["json"]:
            payload = {
                "ruleset": rules.name,
                "rules": rules.as_overrides(),
                "chart": chart.as_dict(),
            }
            self.stdout.write(json.dumps(payload, indent=2))
        else:
            # the chart's own first line names the preset only; the chart itself is the
            # rules engine's text (pure Python, English)
            _first, rest = chart.format().split("\n", 1)
            self.stdout.write(
                _("Basic strategy for %(ruleset)s") % {"ruleset": ruleset_title(rules)}
                + "\n"
                + rest
            )
