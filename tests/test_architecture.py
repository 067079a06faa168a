"""Imports point down only: command line and plugin > commands > reports > harness > cases >
engines > model, and the reference engine on the model alone.

The folders of conformance/ are the layers, and each folder's modules have their own order: the
import-linter contracts of pyproject.toml ([tool.importlinter]); every module must be given its
place there. Imports inside functions count like any other.
"""

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
