"""The compiled builds by hand - the engine's, and the record core's, the ledger's and the
auditor's beside it (what an install does by itself: :mod:`audit.record.builds`).

    .venv/bin/python -m tables.engine.compiled build    # compile in place (after an edit)
    .venv/bin/python -m tables.engine.compiled check    # exit 1 if a build is stale
    .venv/bin/python -m tables.engine.compiled clean    # back to pure Python
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from audit.record import builds

from .builds import ENV, ROOT, SHARED, STAMP, SUFFIXES


def compiler() -> str | None:
    """The C compiler a build would use, if there is one."""
    name = str(sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(name) or shutil.which("cc")


def build() -> int:
    """Compile in place, by the project's own build (``setup.py``, what an install runs),
    told that mypyc must not fail (``BLACKJACK_ENGINE=compiled``): exit 0 compiled, or
    without a compiler (it says so), 1 where mypyc failed (and nothing is left built)."""
    clean()
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([sys.executable, str(ROOT / "setup.py"), "-q", "build_ext", "--inplace",
                               "--build-temp", str(Path(folder) / "o"), "--build-lib", str(Path(folder) / "lib")],
                              check=False, cwd=ROOT, env={**os.environ, ENV: "compiled"})
    if done.returncode != 0:
        clean()
        return 1
    return 0


def clean() -> int:
    for package in builds.COMPILED:
        where = builds.folder(package)
        for path in builds.extensions(where).values():
            path.unlink()
        # the build's shared library (its group's)
        for path in where.glob(f"*{SHARED}.*"):
            if path.name.endswith(SUFFIXES):
                path.unlink()
        (where / STAMP).unlink(missing_ok=True)
    # one an earlier build left at the checkout's top level, where mypyc's own command puts it
    for path in ROOT.glob(f"*{SHARED}.*"):
        if path.name.endswith(SUFFIXES):
            path.unlink()
    return 0


def check() -> int:
    stale = False
    for package, modules in builds.COMPILED.items():
        where = builds.folder(package)
        for name in builds.stale(where, modules):
            stale = True
            print(f"{where / name}: compiled module is stale (its source changed since the build); rebuild or clean",
                  file=sys.stderr)
    return 1 if stale else 0


def main(argv: list[str]) -> int:
    commands = {"build": build, "clean": clean, "check": check}
    if len(argv) != 1 or argv[0] not in commands:
        print(f"usage: python -m {__package__}.compiled build|check|clean", file=sys.stderr)
        return 2
    return commands[argv[0]]()


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main(sys.argv[1:]))
