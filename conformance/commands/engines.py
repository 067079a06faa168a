"""``bgconf engines``: list the engines bgconf can run, with the version installed here or what
is missing and the command that installs it, then OpenSpiel and the entry point engines; exit 0.
"""

from __future__ import annotations

import argparse

from conformance.commands.common import EXIT_OK, exit_codes
from conformance.engines.registry import BUILTIN, entry_point_engines, get_engine


def add_parser(sub) -> None:
    eng = sub.add_parser(
        "engines", help="list the engines bgconf knows and whether they are installed",
        description="List every engine bgconf can run (the names --engine takes), with the version installed"
                    " here, or what is missing and the command that installs it, and what each engine is;"
                    " then the engines that installed packages register under the bgconf.engines entry point."
                    " An engine that is started to ask its version is stopped at once.",
        epilog="examples:\n  bgconf engines\n  bgconf engines | grep 'not installed'\n\n"
               + exit_codes({0: "the list is printed (an engine that is not installed is a line of the list,"
                                " not an error)", 2: "bad command line"}),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    eng.set_defaults(func=cmd_engines)


def cmd_engines(args) -> int:
    from conformance.engines.registry import install_state

    print(f"{'engine':<15} {'version':<22} state")
    for name, (_factory, text) in BUILTIN.items():
        known = install_state(name)
        if known is not None:
            version, how = known
            state = "installed" if version else f"not installed: {how}"
        else:
            try:
                engine = get_engine(name)
                version = engine.describe().get("version")
                engine.close()
                state = "installed"
            except Exception as exc:
                version, state = None, f"not available: {exc}"
        print(f"{name:<15} {version or '-':<22} {state}\n{'':<15} {text}")
    from conformance.engines.interface import installed_version
    from conformance.harness.openspiel import OPENSPIEL_DIST

    version = installed_version(OPENSPIEL_DIST)  # played by bgconf playout only: it takes no position
    state = "installed" if version else "not installed: pip install 'bgconf[openspiel]'"
    print(f"{'openspiel':<15} {version or '-':<22} {state}\n{'':<15} OpenSpiel's backgammon, played along random"
          " games by bgconf playout --engine openspiel (it cannot be given a position)")
    for name, ep in entry_point_engines().items():
        print(f"{name:<15} {'-':<22} entry point {ep.value}")
    return EXIT_OK
