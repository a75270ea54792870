#!/usr/bin/env python3
"""Where one prompt's fixed cost goes: the bundle's run-ahead module by module, and its cold code.

    .venv/bin/python tools/hook_breakdown.py ROOT [--prompt TEXT] [--runs 5]

`ROOT` is a home `tools/bench_hook.py --crowd --root ROOT` built (`ROOT/home`,
`ROOT/project`). Each run starts a session (the session-start hook) and then,
in a fresh interpreter of its own, does what `abcd.entry` does for
`prompt-router` with a clock around each part:

- the run-ahead (`abcd.bundle.Bundle.preload`): each module's unmarshalling,
  its own code (its imports of other modules taken out), and the classes it
  builds (`builtins.__build_class__`); a shared library a module imports
  counts in that module's own time;
- the prompt itself (`abcd.host.hook.main`), and the marshalled bytes of the
  functions the prompt never called (`sys.setprofile`), by module: code the
  prompt unmarshals and never runs.

The child prints one JSON line; this prints the medians over the runs. A
diagnostic, not a benchmark: the profiler slows the prompt it watches, so
its time is not printed, and `tools/bench_hook.py` is the figure to quote.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchlib import TYPICAL_PROMPT, as_installed, start_session

ABCD = str(Path(sys.executable).parent / "abcd")

# Runs in the child: a fresh interpreter, as the hook runs.
CHILD = r"""
import builtins, gc, io, json, marshal, sys, time, types
gc.disable()
import abcd.bundle as B

path = B.bundle_path("prompt-router")
with open(path, "rb") as handle:
    data = handle.read()
entries, eager = B._contents(data)
bundle = B.Bundle(path, entries, eager)
sys.meta_path.insert(0, bundle)
own, unmarshal, classes, stack = {}, {}, {}, []
build_class = builtins.__build_class__

def timed_build_class(*args, **kwargs):
    began = time.perf_counter()
    try:
        return build_class(*args, **kwargs)
    finally:
        if stack:
            name = stack[-1][0]
            classes[name] = classes.get(name, 0.0) + time.perf_counter() - began

def timed_exec(module):
    name = module.__name__
    began = time.perf_counter()
    code = marshal.loads(bundle.entries[name][4])
    unmarshal[name] = time.perf_counter() - began
    stack.append([name, 0.0])
    began = time.perf_counter()
    exec(code, module.__dict__)
    spent = time.perf_counter() - began
    bundle.served.add(name)
    bundle.finished.append(name)
    _, inner = stack.pop()
    own[name] = spent - inner
    if stack:
        stack[-1][1] += spent + unmarshal[name]

bundle.exec_module = timed_exec
builtins.__build_class__ = timed_build_class
began = time.perf_counter()
bundle.preload()
preload = time.perf_counter() - began
builtins.__build_class__ = build_class

import abcd.host.hook as hook

called = set()

def watch(frame, event, arg):
    if event == "call":
        code = frame.f_code
        called.add((code.co_filename, code.co_firstlineno, code.co_name))

sys.setprofile(watch)
hook.main(["prompt-router"], sys.stdin.buffer, io.StringIO(), io.StringIO())
sys.setprofile(None)

def cold(code):
    # Functions never called, by their marshalled size; a class body ran at import: look inside.
    size = 0
    for const in code.co_consts:
        if not isinstance(const, types.CodeType) or const.co_name.startswith("<"):
            continue
        if not const.co_flags & 0x1:  # CO_OPTIMIZED: a function, not a class body
            size += cold(const)
        elif (const.co_filename, const.co_firstlineno, const.co_name) not in called:
            size += len(marshal.dumps(const))
        else:
            size += cold(const)
    return size

loaded = [n for n in entries if n in sys.modules]
print(json.dumps({
    "preload": preload,
    "modules": len(own),
    "bytes": sum(len(entries[n][4]) for n in loaded),
    "own": own,
    "unmarshal": unmarshal,
    "classes": classes,
    "sizes": {n: len(entries[n][4]) for n in loaded},
    "cold": {n: cold(marshal.loads(entries[n][4])) for n in loaded},
}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--prompt", default=TYPICAL_PROMPT)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    home, project = args.root / "home", args.root / "project"
    env = as_installed(ABCD_HOME=str(home))
    runs = []
    for run in range(args.runs + 1):  # the first writes the bundle and the caches
        session = f"breakdown-{os.getpid()}-{run}"
        start_session(ABCD, session, project, env)
        payload = {"session_id": session, "cwd": str(project), "prompt": args.prompt}
        done = subprocess.run(
            [sys.executable, "-c", CHILD],
            input=json.dumps(payload),
            text=True,
            capture_output=True,
            env=env,
            cwd=project,
            check=True,
        )
        if run:
            runs.append(json.loads(done.stdout.splitlines()[-1]))

    def median_ms(values: list[float]) -> float:
        return statistics.median(values) * 1000

    names = list(runs[0]["own"])
    own = {n: median_ms([r["own"][n] for r in runs]) for n in names}
    unmarshal = {n: median_ms([r["unmarshal"][n] for r in runs]) for n in names}
    classes = {n: median_ms([r["classes"].get(n, 0.0) for r in runs]) for n in names}
    cold = runs[0]["cold"]
    print(
        f"run-ahead: {median_ms([r['preload'] for r in runs]):.2f} ms for {runs[0]['modules']} "
        f"modules, {runs[0]['bytes']:,} bytes of code (median of {len(runs)} runs)"
    )
    print(
        f"  unmarshalling {sum(unmarshal.values()):.2f} ms, the modules' own code "
        f"{sum(own.values()):.2f} ms (building classes {sum(classes.values()):.2f} ms)"
    )
    print(f"  never called by this prompt: {sum(cold.values()):,} bytes of functions' code")
    print(
        f"  {'module':32} {'own ms':>7} {'classes':>8} {'unmarshal':>10} {'bytes':>7} {'cold':>7}"
    )
    for name in sorted(names, key=lambda n: -(own[n] + unmarshal[n])):
        print(
            f"  {name:32} {own[name]:7.2f} {classes[name]:8.2f} {unmarshal[name]:10.2f} "
            f"{runs[0]['sizes'].get(name, 0):7,} {cold.get(name, 0):7,}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
