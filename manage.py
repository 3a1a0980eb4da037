#!/usr/bin/env python
"""Django's command-line utility for the blackjack back-office."""

import os
import sys

# a settings error's exit code: bad input, nothing done (the commands' convention)
SETTINGS_ERROR = 2


def environment(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    if argv[1:2] == ["demo"]:
        # the demo serves the admin with runserver on this machine: debug mode, for itself only
        os.environ.setdefault("DEBUG", "true")


def main() -> None:
    environment(sys.argv)
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as error:
        # a setting read from the environment (casino/env.py) that cannot be used: its one
        # line names the variable and what to set - a traceback through the settings module
        # adds nothing to it (--traceback shows it still)
        if "--traceback" in sys.argv:
            raise
        sys.stderr.write(f"settings: {error}\n")
        sys.exit(SETTINGS_ERROR)


if __name__ == "__main__":
    main()
