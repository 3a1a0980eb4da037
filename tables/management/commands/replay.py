"""``manage.py replay FILE.jsonl [--json] [--ruleset NAME] [--no-verify-chain]``: replay
an exported event file offline through the rules engine and report.

The file's hash chains are verified first (the record core's verifier, as ``verify
--file`` runs it): a broken chain is refused with one line per problem, exit 1, and
nothing is replayed - the findings of a record that may have been altered would mislead.
``--no-verify-chain`` skips that (and says so on stderr), and also reads lines that carry
no chain at all (hand-written files: no version, recorded_at, prev_hash or hash).

Exit 0 clean, 1 findings or a broken chain, 2 unusable input (the line and the reason).
The work is tables.engine.jsonl and .report."""
from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tables.engine.jsonl import BrokenChain, UnusableInput, replay_lines
from tables.engine.presets import PRESETS
from tables.engine.report import as_dict, as_text, exit_code


class Command(BaseCommand):
    help = "Verify the hash chains of a JSON Lines export of events, replay it through the rules engine and report findings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="JSON Lines, one event envelope per line ('-' for stdin)")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument("--ruleset", choices=sorted(PRESETS), help="rule set for a file without table.opened")
        parser.add_argument("--no-verify-chain", action="store_true",
                            help="replay without checking the hash chains (lines need not carry them)")

    def handle(self, *args: Any, **options: Any) -> None:
        rules = PRESETS[options["ruleset"]] if options["ruleset"] else None
        path = options["file"]
        verify_chain = not options["no_verify_chain"]
        if not verify_chain:
            self.stderr.write(f"{path}: the hash chains were not checked (--no-verify-chain)")
        try:
            if path == "-":
                results = replay_lines(sys.stdin.buffer, rules, verify_chain=verify_chain)
            else:
                with open(path, "rb") as lines:  # binary: lines split at newlines only
                    results = replay_lines(lines, rules, verify_chain=verify_chain)
        except OSError as error:
            self.stderr.write(f"{path}: {error.strerror or error}")
            sys.exit(2)
        except UnusableInput as error:
            hint = " (a file without hash chains replays only with --no-verify-chain)" if error.not_chained else ""
            self.stderr.write(f"{path}: unusable input at line {error.line}: {error.reason}{hint}")
            sys.exit(2)
        except BrokenChain as broken:
            for problem in broken.problems:
                self.stderr.write(f"{path}: {problem}")
            self.stderr.write(f"{path}: {broken}: not replayed (--no-verify-chain replays it unchecked)")
            sys.exit(1)
        if options["json"]:
            self.stdout.write(json.dumps(as_dict(results), indent=2, ensure_ascii=False))
        else:
            self.stdout.write(as_text(results))
        code = exit_code(results)
        if code:
            sys.exit(code)

