from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from audit.integrity import digests
from tables.simulator.config import SimConfig
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink

ROOT = Path(__file__).resolve().parents[2]
DAY = "2026-11-29"
NEXT_DAY = "2026-11-30"


@pytest.fixture
def record(db, settings) -> SimConfig:
    """Three simulated tables (the live game among them), two gaming days, in the store;
    nothing projected on append; a head signed over them."""
    settings.PROJECT_ON_APPEND = False
    config = SimConfig(tables=3, rounds=4, days=2, seed="package", seats=2, live_bets=6)
    simulate(config, StoreSink(config))
    digests.digest_sign()
    return config


def export(*args: str) -> tuple[int, str]:
    """``manage.py export_package ARGS``: (exit code, what it said)."""
    try:
        call_command("export_package", *args)
    except CommandError as error:
        return error.returncode, str(error)
    return 0, ""


def audit(*args: str, blocked: bool = False) -> tuple[int, str]:
    """``blackjack-audit ARGS`` in a fresh interpreter; with ``blocked`` Django and DRF
    cannot be imported there."""
    code = "import sys\n" + (
        "sys.modules['django'] = None\nsys.modules['rest_framework'] = None\n" if blocked else ""
    )
    code += "from auditor.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    done = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def exported(record, tmp_path) -> Callable[..., Path]:
    def make(name: str = "package", *args: str) -> Path:
        out = tmp_path / name
        code, said = export("--day", DAY, "--out", str(out), *args)
        assert code == 0, said
        return out

    return make
