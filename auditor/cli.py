"""The console script ``blackjack-audit`` (installed with the project).

    blackjack-audit verify PACKAGE [--previous PACKAGE] [--key PUBLIC.pem ...] [--jobs N]
    blackjack-audit round PACKAGE TABLE DAY N

Exit codes: 0 everything agrees (``round``: printed); 1 a disagreement (each printed
with its file, line, stream, version, expected and found); 2 the package cannot be read
(or the table, day or round is not in it); 3 the auditor itself failed - a fault of the
auditor to report, never a finding about the package.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from audit.record.pipes import reader_gone

from .check import verify_package
from .layout import BadRequest, Unreadable
from .recall import round_recall

INTERNAL_ERROR = 3


def _positive(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return number


def _day(text: str) -> str:
    """A gaming day as the package names it, YYYY-MM-DD (and a real date)."""
    try:
        date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None
    if len(text) != 10:  # fromisoformat also reads 20261129
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)")
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="blackjack-audit",
        description=("Verify a regulator's package offline and re-run its audit; recall a round."),
        epilog="Exit codes: 0 all agree; 1 a disagreement; 2 the package cannot be read, or what "
        "was asked is not in it (a table, day or round) or a --key file cannot be used; "
        f"{INTERNAL_ERROR} the auditor itself failed (a fault to report, not a finding).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser(
        "verify", help="check hashes, signatures, proofs, chains; replay and recompute"
    )
    verify.add_argument("package", help="a package folder or .zip")
    verify.add_argument(
        "--previous", help="an earlier package: prove this one's record grew from it"
    )
    verify.add_argument(
        "--key", action="append", default=[], help="a trusted public key (PEM), repeatable"
    )
    verify.add_argument(
        "--edges",
        action="store_true",
        help="analyse each rule set's house edge and variance again "
        "with the engine (seconds per rule set) rather than take the manifest's",
    )
    verify.add_argument(
        "--jobs",
        type=_positive,
        help="processes that check the tables (default: one per processor)",
    )
    recall = commands.add_parser("round", help="print one round's recall")
    recall.add_argument("package")
    recall.add_argument("table")
    recall.add_argument("day", type=_day, help="gaming day, YYYY-MM-DD")
    recall.add_argument("number", type=int, help="the round's number")
    args = parser.parse_args(argv)
    try:
        if args.command == "round":
            lines: Sequence[str] = [round_recall(args.package, args.table, args.day, args.number)]
            code = 0
        else:
            outcome = verify_package(
                args.package,
                previous=args.previous,
                keys=args.key,
                edges=args.edges,
                processes=args.jobs,
            )
            lines, code = [*outcome.summary, *map(str, outcome.disagreements)], outcome.exit_code
    except BadRequest as error:  # the package is not at fault: what was asked of it is
        print(f"blackjack-audit: {error}", file=sys.stderr)
        return 2
    except Unreadable as error:
        print(f"blackjack-audit: cannot read the package: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - said in one line, with its own exit code
        # the manifest's shape was checked when it was read (auditor.layout): what fails
        # now is the auditor itself, which must not pass for a finding (1) or for the
        # package's fault (2)
        where = traceback.extract_tb(error.__traceback__)[-1]
        print(
            f"blackjack-audit: internal error while checking {args.package}: {type(error).__name__}: {error} "
            f"(at {Path(where.filename).name}:{where.lineno}); this is a fault of the auditor, not a finding "
            "about the package: please report it",
            file=sys.stderr,
        )
        return INTERNAL_ERROR
    try:
        for line in lines:
            print(line)
        sys.stdout.flush()  # here, where a reader gone is caught, not at the interpreter's exit
    except BrokenPipeError:
        return reader_gone()
    return code


if __name__ == "__main__":  # pragma: no cover - python -m auditor.cli
    sys.exit(main())
