"""A command's language is its environment's locale's, as any Unix program's (the
messages themselves: tests/casino/test_command_messages.py)."""

from __future__ import annotations

import pytest

from audit.presenting.commands import environment_language


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "it_IT.UTF-8"}, "it"),
        ({"LANG": "cs_CZ.UTF-8"}, "cs"),
        ({"LANG": "cs_CZ"}, "cs"),
        ({"LANG": "de_DE.UTF-8"}, "en"),  # not a language of the back-office
        ({"LC_ALL": "C", "LANG": "it_IT.UTF-8"}, "en"),  # LC_ALL wins
        ({"LC_MESSAGES": "cs_CZ.UTF-8", "LANG": "it_IT.UTF-8"}, "cs"),
        ({"LANGUAGE": "de:cs", "LANG": "it_IT.UTF-8"}, "cs"),  # preferences, in order
        ({"LANGUAGE": "cs", "LANG": "C.UTF-8"}, "en"),  # ignored in the C locale
        ({"LANG": "it_IT@euro"}, "it"),
    ],
)
def test_the_language_of_the_environment(environ, language) -> None:
    assert environment_language(environ) == language
