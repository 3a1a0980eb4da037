"""The optional compiled build of the replay's hot modules (mypyc).

Pure Python is the default and always works. Where a C compiler and mypyc are present,

    .venv/bin/python -m tables.engine.compiled build    # compile in place
    .venv/bin/python -m tables.engine.compiled check    # exit 1 if a build is stale
    .venv/bin/python -m tables.engine.compiled clean    # back to pure Python

compiles :data:`MODULES` (``mypy --strict`` clean, so they compile unchanged) into
extension modules next to their sources, which Python then imports in their place
(about 1.4x the replay's rounds/s: docs/engine.md, Benchmark). Without a compiler,
``build`` says so and leaves the package as it is.

An extension module shadows its source, so a build left behind after the source
changed would run old code: ``build`` records each source's SHA-256 (``STAMP``), and
``check`` - asked by a test on every run of the suite - names every compiled module
whose source no longer matches (or that has no record).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

# the modules the replay spends its time in (and those they call per event)
MODULES = ("table_round", "replay", "cards", "money", "shoes", "findings")
PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent.parent  # the checkout: mypyc is run from here
STAMP = "compiled.json"
# mypyc's shared library of the build, inside the package (tables/engine/native__mypyc.*.so):
# the compiled modules import it by this name, so it must be importable wherever the
# engine is - not only from the checkout's top level, where mypyc's own command puts it
# (a console script such as blackjack-audit or celery has no checkout on its path). mypyc
# names a compiled module's __file__ from its shared library's folder as if that were the
# checkout's top level (tables/engine/tables/engine/cards...so for a module the build's
# code imported first): read a source through the package's folder, not a module's __file__
GROUP = f"{__package__}.native"
_SHARED = "__mypyc"
# longest first: ".cpython-311-x86_64-linux-gnu.so" before ".so"
_SUFFIXES = tuple(sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extensions(package: Path = PACKAGE) -> dict[str, Path]:
    """The compiled modules present in ``package``, by module name."""
    found: dict[str, Path] = {}
    for path in package.iterdir():
        for suffix in _SUFFIXES:
            if path.name.endswith(suffix):
                name = path.name[: -len(suffix)]
                if not name.endswith(_SHARED):  # the build's shared library: no module of its own
                    found[name] = path
                break
    return found


def stale(package: Path = PACKAGE) -> list[str]:
    """The compiled modules in ``package`` whose source changed since the build (or
    that no build recorded): each would shadow its source with old code."""
    stamp = package / STAMP
    recorded: dict[str, str] = json.loads(stamp.read_text()) if stamp.exists() else {}
    out = []
    for name in sorted(extensions(package)):
        source = package / f"{name}.py"
        if not source.exists() or recorded.get(name) != _digest(source):
            out.append(name)
    return out


def active() -> bool:
    """Does the replay run compiled code (is its module the extension)?"""
    module = importlib.import_module(f"{__package__}.replay")
    return str(getattr(module, "__file__", "")).endswith(_SUFFIXES)


def _compiler() -> str | None:
    name = str(sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(name) or shutil.which("cc")


_SETUP = """from setuptools import setup
from mypyc.build import mypycify

setup(name="blackjack-engine-compiled",
      ext_modules=mypycify({paths!r}, opt_level="3", group_name={group!r}, target_dir={target!r}))
"""


def build() -> int:
    if _compiler() is None:
        print("no C compiler found: the engine stays pure Python")
        return 0
    try:
        import mypyc  # noqa: F401
    except ImportError:
        print("mypyc is not installed (it comes with mypy, the dev extra): the engine stays pure Python")
        return 0
    clean()
    paths = [str((PACKAGE / f"{name}.py").relative_to(ROOT)) for name in MODULES]
    with tempfile.TemporaryDirectory() as folder:
        setup = Path(folder) / "setup.py"
        setup.write_text(_SETUP.format(paths=paths, group=GROUP, target=str(Path(folder) / "c")))
        done = subprocess.run([sys.executable, str(setup), "build_ext", "--inplace", "--build-temp", str(Path(folder) / "o"),
                               "--build-lib", str(Path(folder) / "lib")], check=False, cwd=ROOT, stdout=subprocess.DEVNULL)
    if done.returncode != 0:
        print("mypyc failed: the engine stays pure Python", file=sys.stderr)
        clean()
        return 1
    (PACKAGE / STAMP).write_text(json.dumps({name: _digest(PACKAGE / f"{name}.py") for name in MODULES}, indent=1) + "\n")
    print(f"compiled: {', '.join(MODULES)}")
    return 0


def clean() -> int:
    for path in extensions().values():
        path.unlink()
    # the build's shared library (GROUP's), and one an earlier build left at the
    # checkout's top level, where mypyc's own command puts it
    for path in [*PACKAGE.glob(f"*{_SHARED}.*"), *ROOT.glob(f"*{_SHARED}.*")]:
        if path.name.endswith(_SUFFIXES):
            path.unlink()
    (PACKAGE / STAMP).unlink(missing_ok=True)
    return 0


def check() -> int:
    names = stale()
    for name in names:
        print(f"{PACKAGE / name}: compiled module is stale (its source changed since the build); rebuild or clean", file=sys.stderr)
    return 1 if names else 0


def main(argv: list[str]) -> int:
    commands = {"build": build, "clean": clean, "check": check}
    if len(argv) != 1 or argv[0] not in commands:
        print(f"usage: python -m {__package__}.compiled build|check|clean", file=sys.stderr)
        return 2
    return commands[argv[0]]()


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main(sys.argv[1:]))
