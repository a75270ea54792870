"""The hook's benchmarks and its breakdown run as docs/performance.md quotes them.

They read the bundle's file and build homes through the real paths, so a change to either can
leave them broken without any test of the product failing. These run each on a small home and
check what it reports, never how fast: timings are not tests on a shared machine.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.installed import REPO_ROOT

pytestmark = pytest.mark.slow


def tool(name: str, *args: str, home: Path) -> str:
    env = dict(os.environ, ABCD_HOME=str(home / "unused"))  # each tool names its own home
    out = subprocess.run(
        [sys.executable, str(REPO_ROOT / "tools" / name), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_breakdown_times_every_module_a_prompt_runs_ahead_in_a_home_the_benchmark_built(
    tmp_path: Path,
) -> None:
    root = tmp_path / "bench"
    built = tool(
        "bench_hook.py", "--crowd", "--notes", "300", "--runs", "1", "--only", "typical",
        "--root", str(root), home=tmp_path,
    )  # fmt: skip
    assert "300 personal notes" in built
    assert re.search(r"typical prompt \(recalled [1-9]\d* item", built), built

    report = tool("hook_breakdown.py", str(root), "--runs", "1", home=tmp_path)

    first = re.match(r"run-ahead: [\d.]+ ms for (\d+) modules, ([\d,]+) bytes", report)
    assert first is not None, report
    modules = int(first.group(1))
    rows = [line.split() for line in report.splitlines() if line.startswith("  abcd.")]
    assert len(rows) == modules > 20
    assert {"abcd.recall.engine", "abcd.recall.terms", "abcd.host.hook"} <= {r[0] for r in rows}
    assert sum(int(r[4].replace(",", "")) for r in rows) == int(first.group(2).replace(",", ""))
    cold = re.search(r"never called by this prompt: ([\d,]+) bytes", report)
    assert cold is not None and 0 < int(cold.group(1).replace(",", "")) < int(
        first.group(2).replace(",", "")
    )


def test_the_launcher_benchmark_times_each_install_layout_each_way_a_host_runs_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "bench"
    tool(
        "bench_hook.py", "--crowd", "--notes", "300", "--runs", "1", "--only", "none",
        "--root", str(root), home=tmp_path,
    )  # fmt: skip
    before = tmp_path / "abcd-hook-before"
    before.write_text((REPO_ROOT / "src" / "abcd" / "plugin" / "hooks" / "abcd-hook").read_text())

    report = tool(
        "bench_launcher.py", str(root), "--runs", "1", "--before", str(before), home=tmp_path
    )

    rows = re.findall(r"^  (.+?) +median +[\d.]+ ms +[\d.]+x$", report, re.MULTILINE)
    ways = ["console script", "exec form", "shell form", "its python alone", "launcher before"]
    expected = [f"{form:7s} {way}" for form in ("pip", "pip<25", "pipx") for way in ways]
    assert rows == [*expected, "pass"], report


def test_the_shell_benchmark_times_a_python_started_each_way(tmp_path: Path) -> None:
    report = tool("bench_shell.py", "--runs", "1", home=tmp_path)

    rows = re.findall(r"^  (.+?) +[\d.]+ ms +[+-][\d.]+ ms$", report, re.MULTILINE)
    assert rows == ["directly", "sh, exec", "sh, waits", "sh -c :"], report


def test_the_resident_benchmark_times_a_socket_client_and_a_warm_prompt(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    tool(
        "bench_hook.py", "--crowd", "--notes", "300", "--runs", "1", "--only", "typical",
        "--root", str(root), home=tmp_path,
    )  # fmt: skip

    report = tool("bench_resident.py", str(root), "--runs", "1", "--warm", "2", home=tmp_path)

    rows = re.findall(r"^(\S.*?) +([\d.]+) ms", report, re.MULTILINE)
    names = [name for name, _ in rows]
    assert names == [
        "pass",
        "client (-I -S, _socket)",
        "warm prompt, in process",
        "client + warm prompt",
    ], report
    figures = {name: float(ms) for name, ms in rows}
    assert figures["client + warm prompt"] == pytest.approx(
        figures["client (-I -S, _socket)"] + figures["warm prompt, in process"], abs=0.02
    )


def test_the_unwrapped_scan_lists_what_only_the_unwrapped_judgement_refuses(
    tmp_path: Path,
) -> None:
    import secrets
    import string

    folder = tmp_path / "text"
    folder.mkdir()
    # A token shape built at run time, wrapped at a terminal's width; and code whose unwrapped
    # form glues a harmless value to the next line's first word (only the named rules see it).
    token = "gh" + "p_" + "".join(secrets.choice(string.ascii_letters) for _ in range(36))
    (folder / "wrapped.md").write_text(f"pasted:\n{token[:20]}\n{token[20:]}\n")
    (folder / "code.py").write_text("TOKEN_BYTES = 32\nROOT_BYTES = 16\n")
    (folder / "prose.md").write_text("a paragraph\nhard-wrapped at a width\n\nanother one\n")

    shapes = tool("scan_unwrapped.py", str(folder), home=tmp_path)
    every = tool("scan_unwrapped.py", "--every-rule", str(folder), home=tmp_path)

    assert shapes.splitlines()[-1] == "1 of 4 paragraphs refused unwrapped only", shapes
    assert "wrapped.md: github-pat:" in shapes
    assert every.splitlines()[-1] == "2 of 4 paragraphs refused unwrapped only", every
    assert "code.py: generic-api-key:" in every


def test_the_review_benchmark_answers_every_page_of_a_desk_it_built(tmp_path: Path) -> None:
    report = tool("bench_review.py", "40", home=tmp_path)

    rows = re.findall(r"^  (.+?) +median +[\d.]+ ms$", report, re.MULTILINE)
    assert rows == ["queue /", "notes /notes", "search /notes?search=WORD", "a note /notes/ID",
                    "journal /journal", "replay /journal?seq=half"], report  # fmt: skip


def test_the_lean_fold_benchmark_times_both_reads_of_a_journal_it_built(tmp_path: Path) -> None:
    home = tmp_path / "lean-home"
    for _ in range(2):  # built on the first run, reused on the second
        out = tool("bench_lean_fold.py", "--home", str(home), "--notes", "40", "--rounds", "1",
                   home=tmp_path)  # fmt: skip
        assert re.fullmatch(
            r"walk for a break [\d.]+ ms; fold from zero [\d.]+ ms \(best of 1\)\n", out
        )
    assert len((home / "journal" / "000001.jsonl").read_bytes().splitlines()) == 40
