"""The `abcd` console script: the hooks and the status line go straight to their lean modules.

The prompt hook runs on every prompt and the status line on every refresh,
so neither may pay for the CLI framework: they are dispatched here, before
typer is imported. Every other command goes to the typer app.
"""

from __future__ import annotations

import sys

_HELP = {"-h", "--help"}


def main() -> None:
    argv = sys.argv[1:]
    if len(argv) >= 2 and argv[0] == "hook" and not _HELP.intersection(argv[1:]):
        from abcd.host.hook import main as hook_main

        sys.exit(hook_main(argv[1:], sys.stdin.buffer, sys.stdout, sys.stderr))
    if argv[:1] == ["statusline"] and not _HELP.intersection(argv[1:]):
        from abcd.host.statusline import main as statusline_main

        sys.exit(statusline_main(argv[1:], sys.stdin.buffer, sys.stdout, sys.stderr))
    from abcd.cli.main import main as cli_main

    cli_main()
