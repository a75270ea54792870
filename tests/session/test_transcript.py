"""The transcript fallback: a bounded, guarded tail read, the last main-chain reply, the model's window."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from abcd.session.fill import (
    MODEL_WINDOWS,
    TRANSCRIPT_TAIL_BYTES,
    Compaction,
    Fill,
    Reply,
    current_fill,
    fill_from_transcript,
    parse_transcript_line,
    read_transcript_tail,
    window_for,
)
from abcd.trust import guarded
from tests.oscalls import patch_os

from .helpers import TRANSCRIPTS, assistant, boundary, transcript, user

OTHER_UID = 54321


def fill_of(path: Path) -> Fill:
    return current_fill(None, None, str(path))


# --- the real host's transcripts --------------------------------------------------


def independent_reading(path: Path) -> float | None:
    """The expected fill, read plainly: each line in order, the last real main-chain reply after the last compaction."""
    windows = {"claude-opus-4-8": 200_000}
    last: float | None = None
    for raw in path.read_text().splitlines():
        entry = json.loads(raw)
        if entry.get("isSidechain"):
            continue
        if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
            last = 0.0
        elif entry.get("type") == "assistant" and entry["message"]["model"] != "<synthetic>":
            usage = entry["message"]["usage"]
            used = (
                usage["input_tokens"]
                + usage["cache_creation_input_tokens"]
                + usage["cache_read_input_tokens"]
            )
            last = 100.0 * used / windows[entry["message"]["model"]]
    return last


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # 12,000 + 3,000 + 50,000 tokens over claude-opus-4-8's 200k window, after the compaction.
        ("transcript_sample_print_resume_compact.jsonl", 32.5),
        # The compaction is the last event: only its summary is left in the window.
        ("transcript_sample_interactive.jsonl", 0.0),
    ],
)
def test_the_real_transcripts_give_the_last_main_chain_replys_share_of_the_window(
    name: str, expected: float
) -> None:
    path = TRANSCRIPTS / name
    assert independent_reading(path) == pytest.approx(expected)
    fill = fill_of(path)
    assert fill.source == "transcript"
    assert fill.used_percentage == pytest.approx(independent_reading(path))


def test_every_line_of_the_real_transcripts_parses_without_error() -> None:
    paths = sorted(TRANSCRIPTS.glob("transcript_sample_*.jsonl"))
    assert len(paths) == 2
    facts = [parse_transcript_line(line) for p in paths for line in p.read_bytes().splitlines()]
    assert sum(isinstance(f, Reply) for f in facts) == 6  # the synthetic reply is not one
    assert sum(isinstance(f, Compaction) for f in facts) == 2


# --- which lines count --------------------------------------------------------------


def test_the_fill_counts_input_cache_creation_and_cache_read_tokens_but_not_output(
    tmp_path: Path,
) -> None:
    path = transcript(tmp_path, assistant(10_000, 20_000, 30_000, output_tokens=90_000))
    assert fill_of(path) == Fill(30.0, "transcript")


def test_a_sidechain_reply_is_not_the_main_chains_fill(tmp_path: Path) -> None:
    path = transcript(tmp_path, assistant(20_000), assistant(180_000, sidechain=True))
    assert fill_of(path) == Fill(10.0, "transcript")


def test_a_sidechain_reply_in_the_hosts_compact_form_is_passed_over_too(tmp_path: Path) -> None:
    compact = json.dumps(json.loads(assistant(180_000, sidechain=True)), separators=(",", ":"))
    assert '"isSidechain":true' in compact
    path = transcript(tmp_path, assistant(20_000), compact.encode())
    assert fill_of(path) == Fill(10.0, "transcript")


def test_a_reply_whose_tool_input_says_sidechain_is_still_the_main_chains_fill(
    tmp_path: Path,
) -> None:
    """A tool's input is written into the line as the model wrote it, an object: the bytes
    `"isSidechain":true` there made the last reply (95%) pass over for an earlier one (5%)."""
    entry = json.loads(assistant(190_000))
    entry["message"]["content"] = [{"type": "tool_use", "input": {"isSidechain": True}}]
    line = json.dumps(entry, separators=(",", ":")).encode()
    path = transcript(tmp_path, assistant(10_000), line)
    assert fill_of(path) == Fill(95.0, "transcript")


def test_a_reply_the_host_made_up_is_passed_over(tmp_path: Path) -> None:
    path = transcript(tmp_path, assistant(40_000), assistant(0, model="<synthetic>"))
    assert fill_of(path) == Fill(20.0, "transcript")


def test_a_reply_after_a_compaction_gives_its_own_figure(tmp_path: Path) -> None:
    path = transcript(tmp_path, assistant(180_000), boundary(), user("go on"), assistant(6_000))
    assert fill_of(path) == Fill(3.0, "transcript")


def test_a_compaction_after_the_last_reply_reads_as_an_empty_window(tmp_path: Path) -> None:
    path = transcript(tmp_path, assistant(180_000), boundary(), user("go on"))
    assert fill_of(path) == Fill(0.0, "transcript")


def test_a_sidechain_compaction_does_not_empty_the_main_window(tmp_path: Path) -> None:
    sidechain_boundary = boundary().replace(b'"isSidechain": false', b'"isSidechain": true')
    path = transcript(tmp_path, assistant(100_000), sidechain_boundary)
    assert fill_of(path) == Fill(50.0, "transcript")


def test_a_model_missing_from_the_table_leaves_the_fill_unknown(tmp_path: Path) -> None:
    path = transcript(tmp_path, assistant(40_000), assistant(1_000, model="gpt-5"))
    assert fill_of(path) == Fill(None, "unknown")


def test_a_reply_larger_than_the_window_reads_as_full(tmp_path: Path) -> None:
    path = transcript(tmp_path, assistant(500_000))
    assert fill_of(path) == Fill(100.0, "transcript")


def test_a_transcript_without_a_reply_leaves_the_fill_unknown(tmp_path: Path) -> None:
    assert fill_of(transcript(tmp_path, user("hello"))) == Fill(None, "unknown")


def test_a_cut_first_line_of_a_tail_is_skipped_but_a_whole_file_is_read_from_its_start() -> None:
    tail = assistant(100_000) + b"\n" + user("later") + b"\n"
    assert fill_from_transcript(tail, starts_file=True) == 50.0
    assert fill_from_transcript(tail, starts_file=False) is None


# --- the window table ----------------------------------------------------------------


def test_the_window_is_the_longest_matching_prefix() -> None:
    assert window_for("claude-2.0") == 100_000
    assert window_for("claude-2.1") == 200_000
    assert window_for("claude-instant-1.2") == 100_000
    assert window_for("gpt-5") is None


def test_a_model_also_sold_with_a_million_tokens_gets_the_smaller_window() -> None:
    for model in ("claude-opus-4-8", "claude-opus-4-8[1m]", "claude-sonnet-4-5-20250929"):
        assert window_for(model) == 200_000
    assert max(MODEL_WINDOWS.values()) == 200_000


# --- the guarded, bounded read ----------------------------------------------------------


def test_a_fifty_megabyte_transcript_is_read_no_further_than_its_last_256_kib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.jsonl"
    filler = user("x" * 1000) + b"\n"
    with path.open("wb") as out:
        out.write(assistant(190_000) + b"\n")
        out.write(filler * (50 * 1024 * 1024 // len(filler)))
        out.write(assistant(30_000, 10_000) + b"\n" + user("and now") + b"\n")
    assert path.stat().st_size > 50 * 1024 * 1024

    opened: list[str] = []
    read_bytes: list[int] = []
    real_open, real_read = guarded.open_at, os.read

    def recording_open(p: str, flags: int, mode: int = 0o600, dir_fd: int | None = None) -> int:
        opened.append(p)
        return real_open(p, flags, mode, dir_fd)

    def counting_read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        read_bytes.append(len(data))
        return data

    with monkeypatch.context() as patch:
        patch.setattr(guarded, "open_at", recording_open)
        patch_os(patch, "read", counting_read)
        fill = fill_of(path)

    assert fill == Fill(20.0, "transcript")
    assert opened == [str(path)]
    assert sum(read_bytes) <= TRANSCRIPT_TAIL_BYTES


def test_a_symlinked_transcript_is_not_followed(tmp_path: Path) -> None:
    real = transcript(tmp_path, assistant(100_000))
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert read_transcript_tail(str(link)) is None
    assert fill_of(link) == Fill(None, "unknown")


def test_a_fifo_named_as_the_transcript_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    result: list[Fill] = []
    worker = threading.Thread(target=lambda: result.append(fill_of(fifo)), daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert result == [Fill(None, "unknown")]


def test_a_transcript_owned_by_another_account_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root; CI runs as root")
    path = transcript(tmp_path, assistant(100_000))
    os.chown(path, OTHER_UID, OTHER_UID)
    assert fill_of(path) == Fill(None, "unknown")


def test_a_folder_a_relative_path_or_an_absent_file_gives_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript(tmp_path, assistant(100_000), name="here.jsonl")
    monkeypatch.chdir(tmp_path)
    assert fill_of(tmp_path) == Fill(None, "unknown")
    assert current_fill(None, None, "here.jsonl") == Fill(None, "unknown")
    assert fill_of(tmp_path / "absent.jsonl") == Fill(None, "unknown")
    assert current_fill(None, None, "/tmp/a\0b") == Fill(None, "unknown")


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe\x00garbage\n" * 100,
        b'{"type": "assistant", "message": {"model": "claude-opus-4-8", "usage": {"input_tokens": "many"}}}\n',
        b'{"type": "assistant", "message": {"model": "claude-opus-4-8", "usage": {"input_tokens": -5}}}\n',
        b'{"type": "assistant", "isSidechain": "no", "message": {}}\n',
        b'{"type": "assistant", "message": null}\n[1, 2, 3]\n"assistant"\n',
        b'{"type": "assistant", "message": {"model": "claude-opus-4-8", "usage": {"input_tokens": 5',
        b"",
    ],
)
def test_a_malformed_transcript_gives_unknown_never_an_error(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    assert fill_of(path) == Fill(None, "unknown")
