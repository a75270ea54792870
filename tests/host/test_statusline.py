"""The status line: one row printed, one fill file written (and only when the figure is new), nothing else."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from abcd.session.events import FillRead, SessionReset
from abcd.session.files import FILL_DIR, SESSIONS_DIR, append_events, file_name, read_events
from tests.session.helpers import make_home

from .helpers import SESSION, changed, payload, run, snapshot, with_used

FILL_REL = f"{FILL_DIR}/{file_name(SESSION)}"


def readings(abcd_home: Path) -> list[float]:
    with make_home(abcd_home) as home:
        return [
            r.event.used_percentage
            for r in read_events(home, FILL_DIR, SESSION)
            if isinstance(r.event, FillRead)
        ]


@pytest.fixture
def ready_home(abcd_home: Path) -> Path:
    """The home as the session-start hook leaves it: created, with an empty `fill/`."""
    make_home(abcd_home).close()
    return abcd_home


# --- the one write -----------------------------------------------------------------


def test_a_reading_writes_only_its_one_fill_file(ready_home: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    ran = run(payload("after_turn1"))
    assert (ran.code, ran.err) == (0, "")
    assert changed(before, snapshot(tmp_path)) == {f"abcd-home/{FILL_REL}"}
    assert readings(ready_home) == [7]


def test_the_same_figure_twice_is_written_once(ready_home: Path) -> None:
    run(payload("after_turn1"))
    run(payload("after_turn2"))
    assert readings(ready_home) == [7]


def test_a_changed_figure_is_appended_after_the_last(ready_home: Path) -> None:
    run(payload("after_turn1"))
    run(payload("after_compact"))
    run(with_used(12))
    assert readings(ready_home) == [7, 0, 12]


def test_the_same_figure_after_a_reset_is_written_again(ready_home: Path) -> None:
    run(payload("after_turn1"))
    with make_home(ready_home) as home:
        append_events(home, SESSIONS_DIR, SESSION, [SessionReset(reason="session-start:resume")])
    run(payload("after_turn2"))
    assert readings(ready_home) == [7, 7]


def test_a_long_sessions_fill_file_past_its_bound_takes_a_new_figure_and_skips_a_repeated_one(
    ready_home: Path,
) -> None:
    """The status line reads the fill file from its end back to its last reading, and the session
    file back to its last reset: thousands of prompts in, past 8 MiB, a repeated figure is still
    not written and a new one is, with nothing said (seventeenth round: it read both files whole
    on every refresh, ~190 ms at 5,000 prompts, and past the bound refused to write)."""
    from abcd.session.events import ItemRecalled
    from abcd.session.files import SESSION_FILE_MAX_BYTES

    fill = ready_home / FILL_REL
    ledger = ready_home / SESSIONS_DIR / file_name(SESSION)
    with make_home(ready_home) as home:
        recalled = [
            ItemRecalled(key=f"mem-{n:016d}", signature="x" * 64, form="line") for n in range(4000)
        ]
        while not ledger.exists() or ledger.stat().st_size <= SESSION_FILE_MAX_BYTES:
            append_events(home, SESSIONS_DIR, SESSION, [SessionReset(reason="backstop"), *recalled])
        readings = [FillRead(used_percentage=n % 900 / 10) for n in range(10_000)]
        while not fill.exists() or fill.stat().st_size <= SESSION_FILE_MAX_BYTES:
            append_events(home, FILL_DIR, SESSION, readings)
        append_events(home, FILL_DIR, SESSION, [FillRead(used_percentage=7)])
    size = fill.stat().st_size
    ran = run(payload("after_turn1"))  # 7 again
    assert (ran.code, ran.err) == (0, "")
    assert fill.stat().st_size == size
    ran = run(with_used(12))
    assert (ran.code, ran.err) == (0, "")
    assert (
        fill.read_bytes()[size:].count(b"\n") == 1
        and b'"used_percentage":12' in fill.read_bytes()[size:]
    )


def test_pass_through_writes_nothing_and_prints_the_commands_output(
    ready_home: Path, tmp_path: Path
) -> None:
    before = snapshot(tmp_path)
    stdin = payload("after_turn1")
    ran = run(stdin, "--pass-through", "printf 'mine '; wc -c")
    assert ran.code == 0
    assert ran.out.split() == ["mine", str(len(stdin))]
    assert changed(before, snapshot(tmp_path)) == set()


def test_pass_through_returns_the_commands_exit_status_and_its_stderr(ready_home: Path) -> None:
    ran = run(payload("after_turn1"), "--pass-through=echo oops >&2; exit 3")
    assert (ran.code, ran.out, ran.err) == (3, "", "oops\n")


def test_a_payload_without_a_session_id_writes_nothing(ready_home: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    ran = run(payload("after_turn1", session_id=None))
    assert ran.out == "Opus 4.8 (1M context) | 7% used | repo\n"
    assert changed(before, snapshot(tmp_path)) == set()


def test_a_null_used_percentage_before_the_first_reply_writes_nothing(
    ready_home: Path, tmp_path: Path
) -> None:
    before = snapshot(tmp_path)
    ran = run(payload("before_first_turn"))
    assert ran.out == "Opus 4.8 (1M context) | --% used | repo\n"
    assert changed(before, snapshot(tmp_path)) == set()


@pytest.mark.parametrize("used", ["7", True, [7], {"v": 7}])
def test_a_used_percentage_that_is_not_a_number_writes_nothing(
    ready_home: Path, tmp_path: Path, used: object
) -> None:
    before = snapshot(tmp_path)
    assert run(with_used(used)).code == 0
    assert changed(before, snapshot(tmp_path)) == set()


@pytest.mark.parametrize("figure", ["1e999", "-1e999", "NaN", "Infinity"])
def test_a_used_percentage_that_is_not_finite_writes_nothing(
    ready_home: Path, tmp_path: Path, figure: str
) -> None:
    before = snapshot(tmp_path)
    ran = run(with_used(12345).replace(b"12345", figure.encode()))
    assert ran.code == 0
    assert "--% used" in ran.out
    assert changed(before, snapshot(tmp_path)) == set()


def test_an_absent_fill_folder_is_skipped_silently(abcd_home: Path, tmp_path: Path) -> None:
    make_home(abcd_home, fill_folder=False).close()
    before = snapshot(tmp_path)
    ran = run(payload("after_turn1"))
    assert (ran.code, ran.err) == (0, "")
    assert ran.out == "Opus 4.8 (1M context) | 7% used | repo\n"
    assert changed(before, snapshot(tmp_path)) == set()


def test_an_absent_home_is_not_created(abcd_home: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    ran = run(payload("after_turn1"))
    assert (ran.code, ran.err) == (0, "")
    assert not os.path.lexists(abcd_home)
    assert changed(before, snapshot(tmp_path)) == set()


def test_a_failed_write_is_one_stderr_line_and_the_row_still_prints(
    ready_home: Path, tmp_path: Path
) -> None:
    planted = tmp_path / "planted.jsonl"
    planted.write_bytes(b"")
    (ready_home / FILL_REL).symlink_to(planted)
    ran = run(payload("after_turn1"))
    assert ran.code == 0
    assert ran.out == "Opus 4.8 (1M context) | 7% used | repo\n"
    assert len(ran.err.splitlines()) == 1 and "symlink" in ran.err
    assert planted.read_bytes() == b""


# --- what it prints ----------------------------------------------------------------


def test_the_session_id_never_appears_in_what_it_prints(ready_home: Path, tmp_path: Path) -> None:
    planted = tmp_path / "planted.jsonl"
    planted.write_bytes(b"")
    stdins = [
        payload(name)
        for name in (
            "before_first_turn",
            "after_turn1",
            "after_compact",
            "sonnet45_usage_formula_probe",
        )
    ]
    stdins.append(payload("after_turn1", model={"display_name": f"model {SESSION}"}))
    stdins.append(payload("after_turn1", cwd=f"/work/{SESSION}", workspace={}))
    outputs = [run(s) for s in stdins]
    (ready_home / FILL_REL).unlink()
    (ready_home / FILL_REL).symlink_to(planted)
    outputs.append(run(with_used(55)))
    assert outputs[-1].err  # the failed write was reported
    for ran in outputs:
        assert SESSION not in ran.out and SESSION not in ran.err


def test_the_row_names_the_model_the_share_used_and_the_repository() -> None:
    assert run(payload("after_turn1")).out == "Opus 4.8 (1M context) | 7% used | repo\n"
    assert run(payload("sonnet45_usage_formula_probe")).out == "Sonnet 4.5 | 1% used | repo\n"


def test_the_row_has_no_colour_unless_printed_to_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert "\x1b[" not in run(payload("after_turn1")).out
    assert "\x1b[32m7%\x1b[0m used" in run(payload("after_turn1"), terminal=True).out
    assert "\x1b[31m" in run(with_used(75), terminal=True).out
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(payload("after_turn1"), terminal=True).out


def test_control_characters_in_names_never_reach_the_terminal() -> None:
    ran = run(payload("after_turn1", model={"display_name": "Opus\x1b]0;owned\x07 4.8"}))
    assert "\x1b" not in ran.out and "\x07" not in ran.out
    assert ran.out.startswith("Opus]0;owned 4.8 | ")


def test_marks_that_reorder_or_hide_text_never_reach_the_terminal() -> None:
    """A right-to-left override in a model name turned the rest of the row around."""
    hidden = "\u202e\u2066\u200e\u200b\u2028\u2029\ufeff\u061c\u2060"
    ran = run(payload("after_turn1", model={"display_name": f"Opus{hidden} 4.8"}))
    assert not set(hidden) & set(ran.out)
    assert ran.out.startswith("Opus 4.8 | ")


def test_a_long_name_is_cut_short() -> None:
    ran = run(payload("after_turn1", cwd="/x/" + "r" * 200, workspace={}))
    assert ran.out == "Opus 4.8 (1M context) | 7% used | " + "r" * 39 + "…\n"


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b"\xff\xfe", b"[" * 100_000])
def test_any_stdin_still_prints_one_row_and_exits_zero(stdin: bytes) -> None:
    ran = run(stdin)
    assert (ran.code, ran.out, ran.err) == (0, "--% used\n", "")


def test_a_hook_style_payload_with_a_plain_model_id_is_understood() -> None:
    data = {"session_id": SESSION, "cwd": "/home/dev/src/repo", "model": "claude-opus-4-8"}
    assert run(json.dumps(data).encode()).out == "claude-opus-4-8 | --% used | repo\n"


# --- the command line ----------------------------------------------------------------


def test_help_prints_the_usage_and_writes_nothing(ready_home: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    ran = run(payload("after_turn1"), "--help")
    assert (ran.code, ran.out) == (0, 'usage: abcd statusline [--pass-through "<command>"]\n')
    assert changed(before, snapshot(tmp_path)) == set()


@pytest.mark.parametrize("argv", [["--frobnicate"], ["--pass-through"], ["--pass-through", "  "]])
def test_a_wrong_argument_is_a_usage_error(argv: list[str]) -> None:
    ran = run(payload("after_turn1"), *argv)
    assert ran.code == 2 and ran.out == ""
    (line,) = ran.err.splitlines()  # one line, as every usage error
    assert line.startswith("abcd: ") and line.endswith(
        '(usage: abcd statusline [--pass-through "<command>"])'
    )
