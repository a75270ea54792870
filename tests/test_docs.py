"""The docs hold true: every ```sh example runs, the CLI reference is fresh, every page is linked.

Each markdown file's ```sh blocks run in order in one `bash -euo pipefail`
process, in a throwaway ABCD_HOME and HOME, from a fresh git repository with
one commit, with this venv's `abcd` first on PATH and a fixed host session
id. Blocks tagged ```text, ```console or nothing are never run: output, and
commands that need what a throwaway home does not have (the real host, this
checkout). A block tagged ```text checked right after a ```sh block is what
that block prints (stdout and stderr as one stream), and must be: note ids,
times, chain heads, SHA-256 hashes and `mktemp -d` folders aside, and a line
`...` standing for lines left out.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference" / "cli.md"
SESSION_ID = "0b7c2f5e-3d1a-4c8e-9f60-2a4b6c8d0e1f"
# One file's blocks; the whole docs run stays well under a minute.
FILE_TIMEOUT_S = 60
MARK = "[docs-test] block at line"

# A fence may be indented, as inside a list item; its body loses that much indentation.
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Block:
    line: int  # the line of the opening fence, 1-based
    code: str
    # The output a ```text checked block right after it shows (stdout and stderr, in order).
    expected: str | None = None


CHECKED = "text checked"


def _fenced(text: str) -> list[tuple[int, int, str, str]]:
    """Every fenced block: (opening line, closing line, info string, body), 0-based lines."""
    found: list[tuple[int, int, str, str]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            index += 1
            continue
        start, fence, indent = index, opening["fence"], len(opening["indent"])
        body: list[str] = []
        index += 1
        while index < len(lines):
            closing = _FENCE.match(lines[index])
            if (
                closing is not None
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= len(fence)
                and not closing["info"].strip()
            ):
                break
            line = lines[index]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))) :])
            index += 1
        found.append((start, index, opening["info"].strip(), "\n".join(body) + "\n"))
        index += 1
    return found


def shell_blocks(text: str) -> list[Block]:
    """The fenced blocks whose info string is exactly `sh`, in order.

    A block opens with three or more backticks or tildes and closes with a bare
    fence of the same character, at least as long. A block tagged `text checked`
    right after one (only blank lines between) is what that block prints.
    """
    lines = text.splitlines()
    fenced = _fenced(text)
    blocks: list[Block] = []
    for number, (start, end, info, body) in enumerate(fenced):
        if info != "sh":
            continue
        expected = None
        if number + 1 < len(fenced):
            after_start, _, after_info, after_body = fenced[number + 1]
            between = lines[end + 1 : after_start]
            if after_info == CHECKED and not any(line.strip() for line in between):
                expected = after_body
        blocks.append(Block(start + 1, body, expected))
    return blocks


# Ids, times, heads, hashes and throwaway paths differ on every run; the rest must match.
_VARYING = [
    (re.compile(r"mem-\d{16}"), "mem-<id>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), "<time>"),
    (re.compile(r"head [0-9a-f]{16}"), "head <hash>"),
    # A journal line's `prev`, the view's checkpoint: they hash times and stat stamps.
    (re.compile(r"\b[0-9a-f]{64}\b"), "<sha256>"),
    (re.compile(r"/tmp/(?:\S*/)?tmp\.\w+"), "<mktemp -d>"),
]


def normalized(output: str) -> str:
    for pattern, stand_in in _VARYING:
        output = pattern.sub(stand_in, output)
    return output.strip("\n")


def shows(printed: str, shown: str) -> bool:
    """Whether `shown` is what was `printed`, ids and times aside; a line `...` in `shown`
    stands for any number of lines left out."""
    parts = [
        r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n"
        for line in normalized(shown).split("\n")
    ]
    return re.fullmatch("".join(parts), normalized(printed) + "\n") is not None


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


FILES_WITH_EXAMPLES = [p for p in doc_files() if shell_blocks(p.read_text(encoding="utf-8"))]


# --- reading the fences ---------------------------------------------------------------


def test_only_blocks_tagged_sh_are_taken_to_run() -> None:
    text = "\n".join(
        [
            "# A page",
            "```sh",
            "echo one",
            "```",
            "```console",
            "claude --plugin-dir x",
            "```",
            "```text",
            "one",
            "```",
            "```",
            "untagged",
            "```",
            "```shell",
            "not sh either",
            "```",
            "1. a list item:",
            "   ```sh",
            "   echo two",
            "     indented",
            "   ```",
            "   - nested:",
            "",
            "     ```sh",
            "     echo nested",
            "     ```",
            "~~~~sh",
            "echo three",
            "~~~",
            "```",
            "~~~~",
        ]
    )
    blocks = shell_blocks(text)
    assert [b.code for b in blocks] == [
        "echo one\n",
        "echo two\n  indented\n",
        "echo nested\n",
        "echo three\n~~~\n```\n",
    ]
    assert [b.line for b in blocks] == [2, 18, 24, 27]


def test_a_text_checked_block_right_after_an_sh_block_is_its_output() -> None:
    text = (
        "```sh\necho one\n```\n\n```text checked\none\n```\n```sh\necho two\n```\n```text\nx\n```\n"
    )

    first, second = shell_blocks(text)

    assert (first.code, first.expected) == ("echo one\n", "one\n")
    assert second.expected is None, "plain ```text is not checked"


def test_shown_output_must_match_what_is_printed_ids_times_and_elisions_aside() -> None:
    printed = "#1  mem-2612010229100921  score 0.7246\nwritten 2026-12-01T02:29:10.839012Z\nend\n"

    assert shows(printed, "#1  mem-2611292121522425  score 0.7246\n...\nend\n")
    assert not shows(printed, "#1  mem-2611292121522425  score 0.3363\n...\n")
    assert not shows(printed, "#1  mem-2611292121522425  score 0.7246\n")


def test_a_sha256_hash_is_aside_but_a_shorter_hex_word_is_not() -> None:
    printed = f'"prev": "{"7c" * 32}",\n"signature": "2e7f7c48"\n'

    assert shows(printed, f'"prev": "{"d9" * 32}",\n"signature": "2e7f7c48"\n')
    assert not shows(printed, f'"prev": "{"d9" * 32}",\n"signature": "2e7f7c49"\n')


def test_the_pages_that_teach_commands_have_examples_that_run() -> None:
    names = {_name(p) for p in FILES_WITH_EXAMPLES}
    for page in (
        "docs/memory.md",
        "docs/howto.md",
        "docs/diagnostic.md",
        "docs/reference/files.md",
        "docs/reference/exit-codes.md",
        "docs/reference/environment.md",
    ):
        assert page in names, f"{page} has no ```sh example to run"


# --- running the examples -------------------------------------------------------------


def _throwaway(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh git repository with one commit, and the environment the examples run in."""
    base = tmp_path / "examples"
    person, temp, repo = base / "person", base / "tmp", base / "repo"
    for folder in (person, temp, repo):
        folder.mkdir(parents=True)
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(person),
        "ABCD_HOME": str(base / "abcd-home"),
        "TMPDIR": str(temp),
        "CLAUDE_CODE_SESSION_ID": SESSION_ID,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        **GIT_ENV,
    }
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    return repo, env


def _script(blocks: list[Block]) -> str:
    parts = [f"printf '\\n{MARK} {b.line}\\n' >&2\n{b.code}" for b in blocks]
    return "".join(parts) + f"printf '\\n{MARK} end\\n' >&2\n"


def outputs(merged: str) -> dict[int, str]:
    """What each block printed, by its line, from the run's stdout and stderr merged."""
    printed: dict[int, str] = {}
    line, taken = -1, []
    for text in merged.splitlines():
        if text.startswith(MARK):
            if line >= 0:
                printed[line] = "\n".join(taken)
            where = text.removeprefix(MARK).strip()
            line, taken = (int(where) if where.isdigit() else -1), []
        else:
            taken.append(text)
    return printed


@pytest.mark.parametrize("doc", FILES_WITH_EXAMPLES, ids=_name)
def test_every_shell_example_in_the_file_runs(doc: Path, tmp_path: Path) -> None:
    blocks = shell_blocks(doc.read_text(encoding="utf-8"))
    repo, env = _throwaway(tmp_path)
    script = tmp_path / "examples" / "examples.sh"
    script.write_text(_script(blocks), encoding="utf-8")
    result = subprocess.run(
        ["bash", "-euo", "pipefail", str(script)],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, so a block's output reads as a person sees it
        text=True,
        timeout=FILE_TIMEOUT_S,
    )
    marks = [line for line in result.stdout.splitlines() if line.startswith(MARK)]
    where = marks[-1].removeprefix(MARK).strip() if marks else "?"
    assert result.returncode == 0 and where == "end", (
        f"{_name(doc)}: the ```sh block at line {where} failed (exit {result.returncode})\n"
        f"--- output (tail)\n{result.stdout[-6000:]}"
    )
    printed = outputs(result.stdout)
    for block in blocks:
        if block.expected is not None:
            assert shows(printed[block.line], block.expected), (
                f"{_name(doc)}: the output shown after the ```sh block at line {block.line} "
                f"is not what it prints:\n{printed[block.line]}"
            )


# --- the generated reference ----------------------------------------------------------


def _gen_reference(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_reference.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_committed_cli_reference_matches_the_cli() -> None:
    result = _gen_reference("--check")
    assert result.returncode == 0, result.stderr


def test_a_stale_cli_reference_is_caught_and_named(tmp_path: Path) -> None:
    stale = tmp_path / "cli.md"
    stale.write_text(REFERENCE.read_text(encoding="utf-8").replace("--everywhere", "--anywhere"))
    result = _gen_reference("--check", "--out", str(stale))
    assert result.returncode == 1
    assert "cli.md is stale: run python tools/gen_reference.py" in result.stderr


def test_the_cli_reference_has_a_section_for_every_command_with_each_of_its_flags() -> None:
    import typer.main

    from abcd.cli.main import app

    text = REFERENCE.read_text(encoding="utf-8")
    sections = re.split(r"^#+ `(abcd[^`]*)`$", text, flags=re.M)
    by_command = dict(zip(sections[1::2], sections[2::2], strict=True))

    visited: list[str] = []

    def walk(command: object, path: str) -> None:
        visited.append(path)
        assert path in by_command, f"no section for {path}"
        for param in getattr(command, "params", []):
            for flag in getattr(param, "opts", []):
                if flag.startswith("-"):
                    assert f"`{flag}" in by_command[path], f"{path}: {flag} is missing"
        for name, child in getattr(command, "commands", {}).items():
            walk(child, f"{path} {name}")

    walk(typer.main.get_command(app), "abcd")
    assert {"abcd memory add", "abcd journal replay", "abcd hook prompt-router"} <= set(visited)
    assert "`--moved-from-host`" in by_command["abcd memory add"]


# --- links ----------------------------------------------------------------------------


def test_the_readme_links_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\((docs/[^)#\s]+\.md)\)", readme))
    pages = {_name(p) for p in DOCS.rglob("*.md")}
    assert pages <= linked, f"not linked from the README: {sorted(pages - linked)}"


def test_every_relative_link_in_the_docs_leads_to_a_file() -> None:
    broken = []
    for doc in doc_files():
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (doc.parent / target.split("#")[0]).exists():
                broken.append(f"{_name(doc)} -> {target}")
    assert not broken, broken
