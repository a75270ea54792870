"""How every `abcd` command group is made, so they all read and fail alike.

Plain help, not typer's boxes (`rich_markup_mode=None`), `-h` as well as
`--help`, and no typer traceback pages: `abcd.cli.main` turns every error into
one `abcd: ...` line.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument

HELP_OPTIONS = ["-h", "--help"]


def _no_type_label(self: TyperArgument, ctx: object) -> str | None:
    return None


# typer (0.2x) labels an argument in help with its Python type (`ID <str>`); its name
# (`ID`, `FILE`, `NAME`) already says what it takes, as options' metavars do.
TyperArgument.display_type_rich = _no_type_label  # type: ignore[method-assign,assignment]


def command_group(help: str, **settings: Any) -> typer.Typer:
    """A typer app for one `abcd` command group (or the root), with the shared settings."""
    settings.setdefault("add_completion", False)
    return typer.Typer(
        help=help,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": HELP_OPTIONS},
        **settings,
    )
