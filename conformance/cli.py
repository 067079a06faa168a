"""The ``bgconf`` command line: the top-level parser and the dispatch to a command.

Each command is a module of ``conformance.commands`` with ``add_parser(subparsers)``, which adds
its subcommand(s) and sets ``func``; ``COMMAND_MODULES`` is their order in ``bgconf --help``.
``main`` is the console script ``bgconf`` (also ``python -m conformance.cli``).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from conformance import __version__

from conformance.commands.common import EXIT_CODES, EXIT_SIGNAL, CommandExit, err, guarded_stdout, interruptible, signal_name

#: the command modules of conformance.commands, in the order of ``bgconf --help``
#: (``perft`` adds ``perft`` and ``bisect``)
COMMAND_MODULES: list[str] = ["run", "certify", "expectations", "validate", "list", "show", "new_id", "mutants",
                              "table", "serve", "perft", "playout", "fuzz", "diff", "matrix", "export", "release",
                              "replay", "merge", "engines"]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``bgconf`` parser: ``--version`` and one subcommand per command (``COMMAND_MODULES``);
    with ``only`` (one of them), that module's subcommands alone, so that a command imports no
    other command's module (``main``: what ``bgconf replay`` or a ``--jobs`` run starts with)."""
    parser = argparse.ArgumentParser(
        prog="bgconf",
        description="bgconf: the rules-conformance suite for backgammon engines. Run the bundled "
                    "cases against an engine, validate case files, or look at cases.",
        epilog="examples:\n  bgconf run --engine reference\n  bgconf run --engine gnubg --report gnubg.jsonl\n"
               "  bgconf run --engine reference --tag bear-off\n  bgconf show bg-C3Z8\n"
               "  bgconf validate my-cases.bgcase.yaml\n\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"bgconf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in [only] if only else COMMAND_MODULES:  # each command module has add_parser(subparsers)
        importlib.import_module(f"conformance.commands.{module}").add_parser(sub)
    return parser


def _command_module(argv: list[str]) -> str | None:
    """The module of ``COMMAND_MODULES`` named by the command of ``argv`` (its first argument,
    ``new-id`` naming ``new_id``), or None: no command first (``--help``, ``--version``), or a
    name that is no module's (``bisect``, a typo), for which the whole parser is built."""
    if not argv or argv[0].startswith("-"):
        return None
    name = argv[0].replace("-", "_")
    return name if name in COMMAND_MODULES else None


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit code (see EXIT_CODES). SIGINT and SIGTERM end
    any command with one line and 130/143, never a traceback; the long commands keep
    what they had answered first. A standard output closed early (``bgconf run ... | head -1``)
    changes nothing but the printing: the command goes on with its output discarded and
    returns its own exit code (``commands.common.ClosedOutputGuard``)."""
    for stream in (sys.stdout, sys.stderr):  # an engine's odd text is printed escaped, never a crash
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    with guarded_stdout():  # also --help: its exit code 0 stands when the reader went away
        try:
            with interruptible():  # the parser too: building it imports every command module
                args = build_parser(_command_module(sys.argv[1:] if argv is None else argv)).parse_args(argv)
                return args.func(args)
        except KeyboardInterrupt as exc:
            name = signal_name(exc)
            err(f"interrupted by {name}")
            return EXIT_SIGNAL[name]
        except CommandExit as stop:
            return stop.code
        except Exception as exc:  # an interruption Python wrapped on its way (_interruption_behind)
            stop = _interruption_behind(exc)
            if stop is None:
                raise
            name = signal_name(stop)
            err(f"interrupted by {name}")
            return EXIT_SIGNAL[name]


def _interruption_behind(exc: BaseException) -> BaseException | None:
    """The KeyboardInterrupt (SIGINT, SIGTERM: ``Interrupted``) that ``exc`` was raised from or
    while handling, if any: Python 3.11 turns one raised while a class is made (in a
    ``__set_name__``, as a dataclass's fields have, during an import) into RuntimeError."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


if __name__ == "__main__":
    sys.exit(main())
