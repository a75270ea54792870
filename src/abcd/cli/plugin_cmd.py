"""`abcd plugin path`: where the Claude Code plugin that ships inside this package lives.

The plugin folder (`abcd/plugin/`: manifest, hooks, the `/abcd:memory` page) is
installed with the package; the host loads it from there (`claude --plugin-dir
"$(abcd plugin path)"`). Nothing here writes anywhere, least of all the host's
own configuration folder.
"""

from __future__ import annotations

from pathlib import Path

import typer

from abcd.errors import AbcdError

MANIFEST = Path(".claude-plugin") / "plugin.json"

app = typer.Typer(
    help="The Claude Code plugin that ships with abcd.",
    no_args_is_help=True,
    add_completion=False,
)


def plugin_dir() -> Path:
    """The plugin folder inside the installed package (it holds `.claude-plugin/plugin.json`)."""
    return Path(__file__).resolve().parent.parent / "plugin"


@app.command()
def path() -> None:
    """Print the plugin folder, for `claude --plugin-dir` or a local plugin marketplace."""
    folder = plugin_dir()
    if not (folder / MANIFEST).is_file():
        raise AbcdError(f"the plugin folder is missing from this install: no {folder / MANIFEST}")
    print(folder)
