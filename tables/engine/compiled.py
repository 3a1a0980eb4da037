"""The rules engine's compiled build by hand: the replay's hot modules compiled with mypyc
(docs/engine.md, The compiled build).

    .venv/bin/python -m tables.engine.compiled build   # compile (mypyc: pip install -e '.[compiled]')
    .venv/bin/python -m tables.engine.compiled check   # exit 0 only where a current build is present
    .venv/bin/python -m tables.engine.compiled clean   # back to pure Python

The modules compiled are listed once, in the project's ``pyproject.toml``
(``[tool.blackjack] compiled``). The sources are the reference and run by default:
``build`` writes the extension modules into a folder of their own (:data:`BUILD`) with a
record of the SHA-256 of each source they were made from (``stamp.json``); the package's
``__init__`` puts that folder on the package's path only while the build is current (its
guard, :func:`stale`). Standard library only when imported; ``build`` imports setuptools
and mypyc.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import tomllib
from pathlib import Path

from . import _BUILD as BUILD
from . import _SHARED as SHARED
from . import _SOURCES as PACKAGE
from . import _extensions as extensions
from . import _stale as stale

ROOT = PACKAGE.parents[1]  # the checkout: its pyproject.toml lists the modules
# mypyc's group: its shared library is SHARED, in the package
GROUP = f"{__package__}.{SHARED.removesuffix('__mypyc')}"
SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)

__all__ = [
    "BUILD",
    "PACKAGE",
    "SHARED",
    "active",
    "build",
    "check",
    "clean",
    "described",
    "extensions",
    "listed",
    "stale",
]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def active() -> bool:
    """Does the replay run compiled code (is its module the extension)?"""
    return str(getattr(importlib.import_module(f"{__package__}.replay"), "__file__", "")).endswith(
        SUFFIXES
    )


def described() -> str:
    """Which build runs, for a benchmark's figures."""
    return "compiled (mypyc)" if active() else "pure Python"


def listed(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The engine's modules to compile, as ``pyproject.toml`` lists them (their short names).
    ValueError naming the file where the list is missing or names another package's."""
    if not pyproject.exists():
        raise ValueError(
            f"{pyproject}: not found (the compiled build is made in the project's checkout)"
        )
    names = (
        tomllib.loads(pyproject.read_text()).get("tool", {}).get("blackjack", {}).get("compiled")
    )
    prefix = f"{__package__}."
    if not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names):
        raise ValueError(f"{pyproject}: [tool.blackjack] compiled must be a list of module names")
    for name in names:
        if (
            not name.startswith(prefix)
            or "." in name[len(prefix) :]
            or not (PACKAGE / f"{name[len(prefix) :]}.py").exists()
        ):
            raise ValueError(
                f"{pyproject}: [tool.blackjack] compiled: {name} is not a module of {__package__}"
            )
    return [name[len(prefix) :] for name in names]


def compiler() -> str | None:
    """The C compiler a build would use, if there is one."""
    name = str(sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(name) or shutil.which("cc")


def build() -> int:
    """Compile the listed modules and put the build in place of any before it: exit 0.
    Exit 1, the state before left as it was, where there is no compiler, no mypyc, or
    mypyc or the compiler fails (each says why); 2 where the list is wrong."""
    try:
        modules = listed()
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    if compiler() is None:
        print("no C compiler found: the engine stays pure Python", file=sys.stderr)
        return 1
    try:
        import setuptools  # first: mypyc builds with setuptools where it is imported
        from mypyc.build import mypycify
        from setuptools.errors import BaseError, CCompilerError
    except ImportError as error:
        print(
            f"the compiled build needs mypyc and setuptools: pip install -e '.[compiled]' ({error})",
            file=sys.stderr,
        )
        return 1
    recorded = {
        name: _digest(PACKAGE / f"{name}.py") for name in modules
    }  # before mypyc reads them
    with tempfile.TemporaryDirectory(prefix="mypyc-") as folder:
        work = Path(folder)
        cwd = os.getcwd()
        os.chdir(ROOT)  # mypy finds the modules the engine imports from here
        try:
            made = mypycify(
                [f"{PACKAGE.relative_to(ROOT)}/{name}.py" for name in modules],
                opt_level="3",
                group_name=GROUP,
                target_dir=str(work / "c"),
            )
            command = setuptools.Distribution({"ext_modules": made}).get_command_obj("build_ext")
            command.build_lib, command.build_temp = str(work / "lib"), str(work / "o")
            command.parallel = os.cpu_count() or 1  # mypyc writes a C file a module
            command.ensure_finalized()
            command.run()
        except SystemExit as error:  # mypyc exits on a type error, mypy's messages above it
            print(
                f"the compiled build failed: mypyc refused the engine ({error}): it stays as it was",
                file=sys.stderr,
            )
            return 1
        except (BaseError, CCompilerError) as error:
            print(
                f"the compiled build failed: the compiler failed ({error}): it stays as it was",
                file=sys.stderr,
            )
            return 1
        finally:
            os.chdir(cwd)
        staged = work / "build"
        shutil.copytree(work / "lib" / PACKAGE.relative_to(ROOT), staged)
        (staged / "stamp.json").write_text(json.dumps(recorded, indent=1) + "\n")
        clean()
        shutil.move(staged, BUILD)
    print(f"compiled: {', '.join(f'{__package__}.{name}' for name in modules)} into {BUILD}")
    return 0


def clean() -> int:
    """Remove the build, and any extension module beside the sources (it would shadow its
    source unguarded)."""
    shutil.rmtree(BUILD, ignore_errors=True)
    for path in extensions(PACKAGE).values():
        path.unlink()
    return 0


def check() -> int:
    """Say which build the engine would run; exit 0 only where a current build is present."""
    if not BUILD.is_dir():
        print("no compiled build: the engine runs its pure-Python sources")
        return 1
    changed = stale()
    if changed:
        print(
            f"{BUILD}: the compiled build is stale ({', '.join(changed)} changed or missing since it was built): "
            "the engine runs its pure-Python sources; build again, or clean",
            file=sys.stderr,
        )
        return 1
    print(
        f"current: {', '.join(f'{__package__}.{name}' for name in sorted(extensions(BUILD)) if name != SHARED)}"
    )
    return 0


def main(argv: list[str]) -> int:
    commands = {"build": build, "clean": clean, "check": check}
    if len(argv) != 1 or argv[0] not in commands:
        print(f"usage: python -m {__package__}.compiled build|check|clean", file=sys.stderr)
        return 2
    return commands[argv[0]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
