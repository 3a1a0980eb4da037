"""``manage.py replay FILE.jsonl [--bets] [--json] [--ruleset NAME] [--no-verify-chain]``:
replay an exported event file offline through the rules engine and report.

The file's hash chains are verified first (the record core's verifier, as ``verify
--file`` runs it): a broken chain is refused with one line per problem, exit 1, and
nothing is replayed - the findings of a record that may have been altered would mislead.
``--no-verify-chain`` skips that (and says so on stderr), and also reads lines that carry
no chain at all (hand-written files: no version, recorded_at, prev_hash or hash).

The report is a summary per stream (rounds, bets, the house result recorded and
recomputed, findings by kind and each finding); ``--bets`` adds every round and bet,
recomputed against recorded; ``--json`` gives everything to a machine.
The work is tables.engine.jsonl and .report."""
from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import CommandParser

from audit.commands import BackOfficeCommand
from tables.engine.jsonl import BrokenChain, UnusableInput, read_events, replay_events
from tables.engine.presets import PRESETS
from tables.engine.report import as_dict, as_summary, as_text, exit_code


def _currencies(events: list[dict[str, Any]]) -> dict[str, str]:
    """Each stream's currency, from its (last) table.opened."""
    return {str(e["stream"]): e["payload"]["currency"] for e in events
            if e["type"] == "table.opened" and isinstance(e.get("payload"), dict) and "currency" in e["payload"]}


class Command(BackOfficeCommand):
    help = ("Verify the hash chains of a JSON Lines export of events, replay it through the rules engine "
            "and report: a summary per table by default, every bet with --bets, everything with --json.")
    exit_codes = {0: "clean: no findings", 1: "findings, or a broken chain (nothing replayed)",
                  2: "unusable input: the file cannot be read or a line is not an envelope (the line and the reason)"}

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="JSON Lines, one event envelope per line ('-' for stdin)")
        parser.add_argument("--bets", action="store_true", help="list every round and bet, recomputed against recorded")
        parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
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
                events = read_events(sys.stdin.buffer, verify_chain=verify_chain)
            else:
                with open(path, "rb") as lines:  # binary: lines split at newlines only
                    events = read_events(lines, verify_chain=verify_chain)
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
        results = replay_events(events, rules)
        if options["json"]:
            self.stdout.write(json.dumps(as_dict(results), indent=2, ensure_ascii=False))
        elif options["bets"]:
            self.stdout.write(as_text(results))
        else:
            self.stdout.write(as_summary(results, _currencies(events)))
        code = exit_code(results)
        if code:
            sys.exit(code)
