"""The `abcd` console script: the hooks and the status line go straight to their lean modules.

The prompt hook runs on every prompt, the pre-tool-use hook before every Bash
command the agent runs and the status line on every refresh, so none may pay
for the CLI framework: they are dispatched here, before typer is imported. Every other command goes to the typer app.

They are short-lived processes that write through the operating system
only (every file they change is written with `os.write` and renamed or
appended before they return), so they run without the cyclic garbage
collector and leave through `os._exit` once their output is flushed: the
interpreter's teardown, freeing every module and object one by one, costs a
prompt milliseconds and saves nothing (docs/performance.md). Their modules
are served from one file of their code when it is current (`abcd.bundle`):
the import system's work on each of some 42 modules costs a prompt ~2.4 ms.

Whatever the host hands them, they exit 0: a standard stream the host closed
reads as empty or writes to nowhere (and its descriptor is never reused by a
file the command opens), and text that cannot be encoded (a lone surrogate
from a payload's `"\\ud800"`) is written replaced, never raised.
"""

import sys

_HELP = {"-h", "--help"}
# The lean commands with a bundle of their own (`abcd.bundle`); another hook name shares one.
_BUNDLED = {"prompt-router", "session-start", "pre-compact", "pre-tool-use", "statusline"}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn, TextIO

    from abcd.bundle import Bundle


def _bundled(command: str) -> "Bundle | None":
    """Serve the lean command's modules from its bundle (`abcd.bundle`), when it can; from here on
    the cyclic garbage collector is off (its passes over every object the imports create cost a
    prompt ~1 ms, and a lean command frees nothing it would find)."""
    import gc

    gc.disable()
    try:
        from abcd.bundle import install

        return install(command if command in _BUNDLED else "hook")
    except Exception:  # the import system serves them instead
        return None


def _lean(
    run: "Callable[[list[str], Any, TextIO, TextIO], int]",
    argv: list[str],
    bundle: "Bundle | None" = None,
) -> "NoReturn":
    """Run a lean command's `main(argv, stdin, stdout, stderr)` and leave without teardown
    (once its output is flushed, `bundle` is written again if a module it loaded was not in it)."""
    from abcd import leanos as os

    _standard_streams()
    if bundle is not None:
        bundle.settle()  # what the command's module imports, every run of it loads
    try:
        code = run(argv, sys.stdin.buffer, sys.stdout, sys.stderr)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # the host closed the pipe: nothing more can be said
    if bundle is not None:
        bundle.save()
    os._exit(code)


def _standard_streams() -> None:
    """Open a closed stdin, stdout or stderr on the null device (in descriptor order, so each takes
    its own number back) and make stdout and stderr replace what they cannot encode."""
    from abcd import leanos as os

    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - as stdin
            setattr(sys, name, stream)
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main() -> None:
    argv = sys.argv[1:]
    if argv[:2] == ["hook", "pre-tool-use"] and not _HELP.intersection(argv[2:]):
        bundle = _bundled("pre-tool-use")
        from abcd.host.pretool import main as pretool_main

        _lean(pretool_main, argv[1:], bundle)
    if len(argv) >= 2 and argv[0] == "hook" and not _HELP.intersection(argv[1:]):
        bundle = _bundled(argv[1])
        from abcd.host.hook import main as hook_main

        _lean(hook_main, argv[1:], bundle)
    if argv[:1] == ["statusline"] and not _HELP.intersection(argv[1:]):
        bundle = _bundled("statusline")
        from abcd.host.statusline import main as statusline_main

        _lean(statusline_main, argv[1:], bundle)
    from abcd.cli.main import main as cli_main

    cli_main()
