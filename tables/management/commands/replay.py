"""``manage.py replay FILE.jsonl [--json] [--ruleset NAME]``: replay an exported event
file offline through the rules engine and report. Exit 0 clean, 1 findings, 2 unusable
input (the line and the reason). The work is tables.engine.jsonl and .report."""
from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tables.engine.jsonl import UnusableInput, replay_lines
from tables.engine.presets import PRESETS
from tables.engine.report import as_dict, as_text, exit_code


class Command(BaseCommand):
    help = "Replay a JSON Lines export of events through the rules engine and report findings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="JSON Lines, one event envelope per line ('-' for stdin)")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument("--ruleset", choices=sorted(PRESETS), help="rule set for a file without table.opened")

    def handle(self, *args: Any, **options: Any) -> None:
        rules = PRESETS[options["ruleset"]] if options["ruleset"] else None
        try:
            if options["file"] == "-":
                results = replay_lines(sys.stdin, rules)
            else:
                with open(options["file"], encoding="utf-8") as lines:
                    results = replay_lines(lines, rules)
        except OSError as error:
            self.stderr.write(f"{options['file']}: {error.strerror}")
            sys.exit(2)
        except UnusableInput as error:
            self.stderr.write(f"{options['file']}: unusable input at line {error.line}: {error.reason}")
            sys.exit(2)
        if options["json"]:
            self.stdout.write(json.dumps(as_dict(results), indent=2, ensure_ascii=False))
        else:
            self.stdout.write(as_text(results))
        code = exit_code(results)
        if code:
            sys.exit(code)
