"""Django's system checks, which the back-office's commands skip at their start
(``audit.commands``): the suite runs them instead, so a misconfigured model, admin or URL
still fails a run."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from audit.commands import BackOfficeCommand


def test_the_system_checks_pass_without_a_warning():
    call_command("check", fail_level="WARNING")


def test_a_back_office_command_skips_them_and_the_demo_does_not():
    from casino.management.commands.demo import Command as Demo

    assert BackOfficeCommand.requires_system_checks == []
    assert Demo.requires_system_checks == "__all__"


def test_the_check_run_can_fail(settings):
    # what the first test asks could fail: a setting the checks refuse fails it
    settings.STATICFILES_DIRS = "not a list"
    with pytest.raises(SystemCheckError):
        call_command("check", fail_level="WARNING")
