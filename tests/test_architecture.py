"""Imports point down only: command line and plugin > commands > reports > harness > cases >
engines > model, and the reference engine on the model alone.

The folders of conformance/ are the layers, and each folder's modules have their own order: the
import-linter contracts of pyproject.toml ([tool.importlinter]); every module must be given its
place there. Imports inside functions count like any other.
"""

import ast
import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent


def test_the_layer_contracts_of_pyproject_hold(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0


def test_the_reference_engine_imports_only_the_model():
    graph = grimp.build_graph("conformance", "reference_impl", cache_dir=None)
    upward = sorted(
        f"{module} -> {target}"
        for module in graph.find_children("reference_impl") | {"reference_impl"}
        for target in graph.find_modules_directly_imported_by(module)
        if not target.startswith(("reference_impl", "conformance.model")))
    assert upward == []


def test_the_engine_interface_names_no_engine():
    graph = grimp.build_graph("conformance", "reference_impl", cache_dir=None)
    assert not graph.find_modules_directly_imported_by("conformance.engines.interface")
    assert "conformance.engines.registry" not in graph.find_upstream_modules("conformance.engines.interface")


def test_the_position_imports_no_codec():
    graph = grimp.build_graph("conformance", "reference_impl", cache_dir=None)
    assert graph.find_modules_directly_imported_by("conformance.model.position") == {"conformance.model.errors"}


@pytest.mark.parametrize("module, line", [
    ("harness/runner.py", "from conformance.cli import main"),  # the harness importing the command line
    ("model/position.py", "from .gnubg_id import decode_position_id"),  # the position importing a codec
])
def test_an_upward_import_inside_a_function_breaks_a_contract(tmp_path, module, line):
    for package in ("conformance", "reference_impl"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "_data"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with open(tmp_path / "conformance" / module, "a") as f:
        f.write(f"\n\ndef _upward():\n    {line}\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True))"],
        cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "BROKEN" in proc.stdout


# --- the documented names and the layout (docs/design.md, "The tree") -------------------------

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "spec").glob("*.md")),
             *sorted((ROOT / "examples").rglob("*.py")), *sorted((ROOT / "tools").rglob("*.md")),
             *sorted((ROOT / "tools").rglob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py"))]
_IMPORT = re.compile(r"^\s*from ((?:conformance|reference_impl)(?:\.\w+)*) import ([\w, ]+)$", re.M)
_DOTTED = re.compile(r"`((?:conformance|reference_impl)(?:\.\w+)+)(?::(\w+))?`")


def _documented_names() -> list[tuple[str, str, str]]:
    """(document, module, attribute or '') for every import and every `conformance.x.y` that the
    documents, the examples, the tools and the benchmarks name."""
    found = []
    for doc in DOCUMENTS:
        text = doc.read_text(encoding="utf-8")
        for module, names in _IMPORT.findall(text):
            found += [(doc.name, module, name.strip()) for name in names.split(",") if name.strip()]
        for dotted, attr in _DOTTED.findall(text):
            found.append((doc.name, dotted, attr))
    return sorted(set(found))


def _resolve(dotted: str, attr: str):
    """Import the longest module prefix of ``dotted`` and get the rest (and ``attr``) from it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:] + ([attr] if attr else []):
            try:
                obj = getattr(obj, name)
            except AttributeError:  # a submodule not imported yet: ``from package import module``
                obj = importlib.import_module(f"{obj.__name__}.{name}")
        return obj
    raise ModuleNotFoundError(dotted)


def test_the_documents_name_some_imports():
    names = _documented_names()
    assert ("engine-authors.md", "conformance.engine", "Engine") in names
    assert len(names) >= 20


@pytest.mark.parametrize("document, module, attr", _documented_names())
def test_every_documented_name_imports(document, module, attr):
    try:
        _resolve(module, attr)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"{document} names {module}{':' + attr if attr else ''}, which does not import: {exc}")


def test_the_entry_points_import():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    targets = list(project["scripts"].values()) + [
        v for group in project["entry-points"].values() for v in group.values()]
    for target in targets:
        module, _, attr = target.partition(":")
        assert _resolve(module, attr) is not None, target


def _packages() -> list[Path]:
    return sorted(p.parent for root in ("conformance", "reference_impl")
                  for p in (ROOT / root).rglob("__init__.py") if "node_modules" not in p.parts)


@pytest.mark.parametrize("package", _packages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_folder_says_what_lives_there_and_what_it_may_import(package):
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    assert doc, f"{package.relative_to(ROOT)}/__init__.py has no docstring"
    assert "import" in doc, f"{package.relative_to(ROOT)}/__init__.py does not say what it may import"
    listed = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    assert f"{package.relative_to(ROOT).as_posix()}/" in listed, \
        f"docs/design.md's tree does not list {package.relative_to(ROOT)}/"


LONG = 600  # lines: a module over this says in its opening docstring why it must be one module


def _modules() -> list[Path]:
    return sorted(p for root in ("conformance", "reference_impl") for p in (ROOT / root).rglob("*.py")
                  if "node_modules" not in p.parts)


def test_no_module_is_long_unless_it_says_why():
    long = []
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > LONG:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "must be one module" not in doc:
                long.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert long == [], "modules over 600 lines whose docstring does not say why they must be one module:\n" \
        + "\n".join(long)


def test_every_module_says_what_it_holds():
    bare = [str(p.relative_to(ROOT)) for p in _modules()
            if p.stat().st_size and not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))]
    assert bare == []
