"""Issue 11 through the real `abcd` command: disguised secrets, the stamps, one-line titles,
and an import whose unknown key is never echoed. A refusal writes nothing and echoes nothing."""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

import pytest

from tests.conftest import BY, Run

from .attacks import DISGUISES, attempts
from .samples import ALNUM, TRUE_SECRETS, UPPER, rand
from .test_gate_cli import add, holds_run, private_names, snapshot

# One attempt per class and disguise would be 300 processes; a representative
# subset goes through the command, every attempt through `judge_note` (test_attacks).
REPRESENTATIVE = [
    a
    for a in attempts(per_class=1, seed=3)
    if a.name.split(" / ")[0]
    in (
        "github-pat",
        "der-private-key",
        "azure-storage-key",
        "cli-password-flag",
        "session-cookie",
        "percent-encoded or raw #? url password",
        "home folder of another system",
    )
]


@pytest.fixture
def home_with_one_note(abcd: Run, repo: Path, abcd_home: Path) -> Path:
    result = add(abcd, repo, "The tests need the race flag.")
    assert result.code == 0, result.err
    return abcd_home


def test_the_representative_subset_covers_every_disguise() -> None:
    assert {a.name.split(" / ")[1] for a in REPRESENTATIVE} == set(DISGUISES)


@pytest.mark.parametrize("attempt", REPRESENTATIVE, ids=lambda a: a.name)
def test_a_disguised_secret_in_the_body_is_refused_by_the_command_and_nothing_is_written(
    abcd: Run, repo: Path, home_with_one_note: Path, attempt: object
) -> None:
    from .attacks import Attempt

    assert isinstance(attempt, Attempt)
    before = snapshot(home_with_one_note)
    result = add(abcd, repo, f"Deploys work once {attempt.sample.text} is set.")
    assert result.code == 1
    assert result.err.strip() == f"abcd: refused: {attempt.kind} in body"
    assert not holds_run(result.err + result.out, attempt.sample.secret)
    assert snapshot(home_with_one_note) == before


def test_a_private_name_glued_into_an_identifier_is_refused_by_the_command(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    private_names(repo)
    for body in ("Run quennell_deploy nightly.", "The QuennellClient retries twice."):
        result = add(abcd, repo, body)
        assert (result.code, result.err.strip()) == (1, "abcd: refused: private name in body")
        assert "uennel" not in result.err


def aws_shaped_vendor(rng: random.Random) -> str:
    return "AK" + "IA" + rand(rng, 16, UPPER + "234567")


def test_a_secret_in_by_is_refused_naming_by_and_writes_nothing(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    vendor = aws_shaped_vendor(random.Random(1))
    before = snapshot(home_with_one_note)
    result = add(abcd, repo, "A lesson.", title="T", recall="w", by=f"{vendor}:claude")
    assert (result.code, result.err.strip()) == (1, "abcd: refused: secret: aws access key in --by")
    assert vendor[4:] not in result.err
    assert snapshot(home_with_one_note) == before


def test_a_secret_in_session_or_in_the_hosts_session_variable_is_refused_naming_its_source(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    token = TRUE_SECRETS["github-pat"](random.Random(2)).text
    before = snapshot(home_with_one_note)
    flag = add(abcd, repo, "A lesson.", "--session", token, title="T", recall="w")
    env = add(abcd, repo, "A lesson.", title="T", recall="w", env={"CLAUDE_CODE_SESSION_ID": token})
    assert (flag.code, flag.err.strip()) == (1, "abcd: refused: secret: github token in --session")
    assert (env.code, env.err.strip()) == (
        1,
        "abcd: refused: secret: github token in CLAUDE_CODE_SESSION_ID",
    )
    assert not holds_run(flag.err + env.err, token)
    assert snapshot(home_with_one_note) == before


def test_a_private_name_in_by_or_session_is_refused_and_a_uuid_session_is_stamped(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    private_names(repo)
    by = add(abcd, repo, "A lesson.", title="T", recall="w", by="Quennell:claude")
    session = abcd(
        "memory", "remove", "mem-0000000000000000", "--session", "quennell-session-7", cwd=repo
    )
    session_id = str(uuid.UUID(int=random.Random(4).getrandbits(128), version=4))
    ok = add(abcd, repo, "A lesson.", "--session", session_id, title="T", recall="w")
    assert (by.code, by.err.strip()) == (1, "abcd: refused: private name in --by")
    assert (session.code, session.err.strip()) == (1, "abcd: refused: private name in --session")
    assert ok.code == 0, ok.err
    assert session_id in abcd("memory", "list", cwd=repo).out


@pytest.mark.parametrize(
    "breaker", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c"], ids=["LS", "PS", "NEL", "VT", "FF"]
)
def test_a_title_holding_any_unicode_line_break_is_refused_as_not_one_line(
    abcd: Run, repo: Path, home_with_one_note: Path, breaker: str
) -> None:
    before = snapshot(home_with_one_note)
    result = add(abcd, repo, "A lesson.", title=f"Lesson{breaker}## machine notes")
    assert (result.code, result.err.strip()) == (1, "abcd: refused: title must be one line")
    assert snapshot(home_with_one_note) == before


def test_import_never_echoes_an_unknown_key(
    abcd: Run, repo: Path, home_with_one_note: Path, tmp_path: Path
) -> None:
    token = TRUE_SECRETS["github-pat"](random.Random(6)).text
    lines = [
        json.dumps({"title": "T", "body": "A lesson.", "recall": ["w"], token: 1}),
        json.dumps({"title": "T2", "body": "Another lesson.", "recall": ["w"]}),
    ]
    (tmp_path / "notes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = abcd("memory", "import", str(tmp_path / "notes.jsonl"), "--by", BY, cwd=repo)
    assert result.code == 1
    assert (
        f"abcd: {tmp_path / 'notes.jsonl'} line 1: not a note (a key other than title, body, "
        "recall and everywhere)" in result.err
    )
    assert not holds_run(result.err + result.out, token)
    assert len(result.out.split()) == 1  # the good line was written


def test_the_stamps_are_judged_before_the_import_file_is_read(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    token = "gh" + "p_" + rand(random.Random(8), 36, ALNUM)
    result = abcd("memory", "import", "-", "--by", BY, "--session", token, stdin="", cwd=repo)
    assert (result.code, result.err.strip()) == (
        1,
        "abcd: refused: secret: github token in --session",
    )
