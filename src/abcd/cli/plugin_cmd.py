"""`abcd plugin path`: where the Claude Code plugin that ships inside this package lives.

The plugin folder (`abcd/plugin/`: manifest, hooks, the `/abcd:memory` page,
the status-line setting) is installed with the package; the host loads it
from there (`claude --plugin-dir "$(abcd plugin path)"`). The status-line
setting (`statusline.json`) is a file the person copies into their own
settings if they want it: the host does not read it from the plugin, and
`abcd plugin path --statusline` names it. Nothing here writes anywhere, least
of all the host's own configuration folder.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from abcd.cli.app import command_group
from abcd.errors import AbcdError

MANIFEST = Path(".claude-plugin") / "plugin.json"
# The `statusLine` setting for `abcd statusline`, for the person's own settings file.
STATUSLINE = Path("statusline.json")
# What a host before exec-form hooks can take in the plugin's path: it puts the path into a
# command string for `/bin/sh -c` unquoted (hooks.json, docs/host.md).
OLD_HOST_SAFE = re.compile(r"[A-Za-z0-9._/+@:,=~-]")
EXEC_FORM_SINCE = "2.1.139"

app = command_group(
    "The Claude Code plugin that ships with abcd.\n\n\b\nExample:\n  abcd plugin path --statusline",
    no_args_is_help=True,
)


def plugin_dir() -> Path:
    """The plugin folder inside the installed package (it holds `.claude-plugin/plugin.json`)."""
    return Path(__file__).resolve().parent.parent / "plugin"


@app.command()
def path(
    statusline: Annotated[
        bool,
        typer.Option(
            "--statusline",
            help="Print the file holding the status-line setting for your own settings instead.",
        ),
    ] = False,
) -> None:
    """Print the plugin folder, for `claude --plugin-dir` or a local plugin marketplace.

    The folder also holds `statusline.json`, the `statusLine` setting that runs
    `abcd statusline`; `--statusline` prints that file's path. Nothing is written.

    \b
    Example:
      claude --plugin-dir "$(abcd plugin path)"
    """
    folder = plugin_dir()
    if not (folder / MANIFEST).is_file():
        raise AbcdError(f"the plugin folder is missing from this install: no {folder / MANIFEST}")
    if not statusline:
        print(folder)
        unsafe = next((c for c in str(folder) if not OLD_HOST_SAFE.fullmatch(c)), None)
        if unsafe is not None:
            print(
                f"abcd: note: Claude Code before {EXEC_FORM_SINCE} cannot start the plugin's hooks "
                f"from this folder: its path holds {unsafe!r}, which that host's shell splits or "
                f"reads; {EXEC_FORM_SINCE} and later start them without a shell",
                file=sys.stderr,
            )
        return
    if not (folder / STATUSLINE).is_file():
        raise AbcdError(
            f"the status-line setting is missing from this install: no {folder / STATUSLINE}"
        )
    print(folder / STATUSLINE)
