"""A suite version means one set of cases (docs/versions.md).

The bundled cases are those of the shipped manifest of the current suite version; every id a
shipped manifest lists is in the suite or retired; no retired id is in the suite; the wheel
ships the manifests, so ``--suite-version`` works on a fresh install; ``bgconf release`` writes
into the source tree or ``--out``, never into an installed package.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import __version__
from conformance.cases import case_files, load_suite, resources
from conformance.cli import main
from conformance.reports.release import ReleaseError, check_release

ROOT = Path(__file__).resolve().parent.parent
BUMP = ("bump the suite version (__version__ in conformance/__init__.py, docs/versions.md) and cut a"
        " release with bgconf release")


def manifests() -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in sorted(resources.releases_dir().glob("*.json"))}


@pytest.fixture(scope="module")
def suite():
    return load_suite()


def test_the_current_suite_version_is_released():
    assert f"{__version__}.json" in manifests(), (
        f"releases/{__version__}.json is missing: cut the release of suite {__version__} with bgconf release")


def test_the_bundled_cases_are_the_manifest_of_their_suite_version(suite):
    path = resources.releases_dir() / f"{__version__}.json"
    if not path.exists():
        pytest.skip(f"no manifest of {__version__} yet (test_the_current_suite_version_is_released fails)")
    release = json.loads(path.read_text())
    assert release["suite_version"] == __version__
    try:
        check_release(__version__, case_files())
    except ReleaseError as exc:
        pytest.fail(f"{exc}: the cases changed under suite version {__version__}; {BUMP}")
    assert suite.content_hash == release["content_hash"], (
        f"the bundled suite's content hash {suite.content_hash[:12]} is not release {__version__}'s"
        f" ({release['content_hash'][:12]}); {BUMP}")
    assert sorted(c.id for c in suite.cases) == release["case_ids"], BUMP


def test_every_id_of_a_shipped_manifest_is_in_the_suite_or_retired(suite):
    ids, retired = {c.id for c in suite.cases}, resources.retired_ids()
    for name, release in manifests().items():
        lost = sorted(set(release["case_ids"]) - ids - retired)
        assert not lost, (f"releases/{name} ships {', '.join(lost)}, which the suite no longer has: list each in"
                          " cases/RETIRED with what it was (ids are never reused)")


def test_no_retired_id_is_in_the_suite(suite):
    back = sorted({c.id for c in suite.cases} & resources.retired_ids())
    assert not back, f"retired ids in the suite: {', '.join(back)} (a retired id is never reused)"


def test_retired_lists_the_case_removed_under_2026_11_0():
    assert "bg-MWVZ" in resources.retired_ids()
    line = next(x for x in (resources.cases_dir() / "RETIRED").read_text().splitlines() if x.startswith("bg-MWVZ"))
    assert "#" in line and len(line.split("#", 1)[1].strip()) > 20, "a retired id says what the case was"


def test_the_docs_name_the_current_suite_version():
    readme = (ROOT / "README.md").read_text()
    assert re.findall(r"--suite-version (\S+)", readme) == [__version__]
    assert re.findall(r"OWNER/bgconf@v(\S+)", readme) == [__version__]
    assert re.findall(r"OWNER/bgconf@v(\S+)", (ROOT / "docs" / "campaigns.md").read_text()) == [__version__]
    assert f'"suite": "{__version__}"' in (ROOT / "spec" / "protocol.md").read_text()


def test_release_from_a_checkout_writes_its_releases_directory_and_never_overwrites_other_content(
        tmp_path, capsys, monkeypatch):
    # bgconf run from this checkout, however the tests' bgconf is installed
    monkeypatch.setattr(resources, "data_root", lambda: ROOT)
    target = resources.releases_dir() / f"{__version__}.json"
    assert target == ROOT / "releases" / f"{__version__}.json"
    assert main(["release"]) == 0  # the same content: nothing changes
    assert capsys.readouterr().out.startswith(f"{target}: release {__version__} is already this content")
    out = tmp_path / "r.json"
    out.write_text('{"other": "content"}\n')
    assert main(["release", "--out", str(out)]) == 2
    assert "frozen with other content" in capsys.readouterr().err
    assert out.read_text() == '{"other": "content"}\n'


# -- an installed wheel -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The wheel of this tree, built with pip and installed with ``pip install --target``;
    returns (site directory, env to run it with): its dependencies come from this interpreter,
    the bgconf it runs is the wheel's alone."""
    where = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(where / "dist"),
                            str(ROOT)], capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    wheel = next((where / "dist").glob("bgconf-*.whl"))
    site = where / "site"
    inst = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(site),
                           str(wheel)], capture_output=True, text=True)
    assert inst.returncode == 0, inst.stdout + inst.stderr
    return site, dict(os.environ, PYTHONPATH=str(site))


def run_installed(installed, *args, cwd):
    site, env = installed
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env)


def test_the_wheel_ships_the_manifest_and_suite_version_works_from_it(installed, tmp_path):
    site, _env = installed
    assert (site / "conformance" / "_data" / "releases" / f"{__version__}.json").is_file()
    probe = subprocess.run([sys.executable, "-c", "import conformance; print(conformance.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=installed[1])
    assert probe.stdout.strip().startswith(str(site)), probe.stdout + probe.stderr
    proc = run_installed(installed, "run", "--engine", "reference", "--case", "bg-C3Z8",
                         "--suite-version", __version__, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cases:" in proc.stdout and " fail" not in proc.stdout  # bg-C3Z8 and the play checks derived from it


def test_release_from_an_installed_package_refuses_without_out(installed, tmp_path):
    site, _env = installed
    releases = site / "conformance" / "_data" / "releases"
    before = {p.name: p.read_bytes() for p in releases.iterdir()}
    proc = run_installed(installed, "release", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "installed package" in lines[0] and "--out" in lines[0], proc.stderr
    assert {p.name: p.read_bytes() for p in releases.iterdir()} == before
    out = tmp_path / "mine.json"
    proc = run_installed(installed, "release", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(out.read_text())["content_hash"] == json.loads(
        (releases / f"{__version__}.json").read_text())["content_hash"]
