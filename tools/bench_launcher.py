#!/usr/bin/env python3
"""The prompt hook as the host starts it, through the plugin's launcher, in an installed abcd.

    .venv/bin/python tools/bench_launcher.py ROOT [--runs 30] [--prompt TEXT] [--before FILE]

`ROOT` is a home `tools/bench_hook.py --crowd --root ROOT` built (`ROOT/home`,
`ROOT/project`). This lays abcd out as an installer does, once for each
console script installers write (`tests/installed.py`: pip 25.0 and later,
pip before 25.0, pipx), each a venv of its own with this checkout's code, and
times, alternating, each layout's

- `console script`: `<prefix>/bin/abcd hook prompt-router`, what
  `tools/bench_hook.py` times;
- `exec form`: `<plugin>/hooks/prompt-router --exec-form`, spawned with no shell: what a
  host that knows exec-form hooks (Claude Code 2.1.139 and later) runs for
  `hooks.json`;
- `shell form`: `/bin/sh -c 'sh "$CLAUDE_PLUGIN_ROOT/hooks/abcd-hook"
  prompt-router'`, how a host ran the `hooks.json` before this one (a
  command string, through `/bin/sh -c`), with this launcher;
- `its python alone`: what the launcher runs, without `sh` around it (the
  figure to set beside `console script`);
- `launcher before` (with `--before FILE`): `FILE` as the launcher of a layout
  of its own, for example an earlier one
  (`git show REV:src/abcd/plugin/hooks/abcd-hook > FILE`), started as the host
  started the `hooks.json` it shipped with: in exec form when it knows that
  form (`--exec-form`), else in the shell form;

and `python -I -c pass`. Each run starts a new session first (untimed), so
each prompt is the first of its session. Prints each one's median and its
ratio to `pass`'s. Bytecode writing is allowed, as on a person's machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from benchlib import TYPICAL_PROMPT, as_installed, start_session, timed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.installed import CONSOLE_SCRIPTS, direct, laid_out, launcher_of


def shell_form(launcher: Path) -> list[str]:
    """A `hooks.json` command string run as a host runs one: `/bin/sh -c`, the path quoted."""
    return ["/bin/sh", "-c", f'sh "{launcher}" prompt-router']


def before(launcher: Path, work: Path, form: str) -> tuple[list[str], str]:
    """`launcher` in a layout of its own (the same code, console script `form`), started as the
    host started the `hooks.json` it came with: the hook's own file in exec form when it knows
    that form, else the shell form. The command and its console script."""
    prefix = work / ("before-" + form.replace("<", "-before-"))
    script = str(laid_out(prefix, form))
    shutil.copy(launcher, launcher_of(prefix))
    if "--exec-form" in launcher.read_text():
        return [str(launcher_of(prefix).with_name("prompt-router")), "--exec-form"], script
    return shell_form(launcher_of(prefix)), script


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--prompt", default=TYPICAL_PROMPT)
    parser.add_argument("--before", type=Path, help="an earlier launcher to time beside this one")
    args = parser.parse_args()
    home, project = args.root / "home", args.root / "project"
    env = as_installed(ABCD_HOME=str(home))
    work = Path(tempfile.mkdtemp(prefix="bench-launcher-"))
    try:
        # Each timed command, by name, with the console script its session is started with.
        commands: dict[str, tuple[list[str], str]] = {}
        for form in CONSOLE_SCRIPTS:
            prefix = work / form.replace("<", "-before-")
            script = str(laid_out(prefix, form))
            launcher = launcher_of(prefix)
            commands[f"{form:7s} console script"] = ([script, "hook", "prompt-router"], script)
            commands[f"{form:7s} exec form"] = (
                [str(launcher.with_name("prompt-router")), "--exec-form"],
                script,
            )
            commands[f"{form:7s} shell form"] = (shell_form(launcher), script)
            commands[f"{form:7s} its python alone"] = (
                [*direct(prefix), "hook", "prompt-router"],
                script,
            )
            if args.before is not None:
                commands[f"{form:7s} launcher before"] = before(args.before, work, form)
        times: dict[str, list[float]] = {name: [] for name in [*commands, "pass"]}
        for run in range(args.runs + 2):  # the first two write each layout's bundle and caches
            for number, (name, (argv, script)) in enumerate(commands.items()):
                session = f"launcher-{os.getpid()}-{run}-{number}"
                start_session(script, session, project, env)
                payload = json.dumps(
                    {"session_id": session, "cwd": str(project), "prompt": args.prompt}
                )
                spent = timed(argv, stdin=payload, env=env, cwd=project)
                if run >= 2:
                    times[name].append(spent)
            spent = timed([sys.executable, "-I", "-c", "pass"], env=env)
            if run >= 2:
                times["pass"].append(spent)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(times["pass"])
    print(f"prompt: {args.prompt!r}; {args.runs} runs each, each the first prompt of its session")
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"  {name:30s} median {median * 1000:6.2f} ms  {median / base:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
