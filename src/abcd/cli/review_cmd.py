"""`abcd review`: the reviewer's desk, a local web page a person opens from a terminal.

Thin: it checks that a person is at a terminal and hands over to
`abcd.web.run`, imported only here, so no other command pays for the web
layer (Jinja2, http.server).
"""

from __future__ import annotations

from typing import Annotated

import typer

from abcd.cli.output import at_terminal
from abcd.errors import Refused


def review(
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the desk's URL; open no browser.")
    ] = False,
) -> None:
    """Open the reviewer's desk: the queue, each note's story, the journal's timeline.

    Serves on 127.0.0.1 at a free port until Ctrl-C. The printed URL holds a
    token made for this run; the desk answers nothing without it. Only a
    person at a terminal can start it.

    \b
    Example:
      abcd review --no-browser
    """
    if not at_terminal():
        raise Refused(
            "not at a terminal",
            message="refused: abcd review is a person's desk: start it at a terminal "
            "(stdin and stdout are not one here)",
        )
    from abcd.web.run import serve

    serve(open_browser=not no_browser)
