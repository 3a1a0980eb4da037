"""Django's system checks, which the back-office's commands skip at their start
(``audit.presenting.commands``): the suite runs them instead, so a misconfigured model, admin or URL
still fails a run."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import BaseCommand, SystemCheckError

from casino.management.commands.demo import Command as Demo
from tables.management.commands.strategy import Command as Strategy


def test_the_system_checks_pass_without_a_warning():
    call_command("check", fail_level="WARNING")


def test_the_check_run_can_fail(settings):
    # what the first test asks could fail: a setting the checks refuse fails it
    settings.STATICFILES_DIRS = "not a list"
    with pytest.raises(SystemCheckError):
        call_command("check", fail_level="WARNING")


@pytest.fixture
def checks_run(monkeypatch):
    """The commands that asked for the system checks (call_command skips them unless told)."""
    ran: list[type] = []
    monkeypatch.setattr(BaseCommand, "check", lambda self, *args, **kwargs: ran.append(type(self)))
    return ran


def test_a_back_office_command_starts_without_them(checks_run, capsys):
    call_command(Strategy(), "--ruleset", "hoyle", skip_checks=False)
    assert capsys.readouterr().out  # it ran
    assert checks_run == []
    # the option every Django command takes is still taken (and changes nothing)
    call_command(Strategy(), "--ruleset", "hoyle", "--skip-checks")
    assert checks_run == []


def test_the_demo_still_runs_them(checks_run, monkeypatch):
    monkeypatch.setattr(Demo, "handle", lambda self, *args, **options: None)
    call_command(Demo(), skip_checks=False)
    assert checks_run == [Demo]
