"""The generation is pure Python: importing and running it loads no Django (only the
store output, tables.simulator.store, does)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import io, sys
from tables.simulator import chips, config, day, faults, output, planting, players, run
cfg = config.SimConfig(tables=2, rounds=3, seed="pure", live_bets=5)
run.simulate(cfg, run.FileSink(io.BytesIO(), cfg))
loaded = sorted(name for name in sys.modules if name == "django" or name.startswith("django."))
print(loaded)
"""


def test_the_simulator_runs_without_django() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
