#!/usr/bin/env python3
"""What a `#!/bin/sh` file in front of a Python costs, waiting on it or replaced by it (`exec`).

    .venv/bin/python tools/bench_shell.py [--runs 200]

The plugin's hook files are `sh` scripts that start the hook's Python. This
times, alternating, a Python that does nothing (`python -S -c pass`, this
interpreter) started

- `directly`;
- `sh, exec`: by a `#!/bin/sh` file whose one line is `exec python ...`, as the
  launcher starts the environment's Python;
- `sh, waits`: by one that runs it, waits, and exits with its status, as the
  launcher runs a console script (so it can turn exit 2 into 1);

and `sh -c :` alone. Prints each one's median and the difference from
`directly`. The differences are the figures: a prompt's whole run varies by
more than they are.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

from benchlib import timed


def script(folder: Path, name: str, body: str) -> list[str]:
    """An executable `#!/bin/sh` file `name` in `folder` holding `body`, as a command."""
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return [str(path)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    python = shlex.quote(sys.executable)
    with tempfile.TemporaryDirectory(prefix="bench-shell-") as work:
        folder = Path(work)
        commands = {
            "directly": [sys.executable, "-S", "-c", "pass"],
            "sh, exec": script(folder, "exec", f"exec {python} -S -c pass"),
            "sh, waits": script(folder, "waits", f'{python} -S -c pass\nstatus=$?\nexit "$status"'),
            "sh -c :": ["/bin/sh", "-c", ":"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for run in range(args.runs + 5):  # the first few fill the page cache
            for name, argv in commands.items():
                spent = timed(argv)
                if run >= 5:
                    times[name].append(spent)
    base = statistics.median(times["directly"])
    print(f"{args.runs} runs each, alternating; medians")
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"  {name:10s} {median * 1000:6.3f} ms  {(median - base) * 1000:+6.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
