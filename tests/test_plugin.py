"""The Claude Code plugin that ships in the package: its manifest, hook wiring, launcher and page."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import abcd
from abcd.cli import plugin_cmd
from abcd.cli.memory_cmd import app as memory_app
from abcd.errors import AbcdError
from tests.conftest import Run, git, shell_prefix

PLUGIN = plugin_cmd.plugin_dir()
PAGE = PLUGIN / "commands" / "memory.md"
LAUNCHER = PLUGIN / "hooks" / "abcd-hook"
WIRING = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt-router",
    "PreCompact": "pre-compact",
    "PreToolUse": "pre-tool-use",
}
# Only the PreToolUse hook is narrowed, to the calls of the agent's Bash tool.
MATCHERS = {"PreToolUse": "Bash"}


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


# The manifest and the hook wiring


def test_the_manifest_names_the_plugin_abcd_at_the_packages_version() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())

    assert manifest["name"] == "abcd", "the page is then /abcd:memory"
    assert manifest["version"] == abcd.__version__
    assert manifest["description"]


def test_hooks_json_wires_exactly_the_four_events_to_the_four_hook_commands() -> None:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]

    assert set(hooks) == set(WIRING)
    for event, hook in WIRING.items():
        (group,) = hooks[event]
        (entry,) = group["hooks"]
        assert entry["type"] == "command"
        # Exec form: the host starts the file itself, with no shell to parse the path.
        assert entry["command"] == f"${{CLAUDE_PLUGIN_ROOT}}/hooks/{hook}"
        assert entry["args"] == ["--exec-form"]
        assert group.get("matcher") == MATCHERS.get(event), f"{event}'s matcher"


@pytest.mark.parametrize("hook", WIRING.values())
def test_each_hooks_file_is_executable_and_runs_the_launcher_for_its_hook(
    hook: str, tmp_path: Path
) -> None:
    on_path = fake_abcd(tmp_path / "bin", "on PATH")
    started = PLUGIN / "hooks" / hook
    assert started.stat().st_mode & 0o111 == 0o111, "the host spawns the file itself"
    assert started.read_text() == (PLUGIN / "hooks" / "prompt-router").read_text(), (
        "one file, four names"
    )

    for argv in ([str(started), "--exec-form"], ["/bin/sh", "-c", str(started)]):  # as hosts do
        out = run_hook(argv, path=[on_path], stdin="{}")
        assert (out.returncode, out.stdout, out.stderr) == (0, f"on PATH: hook {hook}\n{{}}", "")


@pytest.mark.parametrize("flags", ["", " -v"])
def test_in_exec_form_a_hook_goes_through_the_persons_shell_prefix_as_a_shell_form_one_does(
    tmp_path: Path, flags: str
) -> None:
    """The host puts CLAUDE_CODE_SHELL_PREFIX in front of a command string only (its last ` -...`
    split off as flags, then the command quoted); the launcher does the same for exec form."""
    on_path = fake_abcd(tmp_path / "bin", "on PATH")
    wrapper = shell_prefix(tmp_path / "it's a wrapper")
    started = PLUGIN / "hooks" / "prompt-router"
    prefix = {"CLAUDE_CODE_SHELL_PREFIX": f"{wrapper}{flags}"}

    out = run_hook([str(started), "--exec-form"], path=[on_path], stdin="{}", env=prefix)

    assert (out.returncode, out.stdout, out.stderr) == (0, "on PATH: hook prompt-router\n{}", "")
    assert (wrapper.parent / "log").read_text().splitlines() == [*flags.split(), str(started)]


@pytest.mark.parametrize(
    "folder", ["dollar $(touch made)", "quote ' single", "space and `touch made`"]
)
def test_with_a_shell_prefix_a_plugin_path_holding_shell_characters_is_a_path_never_code(
    tmp_path: Path, folder: str
) -> None:
    """The wrapper runs its last word as a command string through a shell of its own: the raw
    path went there, so a `$(...)` in the plugin's path ran and a lone quote was a syntax
    error, exit 2, a blocked prompt. The path now goes as a command that names it."""
    on_path = fake_abcd(tmp_path / "bin", "on PATH")
    wrapper = shell_prefix(tmp_path / "audit")
    copy = tmp_path / folder / "plugin"
    shutil.copytree(PLUGIN, copy)
    started = copy / "hooks" / "prompt-router"
    prefix = {"CLAUDE_CODE_SHELL_PREFIX": str(wrapper)}

    out = subprocess.run(
        [str(started), "--exec-form"],
        input="{}",
        env={"PATH": f"{on_path}:/usr/bin:/bin", **prefix},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )

    assert (out.returncode, out.stdout, out.stderr) == (0, "on PATH: hook prompt-router\n{}", "")
    assert not (tmp_path / "made").exists()
    logged = (wrapper.parent / "log").read_text().splitlines()
    assert len(logged) == 1 and shlex.split(logged[0]) == [str(started)]  # a command naming it


def test_a_shell_prefix_that_exits_2_does_not_block_the_prompt(tmp_path: Path) -> None:
    failing = tmp_path / "wrapper"
    failing.write_text("#!/bin/sh\nexit 2\n")
    failing.chmod(0o755)
    started = PLUGIN / "hooks" / "prompt-router"

    out = run_hook(
        [str(started), "--exec-form"],
        path=[],
        stdin="{}",
        env={"CLAUDE_CODE_SHELL_PREFIX": str(failing)},
    )

    assert out.returncode == 1, "Claude Code blocks the prompt on exit 2, and only on 2"


def test_a_hooks_file_whose_launcher_is_missing_says_so_and_does_not_block(tmp_path: Path) -> None:
    partial = tmp_path / "plugin"
    shutil.copytree(PLUGIN, partial)
    (partial / "hooks" / "abcd-hook").unlink()

    out = run_hook([str(partial / "hooks" / "prompt-router")], path=[], stdin="{}")

    assert out.returncode == 1, "Claude Code blocks the prompt on exit 2, and only on 2"
    assert out.stderr == f"abcd: no {partial}/hooks/abcd-hook, so the hook did nothing\n"


def test_the_launcher_without_a_hook_and_not_run_through_a_hooks_file_says_how_to_call_it() -> None:
    out = run_hook(["sh", str(LAUNCHER)], path=[])

    assert out.returncode == 1
    assert out.stderr.startswith("usage: abcd-hook HOOK")


def test_every_hook_the_plugin_wires_is_one_abcd_hook_lists() -> None:
    from abcd.cli.host_cmd import hook_app

    assert set(WIRING.values()) == set(typer.main.get_group(hook_app).commands)


# The launcher: which abcd it runs, and that it never blocks a prompt


def fake_abcd(folder: Path, name: str, exit_code: int = 0) -> Path:
    """An `abcd` that says who it is, echoes its arguments and stdin, and exits `exit_code`."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "abcd"
    script.write_text(
        f'#!/bin/sh\necho "{name}: $*"\ncat\nexit {exit_code}\n',
    )
    script.chmod(0o755)
    return folder


def run_hook(
    argv: list[str], *, path: list[Path], stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`argv` with `path` before the system's tools on PATH, and nothing else but `env`."""
    return subprocess.run(
        argv,
        input=stdin,
        env={"PATH": ":".join([*map(str, path), "/usr/bin", "/bin"]), **(env or {})},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def launch(
    launcher: Path, hook: str, *, path: list[Path], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return run_hook(["sh", str(launcher), hook], path=path, stdin=stdin)


def installed_plugin(prefix: Path) -> Path:
    """A copy of the plugin where an install puts it: <prefix>/lib/pythonX.Y/site-packages/abcd/plugin."""
    target = prefix / "lib" / "python3.11" / "site-packages" / "abcd" / "plugin"
    shutil.copytree(PLUGIN, target)
    return target


def test_the_launcher_runs_abcd_hook_with_the_hosts_stdin_and_passes_its_output_back(
    tmp_path: Path,
) -> None:
    on_path = fake_abcd(tmp_path / "bin", "on PATH")

    out = launch(LAUNCHER, "prompt-router", path=[on_path], stdin='{"prompt": "run the tests"}')

    assert out.returncode == 0
    assert out.stdout == 'on PATH: hook prompt-router\n{"prompt": "run the tests"}'


@pytest.mark.parametrize("through_a_symlink", [False, True])
def test_the_launcher_prefers_the_abcd_installed_with_the_plugin_over_the_one_on_path(
    tmp_path: Path, through_a_symlink: bool
) -> None:
    prefix = tmp_path / "venv"
    plugin = installed_plugin(prefix)
    fake_abcd(prefix / "bin", "installed with the plugin")
    on_path = fake_abcd(tmp_path / "elsewhere", "on PATH")
    if through_a_symlink:
        (tmp_path / "linked").symlink_to(plugin)
        plugin = tmp_path / "linked"

    out = launch(plugin / "hooks" / "abcd-hook", "session-start", path=[on_path])

    assert out.stdout == "installed with the plugin: hook session-start\n"


def test_a_plugin_outside_an_install_falls_back_to_the_abcd_on_path(tmp_path: Path) -> None:
    plugin = installed_plugin(tmp_path / "venv")  # no <prefix>/bin/abcd beside it
    on_path = fake_abcd(tmp_path / "bin", "on PATH")

    out = launch(plugin / "hooks" / "abcd-hook", "pre-compact", path=[on_path])

    assert out.stdout == "on PATH: hook pre-compact\n"


def test_through_the_launcher_the_real_abcd_allows_the_captured_note_command(
    tmp_path: Path,
) -> None:
    captured = Path(__file__).parent / "host" / "data" / "hook_PreToolUse_bash.json"
    real = tmp_path / "bin"
    real.mkdir()
    (real / "abcd").symlink_to(Path(sys.executable).with_name("abcd"))

    out = launch(LAUNCHER, "pre-tool-use", path=[real], stdin=captured.read_text())

    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_usage_error_from_abcd_becomes_a_non_blocking_failure(tmp_path: Path) -> None:
    too_old = fake_abcd(tmp_path / "bin", "too old", exit_code=2)

    out = launch(LAUNCHER, "prompt-router", path=[too_old])

    assert out.returncode == 1, "Claude Code blocks the prompt on exit 2, and only on 2"
    assert "exited 2" in out.stderr


def test_other_exit_statuses_pass_through_unchanged(tmp_path: Path) -> None:
    failing = fake_abcd(tmp_path / "bin", "failing", exit_code=1)

    assert launch(LAUNCHER, "prompt-router", path=[failing]).returncode == 1


def test_without_any_abcd_the_launcher_says_so_in_one_line_and_does_not_block(
    tmp_path: Path,
) -> None:
    out = launch(LAUNCHER, "prompt-router", path=[tmp_path])

    assert out.returncode == 1
    assert out.stdout == ""
    assert len(out.stderr.splitlines()) == 1
    assert "no abcd" in out.stderr


@pytest.mark.parametrize("before", ["", ".", "bin"])
def test_an_abcd_in_the_project_is_never_run_through_an_empty_or_relative_path_entry(
    tmp_path: Path, before: str
) -> None:
    """`PATH=$PATH:` or `PATH=.:$PATH` puts the working folder, the person's project, on the
    search: the launcher looks for abcd in PATH's absolute folders only."""
    project = tmp_path / "project"
    fake_abcd(project, "from the project")
    fake_abcd(project / "bin", "from the project")
    on_path = fake_abcd(tmp_path / "bin", "on PATH")

    out = subprocess.run(
        ["sh", str(LAUNCHER), "pre-compact"],
        input="",
        env={"PATH": f"{before}:{on_path}:/usr/bin:/bin:"},
        cwd=project,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )

    assert (out.returncode, out.stdout) == (0, "on PATH: hook pre-compact\n"), out.stderr


@pytest.mark.parametrize(
    ("pythonpath", "passed_on"),
    [
        (":/a", "/a"),
        ("/a:", "/a"),
        ("lib:/a:./b::/c d:~/e", "/a:/c d"),
        (".", None),
        ("::", None),
        ("/a:/b", "/a:/b"),
    ],
)
def test_the_launcher_passes_on_only_the_absolute_entries_of_pythonpath(
    tmp_path: Path, pythonpath: str, passed_on: str | None
) -> None:
    """An empty or relative entry names a folder in the project, which Python would search for
    abcd's own modules before the standard library (tests/test_launcher.py plants them)."""
    shows = tmp_path / "bin"
    shows.mkdir()
    (shows / "abcd").write_text('#!/bin/sh\necho "${PYTHONPATH-unset}"\n')
    (shows / "abcd").chmod(0o755)

    out = run_hook(
        ["sh", str(LAUNCHER), "prompt-router"], path=[shows], env={"PYTHONPATH": pythonpath}
    )

    assert (out.returncode, out.stdout) == (0, f"{passed_on or 'unset'}\n"), out.stderr


# The page the agent reads: /abcd:memory


def frontmatter(text: str) -> dict[str, str]:
    head, sep, _ = text.removeprefix("---\n").partition("\n---\n")
    assert text.startswith("---\n") and sep, "the page opens with frontmatter"
    pairs = (line.split(":", 1) for line in head.splitlines())
    return {key.strip(): value.strip() for key, value in pairs}


def test_the_page_says_what_it_is_and_takes_the_persons_words() -> None:
    meta = frontmatter(page_text())

    assert meta["description"]
    assert "$ARGUMENTS" in page_text()


@pytest.mark.parametrize(
    "words",
    [
        "--by",
        "--everywhere",
        "--moved-from-host",
        "abcd memory remove",
        "CLAUDE_CODE_SESSION_ID",
        "only this checkout's private names were checked",
        "One lesson a note",
        "Never a secret",
        "Only when the person asks",
        "Picture the prompts that should bring the note back",
        "the one who only sees the symptom",
    ],
)
def test_the_page_covers(words: str) -> None:
    assert words in page_text()


def memory_flags() -> set[str]:
    group = typer.main.get_group(memory_app)
    return {
        opt
        for command in group.commands.values()
        for param in command.params
        for opt in param.opts
        if opt.startswith("--")
    }


def test_every_flag_the_page_shows_is_a_real_flag_of_abcd_memory() -> None:
    shown = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", page_text()))

    assert shown
    assert shown <= memory_flags()


def shell_examples(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)


def test_the_pages_examples_write_notes_as_written(abcd: Run, repo: Path) -> None:
    examples = [e for e in shell_examples(page_text()) if "abcd memory add" in e]
    assert len(examples) == 2
    session = "5d0c3f6e-2b1a-4c9d-8e7f-0a1b2c3d4e5f"
    bin_dir = Path(sys.executable).parent
    for example in examples:
        runnable = example.replace("<your model id>", "claude-opus-4-8")
        out = subprocess.run(
            ["bash", "-c", runnable],
            cwd=repo,
            env=dict(os.environ, CLAUDE_CODE_SESSION_ID=session, PATH=f"{bin_dir}:/usr/bin:/bin"),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert out.returncode == 0, out.stderr

    notes = json.loads(abcd("memory", "list", "--json", cwd=repo).out)["notes"]
    assert sorted(n["origin"] for n in notes) == ["agent", "host-memory-move"]
    assert {n["session"] for n in notes} == {session}
    assert {n["root"] for n in notes} == {git(repo, "rev-list", "--max-parents=0", "HEAD")}


# abcd plugin path


def test_plugin_path_prints_the_folder_holding_the_manifest_hooks_and_page() -> None:
    root = typer.Typer()
    root.add_typer(plugin_cmd.app, name="plugin")

    out = CliRunner().invoke(root, ["plugin", "path"])

    assert out.exit_code == 0
    folder = Path(out.stdout.strip())
    assert folder.is_absolute()
    for part in (
        ".claude-plugin/plugin.json",
        "hooks/hooks.json",
        "commands/memory.md",
        "statusline.json",
    ):
        assert (folder / part).is_file()


def test_plugin_path_prints_the_folder_alone_so_scripts_can_take_it_whole() -> None:
    root = typer.Typer()
    root.add_typer(plugin_cmd.app, name="plugin")

    out = CliRunner().invoke(root, ["plugin", "path"])

    assert out.stdout == f"{PLUGIN}\n"
    assert out.stderr == ""


@pytest.mark.parametrize(
    ("name", "held"), [("My Projects", " "), ("a$b", "$"), ("it's", "'"), ("x*", "*")]
)
def test_plugin_path_says_when_a_host_before_exec_form_hooks_could_not_start_them_from_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, held: str
) -> None:
    odd = tmp_path / name / "plugin"
    shutil.copytree(PLUGIN, odd)
    monkeypatch.setattr(plugin_cmd, "plugin_dir", lambda: odd)
    root = typer.Typer()
    root.add_typer(plugin_cmd.app, name="plugin")

    out = CliRunner().invoke(root, ["plugin", "path"])

    assert out.exit_code == 0
    assert out.stdout == f"{odd}\n"
    assert out.stderr.startswith("abcd: note: Claude Code before 2.1.139 cannot start")
    assert f"its path holds {held!r}," in out.stderr


def test_plugin_path_statusline_names_the_status_line_setting_in_the_plugin_folder() -> None:
    root = typer.Typer()
    root.add_typer(plugin_cmd.app, name="plugin")

    out = CliRunner().invoke(root, ["plugin", "path", "--statusline"])

    assert out.exit_code == 0
    shipped = Path(out.stdout.strip())
    assert shipped == PLUGIN / "statusline.json"
    assert json.loads(shipped.read_text()) == {
        "statusLine": {"type": "command", "command": "abcd statusline"}
    }


def test_the_docs_show_the_same_status_line_setting_the_plugin_ships() -> None:
    shipped = json.loads((PLUGIN / "statusline.json").read_text())
    host_page = (Path(__file__).resolve().parents[1] / "docs" / "host.md").read_text()
    shown = [
        json.loads("{" + block + "}")
        for block in re.findall(r"```json\n(.*?)\n```", host_page, flags=re.DOTALL)
        if block.startswith('"statusLine"')
    ]

    assert shown == [shipped]


def test_plugin_path_statusline_refuses_when_the_install_lost_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "plugin"
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / ".claude-plugin" / "plugin.json").write_text("{}")
    monkeypatch.setattr(plugin_cmd, "plugin_dir", lambda: folder)

    with pytest.raises(AbcdError, match="status-line setting is missing"):
        plugin_cmd.path(statusline=True)


def test_plugin_path_refuses_when_the_install_lost_the_plugin_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plugin_cmd, "plugin_dir", lambda: tmp_path / "plugin")

    with pytest.raises(AbcdError, match="plugin folder is missing"):
        plugin_cmd.path()


def abcd_has_plugin_command() -> bool:
    out = subprocess.run(
        [sys.executable, "-m", "abcd", "--help"], capture_output=True, text=True, timeout=60
    )
    return re.search(r"^\W*plugin\s", out.stdout, flags=re.MULTILINE) is not None


@pytest.mark.skipif(
    not abcd_has_plugin_command(), reason="`plugin` is not registered in abcd.cli.main yet"
)
def test_abcd_plugin_path_prints_the_shipped_folder_and_writes_nothing(
    abcd: Run, tmp_path: Path
) -> None:
    home = tmp_path / "person"
    before = sorted(home.rglob("*"))

    out = abcd("plugin", "path")

    assert out.code == 0
    assert Path(out.out.strip()) == PLUGIN
    assert sorted(home.rglob("*")) == before
