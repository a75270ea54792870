"""`abcd hook ...` and `abcd statusline` as the CLI lists them.

The console script sends these straight to `abcd.host` before typer is
imported (`abcd.entry`); these commands exist so that `--help` documents them
and so that `python -m abcd` and the typer app reach the same code.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from abcd.cli.app import command_group

hook_app = command_group(
    "The host's hooks: read the hook payload on stdin; never block a prompt (always exit 0)."
    '\n\n\b\nExample:\n  echo \'{"session_id": "s-1", "prompt": "run the tests"}\''
    " | abcd hook prompt-router --json",
    no_args_is_help=True,
)


def _run_hook(event: str, as_json: bool = False) -> None:
    from abcd.host.hook import main

    raise typer.Exit(
        main([event, *(["--json"] if as_json else [])], sys.stdin.buffer, sys.stdout, sys.stderr)
    )


@hook_app.command("session-start")
def session_start() -> None:
    """SessionStart: reset the session's ledger, prepare the fill folder, sweep stale session files.

    \b
    Example:
      echo '{"session_id": "s-1", "cwd": "'"$PWD"'"}' | abcd hook session-start
    """
    _run_hook("session-start")


@hook_app.command("prompt-router")
def prompt_router(
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='Print {"text", "injected", "recalled", "fill", "bracket"} instead of the text.',
        ),
    ] = False,
) -> None:
    """UserPromptSubmit: print the rules, notes and pages this prompt brings back.

    \b
    Example:
      echo '{"session_id": "s-1", "cwd": "'"$PWD"'", "prompt": "run the tests"}' \\
          | abcd hook prompt-router
    """
    _run_hook("prompt-router", as_json)


@hook_app.command("pre-compact")
def pre_compact() -> None:
    """PreCompact: reset the session's ledger, so what was sent comes back after the compaction.

    \b
    Example:
      echo '{"session_id": "s-1", "cwd": "'"$PWD"'"}' | abcd hook pre-compact
    """
    _run_hook("pre-compact")


@hook_app.command("pre-tool-use")
def pre_tool_use() -> None:
    """PreToolUse (Bash): allow the agent's `abcd memory add` unasked; print nothing for anything else.

    \b
    Example:
      echo '{"tool_name": "Bash", "tool_input": {"command": "ls"}}' | abcd hook pre-tool-use
    """
    from abcd.host.pretool import main

    raise typer.Exit(main(["pre-tool-use"], sys.stdin.buffer, sys.stdout, sys.stderr))


def statusline(
    pass_through: Annotated[
        str | None,
        typer.Option(
            "--pass-through",
            metavar="COMMAND",
            help="Run this status command instead, with the same stdin; write nothing.",
        ),
    ] = None,
) -> None:
    """Print one status row from the host's status JSON on stdin; record how full the session is.

    \b
    Example (in your Claude Code settings):
      "statusLine": {"type": "command", "command": "abcd statusline"}
    """
    from abcd.host.statusline import main

    argv = ["--pass-through", pass_through] if pass_through is not None else []
    raise typer.Exit(main(argv, sys.stdin.buffer, sys.stdout, sys.stderr))
