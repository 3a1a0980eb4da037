"""A command whose reader went away: ``manage.py replay day.jsonl --bets | head`` closes
the pipe after ten lines, and the next write fails with ``BrokenPipeError``. That is not
the command's failure, so it ends as a program that the pipe's ``SIGPIPE`` ended does -
quietly, exit 141 (128 + 13), no traceback - the one way for the back-office's commands
and the offline auditor. Pure (the standard library only).
"""

from __future__ import annotations

import os
import sys

__all__ = ["READER_GONE", "reader_gone"]

READER_GONE = 141  # 128 + SIGPIPE, what the shell reports for a program that signal ended


def reader_gone() -> int:
    """Standard output pointed at nothing (so that the flush at exit cannot fail again);
    the exit status to end with."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind sys.stdout (a test's capture)
        pass
    return READER_GONE
