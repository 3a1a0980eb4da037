#!/usr/bin/env python
"""Django's command-line utility for the blackjack back-office."""

import os
import sys


def environment(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    if argv[1:2] == ["demo"]:
        # the demo serves the admin with runserver on this machine: debug mode, for itself only
        os.environ.setdefault("DEBUG", "true")


def main() -> None:
    environment(sys.argv)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
