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

Memory does not grow with the file nor with a table's day: it is read once, each
stream's events spooled to disk as they are checked, then replayed and reported one
stream at a time, each stream's rounds kept on disk and reported one round at a time
(tables.replay_file); the report's text is tables.engine.report's."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from typing import IO, Any

import msgspec
from django.core.management.base import CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.presenting.commands import BackOfficeCommand
from audit.record.money import format_number
from tables.engine.offline import BrokenChain, UnusableInput
from tables.engine.presets import PRESETS
from tables.engine.report import (
    finding_lines,
    round_dict,
    round_house,
    round_lines,
    summary_lines,
    text_heading,
)
from tables.replay_file import FoldedStream, each_stream, spool_lines


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Verify the hash chains of a JSON Lines export of events, replay it through the rules engine "
        "and report: a summary per table by default, every bet with --bets, everything with --json."
    )
    exit_codes = {
        0: gettext_lazy("clean: no findings"),
        1: gettext_lazy("findings, or a broken chain (nothing replayed)"),
        2: gettext_lazy(
            "unusable input: the file cannot be read or a line is not an envelope (the line and "
            "the reason)"
        ),
    }

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "file", help=_("JSON Lines, one event envelope per line ('-' for stdin)")
        )
        parser.add_argument(
            "--bets",
            action="store_true",
            help=_("list every round and bet, recomputed against recorded"),
        )
        parser.add_argument("--json", action="store_true", help=_("print the whole report as JSON"))
        parser.add_argument(
            "--ruleset",
            choices=sorted(PRESETS),
            help=_("rule set for a file without table.opened"),
        )
        parser.add_argument(
            "--no-verify-chain",
            action="store_true",
            help=_("replay without checking the hash chains (lines need not carry them)"),
        )
        parser.add_argument(
            "--jobs",
            type=_positive,
            help=_("processes that replay the tables (default: one per processor)"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        rules = PRESETS[options["ruleset"]] if options["ruleset"] else None
        path = options["file"]
        verify_chain = not options["no_verify_chain"]
        if not verify_chain:
            self.stderr.write(
                _("%(path)s: the hash chains were not checked (--no-verify-chain)") % {"path": path}
            )
        try:
            if path == "-":
                spooled = spool_lines(sys.stdin.buffer, verify_chain=verify_chain)
            else:
                with open(path, "rb") as lines:  # binary: lines split at newlines only
                    spooled = spool_lines(lines, verify_chain=verify_chain)
        except OSError as error:
            self.stderr.write(f"{path}: {error.strerror or error}")
            sys.exit(2)
        except UnusableInput as error:
            # the reason is the rules engine's (pure Python: English)
            said = {"path": path, "line": error.line, "reason": error.reason}
            self.stderr.write(
                _(
                    "%(path)s: unusable input at line %(line)s: %(reason)s (a file without hash "
                    "chains replays only with --no-verify-chain)"
                )
                % said
                if error.not_chained
                else _("%(path)s: unusable input at line %(line)s: %(reason)s") % said
            )
            sys.exit(2)
        except BrokenChain as broken:
            # each problem, and what the chain's break is, in the record core's words (pure
            # Python: English)
            for problem in broken.problems:
                self.stderr.write(f"{path}: {problem}")
            self.stderr.write(
                _("%(path)s: %(broken)s: not replayed (--no-verify-chain replays it unchecked)")
                % {"path": path, "broken": broken}
            )
            sys.exit(1)
        with spooled:
            # one stream at a time (each folded in a worker when there are several): its
            # report rendered a round at a time into a file, copied out, let go
            render: Callable[[FoldedStream, IO[str]], _Rendered]
            if options["json"]:
                render = _json_stream
            elif options["bets"]:
                render = _text_stream
            else:
                render = partial(_summary_stream, spooled.currencies())
            streams = rounds = bets = findings = 0
            if options["json"]:
                self.stdout.write('{\n  "streams": [', ending="")
            for (head, *counts), report in each_stream(
                spooled, render, rules, processes=options["jobs"]
            ):
                if options["json"]:
                    head = ("\n" if not streams else ",\n") + head
                self.stdout.write(head, ending="")
                while chunk := report.read(1 << 16):
                    self.stdout.write(chunk, ending="")
                streams += 1
                findings, rounds, bets = findings + counts[0], rounds + counts[1], bets + counts[2]
            if options["json"]:
                self.stdout.write(
                    ("\n  ]" if streams else "]")
                    + (
                        f',\n  "rounds": {rounds},\n  "bets": {bets},\n  "findings": {findings},\n  '
                        f'"exit": {int(findings > 0)}\n}}\n'
                    ),
                    ending="",
                )
            else:
                self.stdout.write(
                    _("Clean: no findings.")
                    if not findings
                    else ngettext("%(count)s finding.", "%(count)s findings.", findings)
                    % {"count": format_number(findings)}
                )
        if findings:
            sys.exit(1)


def _positive(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(
            _("%(text)s is not a positive whole number") % {"text": text}
        )
    return number


# what goes before the stream's report file (its first line, where that counts what
# the file holds), then the stream's findings, rounds and bets
_Rendered = tuple[str, int, int, int]


def _summary_stream(currencies: dict[str, str], folded: FoldedStream, out: IO[str]) -> _Rendered:
    """The stream's part of :func:`~tables.engine.report.as_summary` (the command writes
    the total line for all the streams)."""
    bets = recorded = recomputed = 0
    for played in folded.each_round():
        bets += len(played.bets)
        round_recorded, round_recomputed = round_house(played)
        recorded += round_recorded
        recomputed += round_recomputed
    lines = summary_lines(
        folded.stream,
        folded.rules,
        folded.events,
        folded.rounds,
        bets,
        (recorded, recomputed),
        folded.findings,
        currencies.get(folded.stream),
    )
    out.write("\n".join(lines) + "\n")
    return "", len(folded.findings), folded.rounds, bets


def _text_stream(folded: FoldedStream, out: IO[str]) -> _Rendered:
    """The stream's part of :func:`~tables.engine.report.as_text` (``--bets``). Its first
    line counts the bets, known once the rounds are written: it is handed back, to go
    before them."""
    bets = 0
    for played in folded.each_round():
        bets += len(played.bets)
        out.writelines(line + "\n" for line in round_lines(played))
    out.writelines(line + "\n" for line in finding_lines(folded.findings))
    heading = text_heading(
        folded.stream, folded.rules, folded.events, folded.rounds, bets, len(folded.findings)
    )
    return heading + "\n", len(folded.findings), folded.rounds, bets


def _json_stream(folded: FoldedStream, out: IO[str]) -> _Rendered:
    """The stream's member of the report's ``streams`` (``as_dict``), as
    ``json.dumps(as_dict(results), indent=2, ensure_ascii=False)`` writes it, a round at a
    time by msgspec (the standard encoder indents in pure Python: seconds a day)."""
    out.write(
        _indented(
            {"stream": folded.stream, "rules": folded.rules, "events": folded.events}, 4
        ).rsplit("\n", 1)[0]
        + ',\n      "rounds": ['
    )
    bets = 0
    for number, played in enumerate(folded.each_round()):
        bets += len(played.bets)
        out.write(("\n" if not number else ",\n") + _indented(round_dict(played), 8))
    out.write(
        ("\n      ]" if folded.rounds else "]")
        + ',\n      "findings": '
        + _indented([f.as_dict() for f in folded.findings], 6).lstrip()
        + "\n    }"
    )
    return "", len(folded.findings), folded.rounds, bets


def _indented(value: Any, by: int) -> str:
    """``value`` as JSON indented by 2 a level, every line moved right by ``by``."""
    text = msgspec.json.format(msgspec.json.encode(value), indent=2).decode()
    # a JSON string holds no raw newline: every newline is the layout's
    return " " * by + text.replace("\n", "\n" + " " * by)
