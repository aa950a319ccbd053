"""The ``golfrace`` command. Each subcommand lives in its own module and registers itself in COMMANDS.

Bad input exits with status 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
from collections.abc import Sequence

from ..engine.errors import GolfError

# subcommand name -> module (imported lazily so that `golfrace deal` never imports the server)
COMMANDS = {
    "deal": "golfrace.cli.engine_cmds",
    "play": "golfrace.cli.engine_cmds",
    "describe": "golfrace.cli.engine_cmds",
    "solve": "golfrace.cli.solver_cmds",
    "hint": "golfrace.cli.solver_cmds",
    "serve": "golfrace.cli.server_cmds",
    "bot": "golfrace.cli.server_cmds",
    "settings": "golfrace.cli.server_cmds",
    "messages": "golfrace.cli.server_cmds",
    "watch": "golfrace.cli.terminal_cmds",
}


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand, or only ``command``'s module when it is a known command (so that a
    command never imports the modules of the others)."""
    parser = _Parser(prog="golfrace", description="Golf Race: deal, play, solve and serve Golf solitaire.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    modules = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # a terminal that cannot show Hebrew or Romanian letters gets escapes, not a traceback
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list[0] if args_list else None)
    try:
        args = parser.parse_args(args_list)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except GolfError as exc:
        print(f"golfrace: {exc.code}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
