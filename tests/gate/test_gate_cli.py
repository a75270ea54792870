"""The gate through the real `abcd memory add`: a refusal writes nothing and echoes nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from abcd.repo import PRIVATE_NAMES_REL
from tests.conftest import BY, Result, Run
from tests.foreign import OWNED_BY_OTHER, give_away

from .samples import TRUE_SECRETS, mixed


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every folder (None) and file (its bytes) under `root`, by relative path."""
    if not root.exists():
        return {}
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        out[rel] = None if path.is_dir() else path.read_bytes()
    return out


def holds_run(haystack: str, secret: str) -> bool:
    return any(secret[i : i + 5] in haystack for i in range(len(secret) - 4))


def private_names(repo: Path, data: bytes = b"Quennell\n") -> Path:
    """The checkout's private-names list, holding `data`."""
    names = repo / PRIVATE_NAMES_REL
    names.parent.mkdir(parents=True)
    names.write_bytes(data)
    return names


def add(
    abcd: Run,
    cwd: Path,
    body: str,
    *extra: str,
    title: str = "A lesson",
    recall: str = "build",
    by: str = BY,
    env: dict[str, str] | None = None,
) -> Result:
    return abcd(
        "memory",
        "add",
        "--title",
        title,
        "--recall",
        recall,
        "--by",
        by,
        "--everywhere",
        *extra,
        stdin=body,
        cwd=cwd,
        env=env,
    )


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def home_with_one_note(abcd: Run, workdir: Path, abcd_home: Path) -> Path:
    result = add(abcd, workdir, "The tests need the race flag.")
    assert result.code == 0, result.err
    assert (abcd_home / "journal").is_dir()
    return abcd_home


@pytest.mark.parametrize(
    "rule_id", ["github-pat", "aws-access-token", "private-key", "generic-api-key", "jwt"]
)
@pytest.mark.parametrize("moved_from_host", [False, True], ids=["agent", "moved-from-host"])
def test_a_refused_add_leaves_the_home_byte_for_byte_unchanged_and_stderr_holds_no_part_of_the_secret(
    abcd: Run, workdir: Path, home_with_one_note: Path, rule_id: str, moved_from_host: bool
) -> None:
    sample = TRUE_SECRETS[rule_id](random.Random(rule_id))
    before = snapshot(home_with_one_note)
    extra = ("--moved-from-host",) if moved_from_host else ()

    result = add(abcd, workdir, f"Deploys work once {sample.text} is set.", *extra)

    assert result.code == 1
    (line,) = result.err.strip().splitlines()  # one line, and nothing on stdout
    assert line.startswith("abcd: refused: secret: ") and line.endswith(" in body")
    assert result.out == ""
    assert not holds_run(result.err + result.out, sample.secret)
    assert snapshot(home_with_one_note) == before


@pytest.mark.parametrize(
    "body",
    [
        "Pasted from the terminal, which wrapped it:\n{head}\n{tail}\nthen deploy.",
        "Windows clipboard: {head}\r\n{tail}",
        "The admin page is at http://{decimal}/admin on the office network.",
    ],
    ids=["wrapped", "wrapped-crlf", "decimal-url-address"],
)
def test_a_wrapped_key_and_a_url_address_in_another_form_are_refused_and_nothing_is_written(
    abcd: Run, workdir: Path, home_with_one_note: Path, body: str
) -> None:
    sample = TRUE_SECRETS["github-pat"](random.Random(body))
    at = len(sample.secret) // 2
    decimal = str((192 << 24) | (168 << 16) | (7 << 8) | 21)  # 192.168.7.21 as one number
    text = body.format(head=sample.secret[:at], tail=sample.secret[at:], decimal=decimal)
    before = snapshot(home_with_one_note)

    result = add(abcd, workdir, text)

    assert result.code == 1
    kind = "network: ipv4 address" if "decimal" in body else "secret: github token"
    assert result.err == f"abcd: refused: {kind} in body\n"
    assert result.out == ""
    assert not holds_run(result.err, sample.secret)
    assert snapshot(home_with_one_note) == before


@pytest.mark.parametrize(
    "said",
    [
        "The staging API key is {key}.",
        "API key: {key}",
        "Log in to the dashboard with the token {key} when asked.",
        "The deploy password for the staging cluster was rotated to {key} today.",
    ],
)
def test_a_key_written_as_prose_is_refused_and_nothing_is_written(
    abcd: Run, workdir: Path, home_with_one_note: Path, said: str
) -> None:
    """Agents write prose: a key given after `is`, after the name alone, or after `rotated to`
    is a key all the same (gitleaks' rule, made for code, wants `=` or `:`)."""
    key = mixed(random.Random(said), 24)
    before = snapshot(home_with_one_note)

    result = add(abcd, workdir, said.format(key=key))

    assert result.code == 1
    assert result.err.strip() == "abcd: refused: secret: credential assignment in body"
    assert not holds_run(result.err + result.out, key)
    assert snapshot(home_with_one_note) == before


def test_a_secret_in_the_title_or_a_recall_word_is_refused_naming_that_field(
    abcd: Run, workdir: Path, home_with_one_note: Path
) -> None:
    token = TRUE_SECRETS["github-pat"](random.Random(5)).text
    before = snapshot(home_with_one_note)
    in_title = add(abcd, workdir, "fine body", title=f"use {token}")
    in_recall = add(abcd, workdir, "fine body", recall=token)
    assert in_title.err.strip().splitlines()[-1] == "abcd: refused: secret: github token in title"
    assert (
        in_recall.err.strip().splitlines()[-1] == "abcd: refused: secret: github token in recall[0]"
    )
    assert snapshot(home_with_one_note) == before


def test_moved_host_memory_text_is_judged_by_the_same_gate(
    abcd: Run, workdir: Path, home_with_one_note: Path
) -> None:
    before = snapshot(home_with_one_note)
    result = add(
        abcd, workdir, "The NAS is at 10.20.30.40 and ssh runs on it.", "--moved-from-host"
    )
    assert result.code == 1
    assert result.err.strip() == "abcd: refused: network: ipv4 address in body"
    assert "10.20" not in result.err
    assert snapshot(home_with_one_note) == before


def test_a_private_name_from_the_checkouts_list_is_refused_and_writes_nothing(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    private_names(repo, b"# clients\nQuennell\n")
    before = snapshot(home_with_one_note)
    result = add(abcd, repo, "Quennell wants the export by Friday.")
    assert result.code == 1
    assert result.err.strip() == "abcd: refused: private name in body"
    assert "Quennell" not in result.err
    assert snapshot(home_with_one_note) == before


def test_an_unreadable_private_names_list_refuses_every_add(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    private_names(repo, b"Quennell\n\xff\xfe\n")
    before = snapshot(home_with_one_note)
    result = add(abcd, repo, "An innocent lesson about caching.")
    assert result.code == 1
    assert "gate unavailable: private-names list unreadable" in result.err
    assert snapshot(home_with_one_note) == before


def test_a_clean_note_still_goes_through(
    abcd: Run, workdir: Path, home_with_one_note: Path
) -> None:
    before = snapshot(home_with_one_note)
    result = add(abcd, workdir, "Run ruff before committing; see https://docs.astral.sh/ruff/.")
    assert result.code == 0, result.err
    assert snapshot(home_with_one_note) != before


def test_a_private_names_list_in_a_checkout_another_account_owns_refuses_the_add(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    names = private_names(repo)
    give_away(repo)
    before = snapshot(home_with_one_note)
    result = add(abcd, repo, "An innocent lesson about caching.")
    assert result.code == 1
    assert result.err.strip() == (
        f"abcd: refused: gate unavailable: private-names list unreadable: {names} "
        f"({repo}: {OWNED_BY_OTHER})"
    )
    assert snapshot(home_with_one_note) == before


def test_a_checkout_another_account_owns_without_a_list_does_not_stop_the_add(
    abcd: Run, repo: Path, home_with_one_note: Path
) -> None:
    (repo / ".abcd").mkdir()
    give_away(repo, repo / ".abcd")
    result = add(abcd, repo, "An innocent lesson about caching.")
    assert result.code == 0, result.err
