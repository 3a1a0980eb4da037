"""The compiled build (tables/engine/builds.py, compiled.py, the project's setup.py): made
by the install where a C compiler is present, run only while its sources are as built."""
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tables.engine import builds

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
ROOT = Path(__file__).resolve().parents[2]
built = pytest.mark.skipif(not builds.extensions() or bool(builds.stale()),
                           reason="no current compiled build in this checkout (no C compiler at install, or a source edited since)")


def _env(**extra: str) -> dict[str, str]:
    """A child's environment without this run's choice of build."""
    env = {key: value for key, value in os.environ.items() if key != builds.ENV}
    return {**env, **extra}


def _engine(cwd: Path, env: dict[str, str]) -> tuple[bool, str, str]:
    """Import the engine in a child: whether it runs compiled, its replay's file, stderr."""
    program = ("from tables.engine import builds, cards, replay; "
               "assert cards.VALUE['TS'] == 10; print(builds.active(), replay.__file__)")
    done = subprocess.run([sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    active, path = done.stdout.split()
    return active == "True", path, done.stderr


def test_a_changed_source_makes_its_compiled_module_stale(tmp_path: Path) -> None:
    for name in builds.MODULES:
        (tmp_path / f"{name}.py").write_text(f"# {name}\n")
        (tmp_path / f"{name}{SUFFIX}").write_bytes(b"")
    builds.stamp(tmp_path, tmp_path)
    assert builds.stale(tmp_path) == []
    (tmp_path / "cards.py").write_text("# cards, edited after the build\n")
    assert builds.stale(tmp_path) == ["cards"]
    (tmp_path / f"replay{SUFFIX}").unlink()  # a build without one of its modules is not whole
    assert builds.stale(tmp_path) == ["cards", "replay"]
    (tmp_path / builds.STAMP).unlink()  # a build nobody recorded
    assert builds.stale(tmp_path) == sorted(builds.MODULES)
    recorded = {name: "0" * 64 for name in builds.MODULES}
    (tmp_path / builds.STAMP).write_text(json.dumps(recorded))
    assert builds.stale(tmp_path) == sorted(builds.MODULES)


def test_no_build_is_never_stale(tmp_path: Path) -> None:
    (tmp_path / "cards.py").write_text("# cards\n")
    assert builds.stale(tmp_path) == []


def test_the_engine_runs_compiled_exactly_where_a_current_build_is_and_pure_is_not_asked() -> None:
    expected = bool(builds.extensions()) and not builds.stale() and os.environ.get(builds.ENV) != "pure"
    assert builds.active() == expected


def test_the_engine_imports_where_the_checkout_is_not_on_the_path(tmp_path: Path) -> None:
    """As a console script (blackjack-audit, celery) runs it: the working directory and
    the script's folder elsewhere. A build's compiled modules import its shared library
    by name, so it must lie in the package, not at the checkout's top level (where
    mypyc's own command puts it: every such script failed to import the engine)."""
    active, path, _ = _engine(tmp_path, _env(PATH="/usr/bin:/bin"))
    assert active == (bool(builds.extensions()) and not builds.stale())
    assert path.endswith(SUFFIX) == active


@built
def test_pure_asked_runs_the_sources_without_a_word(tmp_path: Path) -> None:
    active, path, stderr = _engine(tmp_path, _env(**{builds.ENV: "pure"}))
    assert not active and path.endswith("replay.py")
    assert "stale" not in stderr


@built
def test_a_stale_build_is_never_run_its_sources_are(tmp_path: Path) -> None:
    """A copy of the package with its build: as built, it runs compiled; with one source
    edited after the build, every module loads from its source, and a warning says why."""
    copy = tmp_path / "tables"
    (copy / "engine").mkdir(parents=True)
    shutil.copy(ROOT / "tables" / "__init__.py", copy / "__init__.py")
    shutil.copytree(ROOT / "tables" / "engine", copy / "engine", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = _env(PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    active, path, stderr = _engine(tmp_path, env)
    assert active and path.startswith(str(copy)), (path, stderr)
    with (copy / "engine" / "shoes.py").open("a") as source:
        source.write("\n# edited after the build\n")
    active, path, stderr = _engine(tmp_path, env)
    assert not active and path == str(copy / "engine" / "replay.py")
    assert "compiled build is stale (shoes changed since it was built)" in stderr


def test_the_build_without_a_working_compiler_leaves_pure_python(tmp_path: Path) -> None:
    """setup.py's build where the compiler fails (CC=false): the install goes on, pure
    Python, saying why; nothing is built, and the checkout is not touched."""
    before = sorted(p.name for p in (ROOT / "tables" / "engine").iterdir())
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-temp", str(tmp_path / "o"),
                           "--build-lib", str(tmp_path / "lib")], cwd=ROOT, capture_output=True, text=True,
                          check=False, env=_env(CC="false", LDSHARED="false"))
    assert done.returncode == 0, done.stderr
    assert "every package stays pure Python: the compiled build failed" in done.stderr
    assert not list((tmp_path / "lib").rglob(f"*{SUFFIX}"))
    assert sorted(p.name for p in (ROOT / "tables" / "engine").iterdir()) == before


def test_the_build_without_a_compiler_says_so(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-temp", str(tmp_path / "o"),
                           "--build-lib", str(tmp_path / "lib")], cwd=ROOT, capture_output=True, text=True,
                          check=False, env=_env(PATH=str(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert "no C compiler found: every package stays pure Python" in done.stdout
    assert not list((tmp_path / "lib").rglob(f"*{SUFFIX}"))
