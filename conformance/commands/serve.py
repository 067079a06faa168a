"""``bgconf serve ENGINE``: answer the engine protocol of spec/protocol.md on stdin/stdout with a
Python engine (``conformance.engines.protocol.serve``); exit 2 for an unknown engine, 4 when it
cannot start.
"""

from __future__ import annotations

import sys

from conformance.commands.common import EXIT_NO_ENGINE, EXIT_USAGE, err
from conformance.engines.interface import EngineNotFound
from conformance.engines.registry import get_engine


def add_parser(sub) -> None:
    srv = sub.add_parser("serve", help="expose a Python engine over the JSON-lines protocol on stdin/stdout",
                         description="Answer the engine protocol of spec/protocol.md on stdin/stdout with a "
                                     "Python engine, e.g. bgconf run --engine \"cmd:bgconf serve reference\".")
    srv.add_argument("engine", help="reference, gnubg, python:module:factory or an entry point name")
    srv.set_defaults(func=cmd_serve)


def cmd_serve(args) -> int:
    from conformance.engines.protocol import serve

    try:
        engine = get_engine(args.engine, isolated=False)
    except EngineNotFound as exc:
        err(str(exc))
        return EXIT_USAGE
    except Exception as exc:  # the factory failed, or returned something that is not an engine
        err(f"engine {args.engine!r} could not start: {str(exc).strip() or type(exc).__name__}")
        return EXIT_NO_ENGINE
    protocol_out, sys.stdout = sys.stdout, sys.stderr  # the engine's own prints go to stderr
    try:
        return serve(engine, stdout=protocol_out)
    finally:
        sys.stdout = protocol_out
