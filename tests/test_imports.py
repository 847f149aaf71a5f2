"""The rules engine is standard library only: importing it loads neither numpy nor OpenCV, and
no module in ``referee/rules`` imports anything but the standard library and ``referee.rules``."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "referee" / "rules"
RULE_MODULES = sorted(p for p in RULES.glob("*.py"))
NAMED = ["referee.rules", "referee.rules.bots", "referee.rules.record", "referee.rules.check",
         "referee.rules.simulate"]

PROBE = """
import json, sys
before = set(sys.modules)
import importlib
for name in sys.argv[1:]:
    importlib.import_module(name)
new = sorted(set(sys.modules) - before)
print(json.dumps({"new": new, "numpy": "numpy" in sys.modules, "cv2": "cv2" in sys.modules}))
"""


def probe(*modules: str) -> dict[str, object]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-c", PROBE, *modules], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_rule_modules_are_found() -> None:
    names = {p.stem for p in RULE_MODULES}
    assert {"__init__", "tiles", "variants", "table", "hand", "scoring", "match", "record", "check", "bots",
            "simulate"} <= names


@pytest.mark.parametrize("module", NAMED)
def test_importing_loads_neither_numpy_nor_cv2(module: str) -> None:
    data = probe(module)
    assert data["numpy"] is False
    assert data["cv2"] is False
    new = data["new"]
    assert isinstance(new, list) and module in new


def test_importing_every_rules_module_loads_only_the_standard_library() -> None:
    modules = [f"referee.rules.{p.stem}" for p in RULE_MODULES if p.stem != "__init__"]
    data = probe(*NAMED, *modules)
    assert data["numpy"] is False and data["cv2"] is False
    new = data["new"]
    assert isinstance(new, list)
    assert set(modules) <= set(new)
    foreign = [m for m in new if m.split(".")[0] not in sys.stdlib_module_names and m != "referee"
               and not m.startswith("referee.rules")]
    assert foreign == []
    # Nothing of the project outside the rules package either.
    assert [m for m in new if m.startswith("referee.") and not m.startswith("referee.rules")] == []


def allowed(module: str) -> bool:
    top = module.split(".")[0]
    return top in sys.stdlib_module_names or module == "referee.rules" or module.startswith("referee.rules.")


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in ``path``; ``from referee import rules`` counts as
    ``referee.rules``; relative imports resolve inside the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = "referee.rules" if node.level == 1 else "referee"
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            if module == "referee":
                found += [(node.lineno, f"referee.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, module))
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in ("__import__", "import_module"):
                arg = node.args[0] if node.args else None
                target = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else "<dynamic>"
                found.append((node.lineno, target))
    return sorted(found)


@pytest.mark.parametrize("path", RULE_MODULES, ids=[p.name for p in RULE_MODULES])
def test_rules_module_imports_only_stdlib_and_rules(path: Path) -> None:
    found = imports_of(path)
    bad = [f"{path.name}:{line}: {module}" for line, module in found if not allowed(module)]
    assert bad == []


def test_import_scanner_flags_foreign_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import numpy as np\nfrom cv2 import imread\nimport json\nfrom . import tiles\n"
                      "from referee.vision import detect\nimport importlib\nimportlib.import_module('PIL')\n",
                      encoding="utf-8")
    found = imports_of(sample)
    assert found == [(1, "numpy"), (2, "cv2"), (3, "json"), (4, "referee.rules"), (5, "referee.vision"),
                     (6, "importlib"), (7, "PIL")]
    assert [m for _, m in found if not allowed(m)] == ["numpy", "cv2", "referee.vision", "PIL"]


#: What each package of ``referee`` may import of the others (docs/architecture.md): stages only
#: import the stages before them; the command-line modules may import anything.
LAYERS = {
    "rules": set(),
    "vision": set(),
    "render": {"rules"},
    "layout": {"rules", "vision"},
    "session": {"rules", "vision", "layout"},
    "announce": {"session"},
    "store": {"rules", "session"},
    "web": {"rules", "vision", "layout", "session", "store"},
    "settings": {"rules", "session"},
    "doctor": {"rules", "vision", "session", "settings", "announce"},
}


def _referee_imports(path: Path) -> set[str]:
    """The ``referee`` packages a module imports, at its top or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        found |= {n.split(".")[1] for n in names if n and n.startswith("referee.")}
    return found


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_each_stage_imports_only_the_stages_before_it(package: str) -> None:
    base = REPO / "referee"
    files = sorted((base / package).rglob("*.py")) if (base / package).is_dir() else [base / f"{package}.py"]
    assert files
    bad = {f"{path.relative_to(REPO)}: {used}" for path in files for used in _referee_imports(path)
           if used != package and used not in LAYERS[package]}
    assert not bad, sorted(bad)


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("3", "3")])
def test_the_package_keeps_numpys_blas_to_one_thread_unless_told(given: str | None, expected: str) -> None:
    """numpy's BLAS would spin a thread per core for each frame's small fits: importing the
    package first sets one thread (detection reads the same in less CPU time); a user's own
    setting wins. The package itself loads no numpy to do it."""
    env = dict(os.environ)
    env.pop("OPENBLAS_NUM_THREADS", None)
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    code = "import os, sys, referee; print(os.environ['OPENBLAS_NUM_THREADS'], 'numpy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [expected, "False"]
