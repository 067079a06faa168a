"""The pages of docs/ are run: every file they give is written, every command they show is
run and must exit as they say, every output they show must appear (docs/README.md, "How these
pages are checked")."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)
EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")


def pages() -> list[Path]:
    """The pages in the order of the index (docs/README.md), then any other page."""
    listed = re.findall(r"\]\(([a-z0-9-]+\.md)\)", (DOCS / "README.md").read_text())
    rest = sorted(p.name for p in DOCS.glob("*.md") if p.name not in listed and p.name != "README.md")
    return [DOCS / name for name in dict.fromkeys(listed + rest)]


def blocks(page: Path):
    for m in FENCE.finditer(page.read_text()):
        info = m.group(1).split()
        lang = info[0] if info else ""
        options = dict(x.split("=", 1) for x in info[1:] if "=" in x)
        yield lang, options, m.group(2)


def test_the_index_lists_every_page():
    listed = re.findall(r"\]\(([a-z0-9-]+\.md)\)", (DOCS / "README.md").read_text())
    assert sorted(listed) == sorted(p.name for p in DOCS.glob("*.md") if p.name != "README.md")


def test_no_page_points_outside_the_repository():
    for page in DOCS.glob("*.md"):
        text = page.read_text()
        assert "/work/" not in text and "/tmp/" not in text, page.name
        for target in re.findall(r"\]\(([^)#]+)\)", text):
            if not target.startswith("http"):
                assert (page.parent / target).exists(), f"{page.name}: link to {target}"


def test_every_page_runs_as_written(tmp_path):
    # as a reader types them: nothing added to the environment (no PYTHONPATH), bgconf on PATH as
    # an installed package puts it, and /usr/games where Debian puts BSD backgammon
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}{os.pathsep}/usr/games")
    if os.environ.get("PYTHONPATH") is None:
        env.pop("PYTHONPATH", None)
    ran = 0
    for page in pages():
        last_output = None
        for lang, options, body in blocks(page):
            where = f"{page.name}, {lang} block"
            if "file" in options:
                (tmp_path / options["file"]).write_text(body)
                if lang == "yaml":
                    yaml.safe_load(body)
                continue
            if lang == "sh":
                last_output = ""
                for line in body.splitlines():
                    command = line.strip()
                    if not command or command.startswith("#"):
                        continue
                    want = int(EXIT.search(command).group(1)) if EXIT.search(command) else 0
                    proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                                          text=True, timeout=600)
                    assert proc.returncode == want, f"{where}: {command!r} exited {proc.returncode}, not {want}:\n" \
                                                    f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
                    assert "Traceback" not in proc.stderr, f"{where}: {command!r}\n{proc.stderr}"
                    last_output += proc.stdout + proc.stderr
                    ran += 1
            elif lang == "text":
                assert last_output is not None, f"{where}: a text block must follow a sh block"
                for shown in body.splitlines():
                    assert shown.strip() in last_output, f"{where}: {shown!r} is not in the output:\n{last_output}"
            elif lang == "python":
                proc = subprocess.run([sys.executable, "-c", body], cwd=tmp_path, env=env, capture_output=True,
                                      text=True, timeout=600)
                assert proc.returncode == 0, f"{where}:\n{proc.stderr}"
                last_output = proc.stdout
            elif lang == "yaml":
                yaml.safe_load(body)
            elif lang == "json":
                json.loads(body)
    assert ran >= 20


@pytest.mark.parametrize("path", ["conformance", "spec", "README.md"])
def test_code_and_spec_point_to_the_docs_not_to_an_outside_design(path):
    target = ROOT / path
    files = [target] if target.is_file() else [p for p in target.rglob("*") if p.suffix in (".py", ".md", ".json")]
    for f in files:
        assert not re.search(r"DESIGN\.md|DESIGN section", f.read_text(errors="replace")), f


def _readme_test_block() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Test", 1)[1]
    return FENCE.search(section).group(2)


SYSTEM_PACKAGES = ROOT / "tools" / "system-packages.sh"


def test_the_readme_and_ci_install_the_system_packages_with_one_script():
    readme, ci = _readme_test_block(), (ROOT / ".ci" / "run").read_text()
    assert "apt-get" not in readme and "apt-get" not in ci, "apt-get belongs in tools/system-packages.sh"
    assert "bash tools/system-packages.sh" in readme and "bash tools/system-packages.sh" in ci
    assert len([line for line in readme.splitlines() if line.strip()]) <= 2


def _apt_calls(tmp_path, have: tuple[str, ...], npm_installs: bool = True) -> list[list[str]]:
    """Run tools/system-packages.sh with a recording apt-get and only the programs ``have``
    (node, npm) on PATH; the apt-get calls it made, each as its words."""
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    (bin_dir / "apt-get").write_text(
        "#!/bin/bash\n"
        f"echo \"$*\" >> {calls}\n"
        + ("" if npm_installs else '[[ " $* " == *" npm "* ]] && { echo "E: held broken packages" >&2; exit 100; }\n')
        + "exit 0\n")
    for name in have:
        (bin_dir / name).write_text("#!/bin/sh\nexit 0\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    proc = subprocess.run(["/bin/bash", str(SYSTEM_PACKAGES)], env={"PATH": str(bin_dir)}, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [line.split() for line in calls.read_text().splitlines()], proc.stderr


@pytest.mark.parametrize("have, wanted", [
    (("node", "npm"), set()),              # Node.js from anywhere, with its npm: neither is asked for
    (("node",), {"npm"}),                  # Debian's nodejs without npm: npm alone
    ((), {"nodejs", "npm"}),               # a fresh machine: both
])
def test_debian_nodejs_and_npm_are_installed_only_where_missing(tmp_path, have, wanted):
    calls, _err = _apt_calls(tmp_path, have)
    installed = {w for c in calls if "install" in c for w in c if not w.startswith("-") and w != "install"}
    assert {"gnubg", "bsdgames", "chromium", "chromium-driver"} <= installed
    assert installed & {"nodejs", "npm"} == wanted
    assert calls[0][0] == "update"


def test_npm_that_conflicts_with_another_nodejs_is_a_warning_not_a_stop(tmp_path):
    calls, err = _apt_calls(tmp_path, ("node",), npm_installs=False)
    assert "warning: npm is missing" in err
