"""Running a management command in-process as the shell would see it."""

from __future__ import annotations

import io

from django.core.management import CommandError, call_command


def run_command(name: str, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``manage.py name args``; a CommandError's message
    goes to stderr, as Django's runner prints it."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(name, *args, stdout=out, stderr=err)
        code = 0
    except CommandError as error:
        code = error.returncode
        err.write(str(error))
    except SystemExit as exit:
        code = int(exit.code or 0)
    return code, out.getvalue(), err.getvalue()
