"""Small output helpers shared by the commands: JSON to stdout, notices to stderr, and
whether a person is at the terminal."""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from abcd.terminal import escaped

# Files outside the journal this command wrote (the journal's own events: `abcd.journal.store.
# LANDED`): the CLI says they stand when its output fails after them (`abcd.cli.main`).
WROTE: list[str] = []


def emit_json(value: Any) -> None:
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(value).decode(), indent=2) + "\n")


def notice(text: str) -> None:
    """One line on stderr, prefixed so a person sees which tool said it, control characters
    shown escaped (`abcd.terminal`)."""
    print(f"abcd: {escaped(text, keep='')}", file=sys.stderr)


def at_terminal(asks_on_stderr: bool = False) -> bool:
    """Whether a person is at this command's terminal: stdin and stdout are both one.

    A person's acts (`abcd memory promote`, `abcd review`) are refused
    otherwise: an agent's tool, a script or a hook runs without one. A
    command that asks on stderr (`abcd journal recover --json`, whose stdout
    is for a program) needs stdin and stderr instead.
    """
    return sys.stdin.isatty() and (sys.stderr if asks_on_stderr else sys.stdout).isatty()
