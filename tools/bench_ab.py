#!/usr/bin/env python3
"""Two or more trees of abcd's code, timed against each other on one prompt, alternating.

    .venv/bin/python tools/bench_ab.py PROMPT NAME=SRC:ROOT [NAME=SRC:ROOT ...] [--runs N]

Each `SRC` is a tree's `src` folder (for example `git archive REV src | tar -x
-C /tmp/rev`), put first on `PYTHONPATH` for the installed console script;
each `ROOT` a home built by `tools/bench_hook.py --root` (`ROOT/home`,
`ROOT/project`), one for each tree, since a tree may rebuild the index or
the caches in a format of its own. Each run starts a new session (the
session-start hook, untimed) and times `abcd hook prompt-router`, the trees
in turn and then `python -I -c pass`, so the machine's drift is shared.
`{new}` in the prompt becomes a word no earlier run used. Prints each one's
median, least, and median CPU time, and the ratio of the medians to `pass`.
Bytecode writing is allowed, as on a person's machine (each tree's bundle is
written on its first run).

`--as-launched` times each tree as the plugin's launcher starts the hook in an
install (`plugin/hooks/abcd-hook`): this environment's Python with `-S` and
the launcher's own `-c` program, this environment's site-packages last on the
path, no console script and no `site` (which loads `os` for every process).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from benchlib import as_installed, start_session

ABCD = str(Path(sys.executable).parent / "abcd")
LAUNCHER = Path(__file__).resolve().parent.parent / "src/abcd/plugin/hooks/abcd-hook"


def as_launched() -> list[str]:
    """The command the launcher runs for this environment, up to the hook's own arguments."""
    found = re.search(r"-S -c '(.*?)' \"\$packages\"", LAUNCHER.read_text(), re.DOTALL)
    assert found is not None, f"{LAUNCHER} runs no Python directly"
    return [sys.executable, "-S", "-c", found.group(1), sysconfig.get_paths()["purelib"]]


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(argv: list[str], stdin: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process."""
    cpu, began = _cpu(), time.perf_counter()
    subprocess.run(argv, input=stdin, text=True, capture_output=True, env=env, check=True)
    return time.perf_counter() - began, _cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("prompt")
    parser.add_argument("trees", nargs="+", help="NAME=SRC:ROOT")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument(
        "--as-launched", action="store_true", help="as the plugin's launcher runs it"
    )
    args = parser.parse_args()
    command = (
        [*as_launched(), "hook", "prompt-router"]
        if args.as_launched
        else [ABCD, "hook", "prompt-router"]
    )
    trees: dict[str, tuple[str, Path]] = {}
    for spec in args.trees:
        name, _, rest = spec.partition("=")
        src, _, root = rest.partition(":")
        trees[name] = (src, Path(root))
    base = as_installed()
    wall: dict[str, list[float]] = {name: [] for name in [*trees, "pass"]}
    cpu: dict[str, list[float]] = {name: [] for name in wall}
    for run in range(args.runs):
        for name, (src, root) in trees.items():
            env = dict(base, ABCD_HOME=str(root / "home"), PYTHONPATH=src)
            session = f"ab-{name}-{run}-{time.time_ns()}"
            cwd = str(root / "project")
            start_session(ABCD, session, cwd, env)
            prompt = args.prompt.replace("{new}", f"zq{run:x}{len(name):x}")
            payload = json.dumps({"session_id": session, "cwd": cwd, "prompt": prompt})
            took, used = timed(command, payload, env)
            wall[name].append(took)
            cpu[name].append(used)
        took, used = timed([sys.executable, "-I", "-c", "pass"], "", base)
        wall["pass"].append(took)
        cpu["pass"].append(used)
    floor = statistics.median(wall["pass"])
    for name, times in wall.items():
        median = statistics.median(times)
        print(
            f"{name:8s} {median * 1000:6.2f} ms  {median / floor:.3f}x  least {min(times) * 1000:.2f}"
            f"  cpu {statistics.median(cpu[name]) * 1000:.2f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
