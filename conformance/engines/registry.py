"""The registry of engines bgconf can run by name, and how a name becomes an engine.

Names: the built-ins (``reference``, ``gnubg``, ``gnubg-external``, ``bsd-backgammon``, the third-party Python engines of
``THIRD_PARTY`` and the npm engines of ``NPM``), ``cmd:COMMAND`` (a program speaking spec/protocol.md),
``python:pkg.module:factory`` and entry points of group ``bgconf.engines``.
This module sits above the engine interface (conformance.engines.interface), the adapters
(conformance.engines.adapters) and the protocol client (conformance.engines.protocol): it is the one
place that names them, so the interface imports none of them.
"""

from __future__ import annotations

import importlib
import json
import os
import shlex
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import Callable

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.interface import (
    BadEngineName,
    Engine,
    EngineNotFound,
    EngineStartError,
    as_engine,
    installed_version,
)
from conformance.engines.protocol import CommandEngine, env_max_restarts, env_timeout, serve_command


def _reference() -> Engine:
    from conformance.engines.adapters.reference import ReferenceEngine

    return ReferenceEngine()


def _gnubg() -> Engine:
    from conformance.engines.adapters.gnubg.engine import GnubgEngine

    return GnubgEngine()


def _gnubg_external() -> Engine:
    from conformance.engines.adapters.gnubg_external import GnubgExternalEngine

    return GnubgExternalEngine()


def _bsd_backgammon() -> Engine:
    from conformance.engines.adapters.bsd_backgammon import BsdBackgammonEngine

    return BsdBackgammonEngine()


# Third-party Python engines: name -> (adapter module, PyPI distribution, install extra, what).
# Each runs isolated in its own child process (``bgconf serve python:MODULE:Adapter`` behind the
# JSON-lines protocol), so a segfault, a hang, a chdir or an import clash cannot harm the run.
THIRD_PARTY: dict[str, tuple[str, str, str]] = {
    "gnubg-nn": ("conformance.engines.adapters.gnubg_nn", "gnubg-nn", "GNU Backgammon's move generator (gnubg-nn, C)"),
    "gnubg-py": ("conformance.engines.adapters.gnubg_py", "gnubg", "GNU Backgammon's Python 3 bindings (gnubg on PyPI)"),
    "bgsage": ("conformance.engines.adapters.bgsage", "bgsage", "bgsage (C++)"),
    "gym-backgammon": ("conformance.engines.adapters.gym_backgammon", "gym-backgammon", "gym-backgammon (pure Python)"),
    "pygammon": ("conformance.engines.adapters.pygammon", "pygammon", "pygammon (pure Python)"),
    "magmacrunch": ("conformance.engines.adapters.magmacrunch", "magmacrunch-backgammon", "magmacrunch-backgammon"),
    "willse": ("conformance.engines.adapters.willse", "willse-backgammon", "willse-backgammon"),
    "pgx": ("conformance.engines.adapters.pgx", "pgx", "pgx's backgammon environment (JAX), stepped by its action masks; also bgconf playout --engine pgx"),
    "gammonview": ("conformance.engines.adapters.gammonview", "gammonview", "gammonview's legality checker (gvformat.legality)"),
    "ankigammon": ("conformance.engines.adapters.ankigammon_ids", "ankigammon", "ankigammon's XGID reader and writer (ankigammon.utils.xgid)"),
    "engine-kit": ("conformance.engines.adapters.engine_kit", "backgammon-engine-kit", "backgammon-engine-kit's XGID codec (position_contract.native_codec)"),
}

#: Seconds allowed for the start handshake of engines that compile at start (JAX compiles pgx's
#: step when the adapter starts), when longer than the per-request timeout.
START_TIMEOUT: dict[str, float] = {"pgx": 180.0}


def _isolated(name: str, module: str, distribution: str) -> Callable[..., Engine]:
    def make(**options) -> Engine:
        if installed_version(distribution) is None:
            raise EngineUnavailable(f"{distribution} is not installed: pip install 'bgconf[{name}]'")
        return _command_engine(serve_command(f"python:{module}:Adapter")[len("cmd:"):],
                               start_timeout=START_TIMEOUT.get(name), **options)

    return make


def _command_engine(command: str, timeout: float | None = None, max_restarts: int | None = None,
                    start_timeout: float | None = None) -> Engine:
    return CommandEngine(command, timeout=timeout or env_timeout(), max_failures=max_restarts or env_max_restarts(),
                         start_timeout=start_timeout)


# npm engines: name -> (wrapper script in NPM_DIR, npm package, what). Each package is pinned in
# NPM_DIR/package.json and package-lock.json and installed there by ``npm ci --prefix NPM_DIR``; the
# wrapper speaks spec/protocol.md over the package's own code, in its own node process.
NPM: dict[str, tuple[str, str, str]] = {
    "tsgammon": ("tsgammon.js", "tsgammon-core", "tsgammon-core (TypeScript), the rules library of the tsgammon web game"),
}
NPM_DIR = Path(__file__).resolve().parent / "adapters" / "npm"


def npm_version(package: str) -> str | None:
    """The version of npm ``package`` installed in NPM_DIR/node_modules, or None."""
    try:
        return str(json.loads((NPM_DIR / "node_modules" / package / "package.json").read_text("utf-8"))["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _npm(name: str, script: str, package: str) -> Callable[..., Engine]:
    def make(**options) -> Engine:
        node = shutil.which("node")
        if node is None:
            raise EngineUnavailable(f"node is not on PATH: apt-get install nodejs, then npm ci --prefix {NPM_DIR}")
        if npm_version(package) is None:
            raise EngineUnavailable(f"{package} is not installed: npm ci --prefix {NPM_DIR}")
        return _command_engine(f"{shlex.quote(node)} {shlex.quote(str(NPM_DIR / script))}", **options)

    return make


def install_state(name: str) -> tuple[str | None, str] | None:
    """For a third-party or npm engine: (installed version or None, the command that installs
    it); None for the other built-ins (whose state only starting them tells)."""
    if name in THIRD_PARTY:
        return installed_version(THIRD_PARTY[name][1]), f"pip install 'bgconf[{name}]'"
    if name in NPM:
        how = f"npm ci --prefix {NPM_DIR}"
        if shutil.which("node") is None:
            return None, f"apt-get install nodejs, then {how}"
        return npm_version(NPM[name][1]), how
    return None


BUILTIN: dict[str, tuple[Callable[..., Engine], str]] = {
    "reference": (_reference, "the reference engine (reference_impl), in-process"),
    "gnubg": (_gnubg, "GNU Backgammon, the gnubg program driven headless (apt-get install gnubg)"),
    "gnubg-external": (_gnubg_external, "GNU Backgammon's external interface: FIBS board lines over a local"
                                        " socket, one chosen play back (apt-get install gnubg)"),
    "bsd-backgammon": (_bsd_backgammon, "BSD backgammon (/usr/games/backgammon), started from a save file under"
                                        " a pseudo-terminal (apt-get install bsdgames; pip install 'bgconf[bsd]')"),
    **{name: (_isolated(name, module, dist), f"{what}, isolated in a child process (pip install 'bgconf[{name}]')")
       for name, (module, dist, what) in THIRD_PARTY.items()},
    **{name: (_npm(name, script, package),
              f"{what}, through the node wrapper conformance/engines/adapters/npm/{script} (npm ci --prefix conformance/engines/adapters/npm)")
       for name, (script, package, what) in NPM.items()},
}


def _search_current_directory() -> None:
    """Put the current directory first on ``sys.path`` when it is not there, so that
    ``python:MODULE:FACTORY`` finds ``MODULE`` in the current directory however bgconf was started
    (``python -m`` puts it there, a console script such as ``bgconf serve`` does not);
    docs/engine-authors.md."""
    here = os.getcwd()
    if "" not in sys.path and here not in sys.path:
        sys.path.insert(0, here)


def start_engine(name: str, *, timeout: float | None = None, max_restarts: int | None = None
                 ) -> tuple[Engine, dict]:
    """``get_engine(name, ...)`` and its ``describe()``, checked: every command that runs an
    engine starts it here, so an unknown name, an engine that is not installed and one
    that cannot start read the same everywhere.

    Raises BadEngineName (a malformed name: exit 2), EngineNotFound (no such engine) or
    EngineStartError (not installed, or could not start), each with a one-line message
    (``cliutil.open_engine`` maps the last two to exit 4).
    """
    try:
        engine = get_engine(name, timeout=timeout, max_restarts=max_restarts)
    except (EngineNotFound, BadEngineName):
        raise
    except Exception as exc:  # not installed, a factory that fails, a bad cmd: line
        raise EngineStartError(f"engine {name!r} could not start: {_one_line(exc)}") from None
    try:
        try:
            info = engine.describe()
        except Exception as exc:
            raise EngineStartError(f"engine {name!r} could not start: {_one_line(exc)}") from None
        if not isinstance(info, dict):
            raise EngineStartError(f"engine {name!r}: describe() returned {info!r}, not a dict")
    except BaseException:  # interrupted while it starts: its process does not outlive the command
        engine.close()
        raise
    return engine, info


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " | ".join(x.strip() for x in text.splitlines() if x.strip())


def entry_point_engines() -> dict[str, metadata.EntryPoint]:
    """Engines registered by installed packages in the ``bgconf.engines`` group."""
    return {ep.name: ep for ep in metadata.entry_points(group="bgconf.engines")}


def get_engine(name: str, isolated: bool = True, *, timeout: float | None = None,
               max_restarts: int | None = None) -> Engine:
    """Make the engine called ``name``: a built-in (``reference``, ``gnubg``),
    ``cmd:COMMAND`` (a program speaking the JSON-lines protocol of spec/protocol.md;
    per-request timeout BGCONF_TIMEOUT seconds, default 10),
    ``python:pkg.module:factory``, or an entry point of group ``bgconf.engines``.
    Python engines other than the built-ins run in a child process behind the
    protocol unless ``isolated`` is False (as ``bgconf serve`` asks).

    ``timeout`` (s per request) and ``max_restarts`` (consecutive failures before the
    engine is given up) apply to engines behind the protocol.

    Raises EngineNotFound, BadEngineName, or the engine's own error if it cannot start
    (e.g. ``conformance.engines.adapters.EngineUnavailable``, ``protocol.ProtocolError``).
    """
    options = {"timeout": timeout, "max_restarts": max_restarts}
    if name in THIRD_PARTY or name in NPM:
        return BUILTIN[name][0](**options)
    if name in BUILTIN:
        return BUILTIN[name][0]()
    if name.startswith("cmd:"):
        if not name[len("cmd:"):].strip():
            raise BadEngineName("cmd: needs a command after the colon, e.g. --engine \"cmd:./my-engine --bgconf\"")
        return _command_engine(name[len("cmd:"):], **options)
    eps = entry_point_engines()
    if name.startswith("python:") or name in eps:
        if name.startswith("python:") and not name[len("python:"):].partition(":")[2]:
            raise BadEngineName(f"{name!r}: write python:package.module:factory")
        if isolated:
            # a Python engine runs in its own child process behind the protocol, so a
            # hang (timeout), a crash or an exit inside it cannot take the run down
            return _command_engine(serve_command(name)[len("cmd:"):], **options)
        if name in eps:
            return as_engine(eps[name].load()(), name)
        module_name, _, attr = name[len("python:"):].partition(":")
        _search_current_directory()
        try:
            module = importlib.import_module(module_name)
            factory = getattr(module, attr)
        except (ImportError, AttributeError) as exc:
            raise EngineNotFound(f"{name!r}: {exc}") from None
        return as_engine(factory(), name)
    known = sorted(BUILTIN) + sorted(eps)
    raise EngineNotFound(f"unknown engine {name!r}; known: {', '.join(known)}, or python:module:factory")
