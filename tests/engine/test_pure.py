"""The engine is pure Python: it imports nothing from Django."""
from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "tables" / "engine"


def test_engine_imports_without_django() -> None:
    """The whole engine imports in a fresh interpreter where Django cannot be imported."""
    code = (
        "import sys, pkgutil, importlib\n"
        "sys.modules['django'] = None\n"  # any 'import django...' now raises ImportError
        "import tables.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'tables.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "assert not any(n == 'django' or n.startswith('django.') for n in sys.modules if sys.modules[n] is not None)\n"
    )
    root = ENGINE.parents[1]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_no_module_names_django_in_its_imports() -> None:
    """No module of the engine has an import statement naming django or rest_framework."""
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in {"django", "rest_framework", "tables"} or name.startswith(
                    "tables.engine"
                ), f"{path.name} imports {name}"
