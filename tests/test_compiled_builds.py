"""Every package's compiled build (audit/record/builds.py, COMPILED: the engine's, and the
record core's, the ledger's and the auditor's, which a verification runs per event): made
by the install where a C compiler is present, run only while its sources are as built,
each package's whole or not at all. The engine's own tests: tests/engine/test_compiled_build.py."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit.record import builds

ROOT = Path(__file__).resolve().parents[1]
OTHERS = [package for package in builds.COMPILED if package != "tables.engine"]


def _current(package: str) -> bool:
    where = builds.folder(package)
    return bool(builds.extensions(where)) and not builds.stale(where, builds.COMPILED[package])


def _env(**extra: str) -> dict[str, str]:
    """A child's environment without this run's choice of build."""
    return {**{key: value for key, value in os.environ.items() if key != builds.ENV}, **extra}


def _imported(package: str, cwd: Path, env: dict[str, str]) -> tuple[list[bool], list[str], str]:
    """Import each of ``package``'s compiled modules in a child: whether each runs
    compiled, its file, and the child's stderr."""
    names = [f"{package}.{name}" for name in builds.COMPILED[package]]
    program = ("import sys; from audit.record import builds\n"
               f"for name in {names!r}:\n"
               "    print(builds.active(name), sys.modules[name].__file__)")
    done = subprocess.run([sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, check=False,
                          env=env)
    assert done.returncode == 0, done.stderr
    rows = [line.split(" ", 1) for line in done.stdout.splitlines()]
    return [active == "True" for active, _ in rows], [path for _, path in rows], done.stderr


@pytest.mark.parametrize("package", list(builds.COMPILED))
def test_each_package_runs_compiled_exactly_where_its_current_build_is_and_pure_is_not_asked(package: str) -> None:
    expected = _current(package) and os.environ.get(builds.ENV) != "pure"
    assert all(builds.active(f"{package}.{name}") == expected for name in builds.COMPILED[package])


@pytest.mark.parametrize("package", OTHERS)
def test_pure_asked_runs_every_module_of_the_build_from_its_source(package: str, tmp_path: Path) -> None:
    if not _current(package):
        pytest.skip(f"no current compiled build of {package} in this checkout (no C compiler at install)")
    active, paths, stderr = _imported(package, tmp_path, _env(PATH="/usr/bin:/bin"))
    assert all(active), paths  # a console script's way: the checkout not on the path
    active, paths, stderr = _imported(package, tmp_path, _env(**{builds.ENV: "pure"}))
    assert not any(active) and all(path.endswith(".py") for path in paths)
    assert "stale" not in stderr


@pytest.mark.parametrize("package", OTHERS)
def test_a_stale_build_is_never_run_its_sources_are(package: str, tmp_path: Path) -> None:
    """A copy of the package with its build, ahead of the checkout on the path: as built,
    it runs compiled; with one source edited after the build, every module of the build
    loads from its source (a build runs whole), and a warning names the edited one."""
    if not _current(package):
        pytest.skip(f"no current compiled build of {package} in this checkout (no C compiler at install)")
    parts = package.split(".")
    for depth in range(1, len(parts)):  # the enclosing packages' __init__ only
        (tmp_path.joinpath(*parts[:depth])).mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT.joinpath(*parts[:depth], "__init__.py"), tmp_path.joinpath(*parts[:depth], "__init__.py"))
    copy = tmp_path.joinpath(*parts)
    shutil.copytree(builds.folder(package), copy, ignore=shutil.ignore_patterns("__pycache__"))
    env = _env(PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    active, paths, stderr = _imported(package, tmp_path, env)
    assert all(active) and all(path.startswith(str(copy)) for path in paths), (paths, stderr)
    edited = builds.COMPILED[package][-1]
    with (copy / f"{edited}.py").open("a") as source:
        source.write("\n# edited after the build\n")
    active, paths, stderr = _imported(package, tmp_path, env)
    assert not any(active)
    assert paths == [str(copy / f"{name}.py") for name in builds.COMPILED[package]]
    assert f"{package} runs its pure-Python sources: its compiled build is stale ({edited} changed" in stderr


def test_a_build_lacking_a_module_its_record_names_is_stale(tmp_path: Path) -> None:
    suffix = builds.SUFFIXES[-1]
    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text(f"# {name}\n")
        (tmp_path / f"{name}{suffix}").write_bytes(b"")
    (tmp_path / f"native{builds.SHARED}{suffix}").write_bytes(b"")  # the shared library: no module
    builds.stamp(tmp_path, ["a", "b"])
    assert sorted(builds.extensions(tmp_path)) == ["a", "b"]
    assert builds.stale(tmp_path) == []
    assert builds.stale(tmp_path, ["a", "b", "c"]) == ["c"]  # one the package's list names, not built
    (tmp_path / f"b{suffix}").unlink()
    assert builds.stale(tmp_path) == ["b"]  # its record names it
    (tmp_path / "a.py").write_text("# a, edited\n")
    assert builds.stale(tmp_path) == ["a", "b"]


def test_a_package_mypyc_cannot_build_stays_pure_alone(tmp_path: Path) -> None:
    """setup.py's build of a copy of the checkout in which the auditor's reports have a
    type error: mypyc refuses that package's build, says so, and goes on with the others
    (the compiler, CC=false, then fails them, so nothing is built; what is asserted is
    that they reached it). A build requirement missing from pyproject.toml's build
    system (mypy cannot follow an import) ended every package's build so."""
    copy = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "compiled.json")
    for top in ("audit", "auditor", "ledger", "tables"):
        shutil.copytree(ROOT / top, copy / top, ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, copy / name)
    with (copy / "auditor" / "reports.py").open("a") as source:
        source.write('\n_BROKEN: int = "not an int"\n')
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-temp", str(tmp_path / "o"),
                           "--build-lib", str(tmp_path / "lib")], cwd=copy, capture_output=True, text=True,
                          check=False, env=_env(CC="false", LDSHARED="false"))
    assert done.returncode == 0, done.stderr
    assert "auditor stays pure Python: its compiled build failed" in done.stderr
    assert not any(f"{package} stays pure Python" in done.stderr for package in builds.COMPILED if package != "auditor")
    assert "every package stays pure Python: the compiled build failed" in done.stderr  # the others reached the compiler
    assert not list((tmp_path / "lib").rglob("*.so"))


def test_a_wheel_builds_where_a_compiler_is(tmp_path: Path) -> None:
    """``pip install .`` (not editable: a regulator's install of the auditor, docs/regulator.md)
    builds a wheel, in pip's own build environment. With a compiler present it stopped:
    mypyc's C files were named by an absolute path, which a wheel's build refuses. Here the
    compiler is reached and fails (CC=false), and the wheel is made, pure Python."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", str(ROOT), "-w",
                           str(tmp_path / "dist")], cwd=tmp_path, capture_output=True, text=True, check=False,
                          env=_env(CC="false", LDSHARED="false"))
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "every package stays pure Python: the compiled build failed" in done.stdout + done.stderr
    assert len(list((tmp_path / "dist").glob("*.whl"))) == 1
