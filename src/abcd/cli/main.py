"""The `abcd` command: the root typer app and the one place errors become exit codes.

Exit codes: 0 done; 1 refused (bad input, a limit, the gate, a trust check,
a broken journal), one line on stderr; 2 usage.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Annotated, Any, NoReturn, TextIO

import typer
from typer import Abort
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError

from abcd import __version__
from abcd.cli.app import command_group
from abcd.cli.host_cmd import hook_app, statusline
from abcd.cli.journal_cmd import app as journal_app
from abcd.cli.memory_cmd import app as memory_app
from abcd.cli.names_cmd import app as names_app
from abcd.cli.plugin_cmd import app as plugin_app
from abcd.cli.review_cmd import review
from abcd.cli.rules_cmd import register as register_rules
from abcd.errors import AbcdError
from abcd.terminal import escaped

app = command_group(
    "A memory for AI coding agents that is safe to keep and easy to audit."
    "\n\n\b\nExample:\n  abcd memory list\n  abcd journal verify"
    '\n\nShell completion: eval "$(abcd --show-completion)" in ~/.bashrc or ~/.zshrc (it'
    " prints the script for the shell it runs in).",
    name="abcd",
    add_completion=True,
    no_args_is_help=True,
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
app.add_typer(names_app, name="names")
register_rules(app)
app.add_typer(hook_app, name="hook")
app.add_typer(plugin_app, name="plugin")
app.command("statusline")(statusline)
app.command("review")(review)


def usage_line(err: UsageError) -> str:
    """A usage error as one line: what is wrong, then where the command's help is.

    `Missing option '--title'.` from `abcd memory add` becomes
    `abcd: missing option '--title' (see: abcd memory add --help)`.
    """
    message = " ".join(err.format_message().split()).rstrip(".")
    if message[:1].isupper() and not message[1:2].isupper():
        message = message[0].lower() + message[1:]
    where = err.ctx.command_path if err.ctx is not None else _command_path(sys.argv[1:])
    return f"abcd: {message} (see: {where} --help)"


def _command_path(argv: list[str]) -> str:
    """The command `argv` names (`abcd memory add`), for an error raised before the parser gave
    it a context (an option's missing value): its leading words that name commands."""
    import typer.main

    command: object = typer.main.get_command(app)
    path = ["abcd"]
    for word in argv:
        command = getattr(command, "commands", {}).get(word)
        if command is None:
            break
        path.append(word)
    return " ".join(path)


# What a write to stdout raises when it cannot be written (a full disk, a quota, `> /dev/full`):
# the storage edge names every file abcd writes itself, so such an error unnamed is stdout's.
_OUTPUT_FAILED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


class _OutputClosed(Exception):
    """stdout's (or stderr's) reader closed it: a `BrokenPipeError` carried past click, which
    would end the run with exit 1 itself (an `OSError` of `EPIPE`), before `main` could say
    what stands."""

    def __init__(self, err: BrokenPipeError) -> None:
        super().__init__(err.strerror)
        self.err = err


class _Output:
    """sys.stdout or sys.stderr, its closed pipe raised as `_OutputClosed`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError as err:
            raise _OutputClosed(err) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError as err:
            raise _OutputClosed(err) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main() -> None:
    """Run the app; every error is one `abcd: ...` line on stderr, usage errors exit 2."""
    if sys.stdin is None:  # run with stdin closed (`<&-`): read as empty, as /dev/null is
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (open for the run)
    # A closed stdout or stderr (`>&-`, `2>&-`) writes to nowhere, as the hooks' does: `None`
    # made `emit_json` raise after a write and `print(file=None)` put errors on stdout. Opened
    # in descriptor order, each takes its own number back, never a file the command opens.
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 (the run)
    sys.stdout = _Output(sys.stdout)
    sys.stderr = _Output(sys.stderr)
    try:
        code = app(prog_name="abcd", standalone_mode=False)
        sys.stdout.flush()  # what is still buffered, while a failure can be said
    except NoArgsIsHelpError as err:
        # A group called alone (`abcd`, `abcd journal`): its help, on stdout, and exit 2.
        try:  # a failed stdout (`abcd > /dev/full`) ended here as a traceback and exit 1
            print(err.ctx.get_help() if err.ctx is not None else err.format_message())
            sys.stdout.flush()
        except (OSError, _OutputClosed):
            _discard_stdout()
        sys.exit(2)
    except UsageError as err:
        _error(escaped(usage_line(err), keep=""))
        sys.exit(2)
    except ClickException as err:
        _error(escaped(f"abcd: {' '.join(err.format_message().split())}", keep=""))
        sys.exit(err.exit_code)
    except Abort:
        _error("abcd: stopped")
        sys.exit(1)
    except AbcdError as err:
        # One that failed after its write landed says what stands (a view that could not be
        # written after `journal recover`'s event): the exit reports the failure, the line the
        # write, so an exit of 1 is never read as "nothing was written" when something was.
        stands = _what_stands()
        _error(f"abcd: {escaped(str(err), keep='')}" + (f"; {stands}" if stands else ""))
        sys.exit(err.exit_code)
    except _OutputClosed as closed:
        _output_failed(closed.err)
    except OSError as err:
        if not isinstance(err, BrokenPipeError) and (
            err.filename is not None or err.errno not in _OUTPUT_FAILED
        ):
            raise  # a file's or a socket's error the storage edge did not translate
        _output_failed(err)
    sys.exit(code if isinstance(code, int) else 0)


def _error(text: str) -> None:
    """Say an error on stderr; a stderr that fails too (`2>&1 | true`, `2>/dev/full`) leaves the
    exit to tell, with the error's own code (a usage error's 2 ended as a traceback's 1)."""
    try:
        print(text, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError, _OutputClosed):
        pass


def _discard_stdout() -> None:
    """What is left in stdout's buffer is not written at exit either (no second error)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _what_stands() -> str:
    """What this run wrote, as `what the command did stands: ...`; empty when nothing."""
    from abcd.cli.output import WROTE
    from abcd.journal.store import LANDED

    stands = [f"{name} was written" for name in dict.fromkeys(WROTE)]
    if LANDED:
        events = f"event {LANDED[0]}" if len(LANDED) == 1 else f"events {LANDED[0]} to {LANDED[-1]}"
        stands.insert(0, f"the journal took {events} (abcd journal audit shows it)")
    return f"what the command did stands: {'; '.join(stands)}" if stands else ""


def _output_failed(err: OSError) -> NoReturn:
    """stdout failed: its reader closed it (`| head -1`), or a full disk (`> /dev/full`). A
    command that had written by then says what, and exits 0: it did what it was asked, and an
    exit of 1 promises that nothing was written. One that wrote nothing exits 1, silently for a
    closed pipe (its reader had what it wanted)."""
    _discard_stdout()
    stands = _what_stands()
    said = stands or "the journal took nothing"
    if stands or not isinstance(err, BrokenPipeError):  # stderr may be the same closed pipe
        _error(f"abcd: cannot write the output ({err.strerror}); {said}")
    sys.exit(0 if stands else 1)
