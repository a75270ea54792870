"""The hook launcher in an install: the environment's own Python, started without `site`.

Each test lays abcd out as an installer does (tests/installed.py: a venv, the
package in its site-packages, a console script) and runs the plugin's
launcher as the host does, the file `<plugin>/hooks/HOOK`, with a PATH holding no
`abcd`. `sh -x` shows which way it started abcd.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import Stemmer

from tests.installed import (
    BARE_PATH,
    direct,
    imported_modules,
    laid_out,
    launcher_of,
    site_packages,
)

FAST = " -S -c "  # in the launcher's trace: the environment's Python, run directly


Hook = Callable[[str, dict[str, str]], subprocess.CompletedProcess[str]]


def _run(
    argv: list[str],
    payload: dict[str, str],
    home: Path,
    cwd: Path,
    env: dict[str, str] | None = None,
) -> Any:
    return subprocess.run(
        argv,
        input=json.dumps(payload),
        env={"PATH": BARE_PATH, "HOME": str(home.parent), "ABCD_HOME": str(home), **(env or {})},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def through_the_launcher(
    prefix: Path,
    home: Path,
    cwd: Path,
    hooks: Path | None = None,
    env: dict[str, str] | None = None,
) -> Hook:
    """A hook run as the host runs it: `<plugin>/hooks/HOOK`, the file for the hook, traced (its
    own `#!/bin/sh`, with `-x`); `hooks` names that folder another way, `env` adds variables."""
    folder = hooks or launcher_of(prefix).parent
    return lambda hook, payload: _run(["sh", "-x", str(folder / hook)], payload, home, cwd, env)


def through_the_console_script(script: Path, home: Path, cwd: Path) -> Hook:
    return lambda hook, payload: _run([str(script), "hook", hook], payload, home, cwd)


def a_note(script: Path, home: Path) -> None:
    """One note in `home`, recalled by "flaky", written through the install's own CLI."""
    home.parent.mkdir(parents=True, exist_ok=True)
    added = subprocess.run(
        [
            str(script),
            "memory",
            "add",
            "--title",
            "Run the flaky suite with --retries 3",
            "--recall",
            "flaky",
            "--recall",
            "retries",
            "--by",
            "person",
            "--everywhere",
        ],
        input="The suite has two tests that fail one run in ten.",
        env={"PATH": BARE_PATH, "HOME": str(home.parent), "ABCD_HOME": str(home)},
        cwd=home.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert added.returncode == 0, added.stderr


def recalled(hook: Hook, cwd: Path, session: str) -> subprocess.CompletedProcess[str]:
    """A session started and one prompt in it, the prompt's run."""
    start = {"session_id": session, "cwd": str(cwd), "source": "startup"}
    started = hook("session-start", start)
    assert started.returncode == 0, started.stderr
    return hook(
        "prompt-router",
        {"session_id": session, "cwd": str(cwd), "prompt": "the suite is flaky again"},
    )


@pytest.mark.parametrize("script", ["pip", "pip<25", "pipx"])
def test_an_installed_launcher_runs_the_environments_python_and_recalls_what_the_console_script_does(
    tmp_path: Path, script: str
) -> None:
    prefix, home, project = tmp_path / "venv", tmp_path / "h" / "abcd-home", tmp_path / "project"
    project.mkdir()
    abcd = laid_out(prefix, script)
    a_note(abcd, home)

    fast = recalled(through_the_launcher(prefix, home, project), project, "s-fast")
    slow = recalled(through_the_console_script(abcd, home, project), project, "s-console")

    assert fast.returncode == 0, fast.stderr
    assert FAST in fast.stderr, "the launcher ran the environment's Python directly"
    assert "pwd -P" not in fast.stderr, "the path the host gave was read as it is, with no fork"
    assert "Run the flaky suite" in fast.stdout
    assert fast.stdout == slow.stdout
    # The hook's own report on stderr is the same (`sh -x` adds its trace around it).
    said = [line for line in fast.stderr.splitlines() if line.startswith("abcd")]
    assert said == slow.stderr.splitlines()


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc")
def test_the_process_the_host_starts_becomes_the_python_itself(tmp_path: Path) -> None:
    """`exec`: no shell is left waiting on the Python (~0.3 ms a prompt), and the Python's exit
    status is the hook's."""
    prefix, home, project = tmp_path / "venv", tmp_path / "h" / "abcd-home", tmp_path / "project"
    project.mkdir()
    a_note(laid_out(prefix), home)
    hook = launcher_of(prefix).parent / "prompt-router"
    env = {"PATH": BARE_PATH, "HOME": str(home.parent), "ABCD_HOME": str(home)}
    argv = b""
    with subprocess.Popen(
        [str(hook), "--exec-form"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=project,
        text=True,
    ) as started:
        # The hook waits on its payload, so the process stays to be looked at until it is sent.
        deadline = time.monotonic() + 30
        while b"\0-S\0-c\0" not in argv and time.monotonic() < deadline:
            argv = Path(f"/proc/{started.pid}/cmdline").read_bytes()
            time.sleep(0.001)
        payload = {"session_id": "s-exec", "cwd": str(project), "prompt": "flaky again"}
        out, err = started.communicate(json.dumps(payload), timeout=60)

    assert argv.split(b"\0")[0] == bytes(prefix / "bin" / "python"), argv
    assert started.returncode == 0, err
    assert "Run the flaky suite" in out


def test_a_plugin_path_with_a_dot_dot_in_it_is_resolved_first_and_still_starts_the_python(
    tmp_path: Path,
) -> None:
    prefix, home, project = tmp_path / "venv", tmp_path / "h" / "abcd-home", tmp_path / "project"
    project.mkdir()
    abcd = laid_out(prefix)
    a_note(abcd, home)
    hooks = launcher_of(prefix).parent
    roundabout = hooks.parent / ".." / "plugin" / "hooks"

    out = recalled(through_the_launcher(prefix, home, project, roundabout), project, "s-dots")

    assert out.returncode == 0, out.stderr
    assert "pwd -P" in out.stderr
    assert FAST in out.stderr
    assert "Run the flaky suite" in out.stdout


def test_a_dependency_outside_the_site_packages_is_found_on_the_paths_site_adds(
    tmp_path: Path,
) -> None:
    """PyStemmer reached only through a `.pth` file (as a venv that sees the system's packages
    reaches them): the hook looks again once `site` has added its paths, and recalls."""
    prefix, home, project = tmp_path / "venv", tmp_path / "h" / "abcd-home", tmp_path / "project"
    project.mkdir()
    abcd = laid_out(prefix, stemmer=False)
    elsewhere = tmp_path / "system-packages"
    elsewhere.mkdir()
    (elsewhere / Path(Stemmer.__file__).name).symlink_to(Stemmer.__file__)
    (site_packages(prefix) / "system.pth").write_text(f"{elsewhere}\n")
    a_note(abcd, home)

    out = recalled(through_the_launcher(prefix, home, project), project, "s-pth")

    assert out.returncode == 0, out.stderr
    assert FAST in out.stderr
    assert "Traceback" not in out.stderr
    assert "Run the flaky suite" in out.stdout


def test_an_install_holding_everything_never_reads_site(tmp_path: Path) -> None:
    """What the launcher saves: in an install with every dependency beside abcd, no prompt (nor
    session start) imports `site` (`-X importtime` names every module a process imports)."""
    prefix, home, project = tmp_path / "venv", tmp_path / "h" / "abcd-home", tmp_path / "project"
    project.mkdir()
    a_note(laid_out(prefix), home)
    python, *rest = direct(prefix)

    def traced(hook: str, payload: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return _run([python, "-X", "importtime", *rest, "hook", hook], payload, home, project)

    start = {"session_id": "s-direct", "cwd": str(project), "source": "startup"}
    started = traced("session-start", start)
    out = traced("prompt-router", {**start, "prompt": "the suite is flaky again"})

    assert started.returncode == 0 and out.returncode == 0, started.stderr + out.stderr
    assert "Run the flaky suite" in out.stdout
    assert "Stemmer" in imported_modules(out.stderr)
    assert "site" not in imported_modules(started.stderr) + imported_modules(out.stderr)
    assert "encodings" in imported_modules(started.stderr), (
        "-X importtime reported the session start's imports"
    )


@pytest.mark.parametrize(
    "first_lines",
    [
        "#!/bin/sh\n",  # not a Python
        "#!{prefix}/bin/python -X importtime\n",  # flags the launcher does not pass on
        "#!{prefix}/bin/python -Wignore\n",  # a flag with a value
        "#!{prefix}/bin/python --\n",
        "#!/bin/sh\n'''exec' '{prefix}/bin/python' \"$0\" \"$@\"\n' '''\n",  # pip's form for long paths
    ],
)
def test_a_console_script_the_launcher_cannot_read_as_the_environments_python_is_run_as_it_is(
    tmp_path: Path, first_lines: str
) -> None:
    prefix, home = tmp_path / "venv", tmp_path / "h" / "abcd-home"
    abcd = laid_out(prefix)
    head = first_lines.format(prefix=prefix)
    if head == "#!/bin/sh\n":
        body = 'echo "console script: $*"\n'
    else:
        body = "import sys\nprint('console script:', *sys.argv[1:])\n"
    abcd.write_text(head + body)

    out = through_the_launcher(prefix, home, tmp_path)("pre-compact", {})

    assert out.returncode == 0, out.stderr
    assert out.stdout == "console script: hook pre-compact\n"
    assert FAST not in out.stderr


def test_a_project_holding_modules_named_like_the_hooks_own_runs_none_of_them(
    tmp_path: Path,
) -> None:
    """The working folder is the person's project: nothing in it is imported (`-P`)."""
    prefix, home, project = tmp_path / "venv", tmp_path / "h" / "abcd-home", tmp_path / "project"
    abcd = laid_out(prefix)
    a_note(abcd, home)
    marker = tmp_path / "imported-from-the-project"
    planted = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for name in ("Stemmer.py", "site.py", "marshal.py", "abcd/__init__.py", "abcd/entry.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(planted)

    out = recalled(through_the_launcher(prefix, home, project), project, "s-planted")

    assert out.returncode == 0, out.stderr
    assert FAST in out.stderr
    assert "Run the flaky suite" in out.stdout
    assert not marker.exists(), marker.read_text()


@pytest.mark.parametrize("way", ["python", "console script"])
@pytest.mark.parametrize(
    "pythonpath", [":{elsewhere}", "{elsewhere}:", ".", "lib:{elsewhere}", "::"]
)
def test_a_pythonpath_naming_the_working_folder_still_runs_nothing_from_the_project(
    tmp_path: Path, way: str, pythonpath: str
) -> None:
    """An empty or relative `PYTHONPATH` entry (`export PYTHONPATH=$PYTHONPATH:/x` with none set
    before leaves one) names a folder in the working folder, the person's project, which Python
    searches before the standard library and the install: the launcher passes on only absolute
    entries, whichever way it then starts abcd."""
    prefix, home, project = tmp_path / "venv", tmp_path / "h" / "abcd-home", tmp_path / "project"
    abcd = laid_out(prefix)
    a_note(abcd, home)
    if way == "console script":  # pip's form for a long path, which the launcher runs as it is
        body = abcd.read_text().split("\n", 1)[1]
        abcd.write_text(f"#!/bin/sh\n'''exec' '{prefix}/bin/python' \"$0\" \"$@\"\n' '''\n{body}")
    marker = tmp_path / "imported-from-the-project"
    planted = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for folder in (project, project / "lib"):
        for name in ("Stemmer.py", "json.py", "struct.py", "abcd/__init__.py", "abcd/entry.py"):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(planted)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PYTHONPATH": pythonpath.format(elsewhere=elsewhere)}

    out = recalled(through_the_launcher(prefix, home, project, env=env), project, "s-pythonpath")

    assert out.returncode == 0, out.stderr
    assert (FAST in out.stderr) == (way == "python")
    assert "Run the flaky suite" in out.stdout
    assert not marker.exists(), marker.read_text()


def test_the_pre_tool_use_hook_runs_the_same_way_and_allows_the_captured_note_command(
    tmp_path: Path,
) -> None:
    prefix, home = tmp_path / "venv", tmp_path / "h" / "abcd-home"
    laid_out(prefix)
    captured = Path(__file__).parent / "host" / "data" / "hook_PreToolUse_bash.json"

    out = through_the_launcher(prefix, home, tmp_path)(
        "pre-tool-use", json.loads(captured.read_text())
    )

    assert out.returncode == 0, out.stderr
    assert FAST in out.stderr
    assert json.loads(out.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
