"""The typer application: the top-level group that reports every failure in one line, and the global options."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from ..version import __version__
from . import console as _console
from ._click import _cx
from .exits import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Stopped,
    _remove_unfinished_work,
    _report,
    _signals_raise,
    failure_status,
)


class _Group(typer.core.TyperGroup):
    """Top-level group that turns every failure into one ``error:`` line.

    click (and typer's rich formatting) would print usage boxes and
    tracebacks; running click non-standalone and catching here gives one place
    that decides what a user sees. ``CliRunner.invoke(app, ...)`` goes through
    this too, so tests see what users see.
    """

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        debug = os.environ.get("GRAPHFERRY_DEBUG", "") not in ("", "0")
        try:
            with _signals_raise():
                rv = super().main(args=args, prog_name=prog_name or "graphferry",
                                  complete_var=complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
        except _cx.NoArgsIsHelpError as exc:
            typer.echo(exc.ctx.get_help())
            code = 0
        except _cx.UsageError as exc:
            hint = ""
            if exc.ctx is not None and exc.ctx.command_path:
                hint = f" (see '{exc.ctx.command_path} --help')"
            _report(exc.format_message() + hint)
            code = EXIT_USAGE
        except _cx.ClickException as exc:
            _report(exc.format_message())
            code = exc.exit_code
        except typer.Abort as exc:
            # click turns Ctrl-C into Abort (after printing a newline).
            if isinstance(exc.__context__, KeyboardInterrupt):
                _remove_unfinished_work()
                _report("interrupted")
                code = EXIT_INTERRUPTED
            elif isinstance(exc.__context__, EOFError):  # click turns EOFError into Abort too
                _report(f"unexpected end of data{': ' + str(exc.__context__) if str(exc.__context__) else ''}")
                code = EXIT_FAILURE
            else:
                _report("aborted")
                code = EXIT_FAILURE
        except (KeyboardInterrupt, Stopped, Exception):  # ours to report (the one-shot parser's too)
            code = failure_status(debug)
        if standalone_mode:
            sys.exit(code)
        return code


# ------------------------------------------------------------------ the app
app = typer.Typer(
    cls=_Group,
    name="graphferry",
    help="Graph analytics on GPUs for graphs whose edges do not fit in GPU memory.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
generate_app = typer.Typer(help="Generate a synthetic graph into a graph store.",
                           no_args_is_help=True, rich_markup_mode=None)
app.add_typer(generate_app, name="generate")


def _command_name(info) -> str:
    """The name typer gives a registered command (its own, or its function's with dashes)."""
    return info.name or typer.main.get_command_name(info.callback.__name__)


def click_group(only: str | None = None):
    """``app`` as the click group that runs it; with ``only``, the group holding just that command.

    typer builds a validator for every option of every command it converts (a
    ``pydantic`` adapter each, in typer 0.2x): for a one-shot run, building the
    one command asked for is a visible part of the run's start-up. Commands are
    those whose modules were imported (see ``graphferry.cli.COMMAND_MODULES``).
    """
    if only is None:
        return typer.main.get_command(app)
    commands, groups = app.registered_commands, app.registered_groups
    try:
        app.registered_commands = [c for c in commands if _command_name(c) == only]
        app.registered_groups = [g for g in groups if g.name == only]
        return typer.main.get_command(app)
    finally:
        app.registered_commands, app.registered_groups = commands, groups


def _version(value: bool) -> None:
    if value:
        typer.echo(f"graphferry {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True,
                                         help="Log progress (-v) or debug details (-vv) to stderr.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    _console.apply_global_options(verbose, quiet)
