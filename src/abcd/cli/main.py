"""The `abcd` command: the root typer app and the one place errors become exit codes.

Exit codes: 0 done; 1 refused (bad input, a limit, the gate, a trust check,
a broken journal), one line on stderr; 2 usage.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from abcd import __version__
from abcd.cli.host_cmd import hook_app, statusline
from abcd.cli.journal_cmd import app as journal_app
from abcd.cli.memory_cmd import app as memory_app
from abcd.cli.plugin_cmd import app as plugin_app
from abcd.cli.rules_cmd import register as register_rules
from abcd.errors import AbcdError

app = typer.Typer(
    name="abcd",
    help="A memory for AI coding agents that is safe to keep and easy to audit.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(asked: bool) -> None:
    if asked:
        print(f"abcd {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print abcd's version and exit.",
        ),
    ] = False,
) -> None:
    """A memory for AI coding agents that is safe to keep and easy to audit."""


app.add_typer(memory_app, name="memory")
app.add_typer(journal_app, name="journal")
register_rules(app)
app.add_typer(hook_app, name="hook")
app.add_typer(plugin_app, name="plugin")
app.command("statusline")(statusline)


def main() -> None:
    try:
        app()
    except AbcdError as err:
        print(f"abcd: {err}", file=sys.stderr)
        sys.exit(err.exit_code)
    except BrokenPipeError:
        sys.exit(1)
