"""A checkout another account owns feeds the agent nothing, and says so on every surface.

The tests run as root, so `os.chown` hands a folder to uid 12345 (no passwd
entry needed). The person's own home (its notes, pages and rules) still
comes back in such a checkout; only the checkout's layer is refused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import BY, Run
from tests.foreign import OTHER_UID, OWNED_BY_OTHER, give_away

from .conftest import Host, keys, page, project_notes, rules

REFUSED = "this checkout's rules, notes and pages are not read"
PROJECT_NOTE = "mem-2611010000001234"


def fill_both_layers(host: Host, repo: Path, abcd_home: Path) -> str:
    """Rules, a note and a page in the checkout and on the machine, all about tests; the machine
    note's id."""
    mine = host.note("Tests need the race flag", "Use -race.", "test", everywhere=True)
    rules(repo / ".abcd", {"TESTING": {"recall": ["test"], "rules": ["Project rule."]}})
    project_notes(
        repo, {"id": PROJECT_NOTE, "title": "Project test note", "body": "b", "recall": ["test"]}
    )
    page(repo / ".abcd" / "memory", "ref_test_matrix.md", ["test"], "Test matrix", "Linux.")
    rules(abcd_home, {"MINE": {"recall": ["test"], "rules": ["My own rule."]}})
    page(abcd_home / "memory", "ref_test_mine.md", ["test"], "My test page", "Mine.")
    return mine


def test_a_checkout_another_account_owns_is_refused_in_one_line_and_the_home_still_recalls(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    mine = fill_both_layers(host, repo, abcd_home)
    give_away(repo)
    host.start()
    env = host.prompt("run the test suite")
    assert sorted(keys(env)) == sorted([mine, "page:ref_test_mine.md"])
    assert env["injected"] == ["MINE"]
    assert "Project rule." not in env["text"] and "Project test note" not in env["text"]
    refusal = f"abcd memory: {repo}: {OWNED_BY_OTHER}; {REFUSED}"
    assert [line for line in env["stderr"].splitlines() if str(repo) in line] == [refusal]


def test_an_abcd_folder_another_account_owns_is_named_as_that_folder(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    fill_both_layers(host, repo, abcd_home)
    give_away(repo / ".abcd")
    host.start()
    env = host.prompt("run the test suite")
    assert "page:ref_test_matrix.md" not in keys(env) and PROJECT_NOTE not in keys(env)
    assert f"abcd memory: {repo}/.abcd: {OWNED_BY_OTHER}; {REFUSED}" in env["stderr"]


def test_a_git_folder_another_account_owns_refuses_the_checkout(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    fill_both_layers(host, repo, abcd_home)
    give_away(repo / ".git")
    env = host.prompt("run the test suite")
    assert PROJECT_NOTE not in keys(env)
    assert f"abcd memory: {repo}/.git: {OWNED_BY_OTHER}; {REFUSED}" in env["stderr"]


def test_one_file_another_account_owns_is_refused_and_the_rest_of_the_checkout_still_recalls(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    fill_both_layers(host, repo, abcd_home)
    give_away(repo / ".abcd" / "memory.json", repo / ".abcd" / "memory" / "ref_test_matrix.md")
    env = host.prompt("run the test suite")
    assert PROJECT_NOTE not in keys(env) and "page:ref_test_matrix.md" not in keys(env)
    assert sorted(env["injected"]) == ["MINE", "TESTING"]
    stderr = env["stderr"]
    assert f"project notes unreadable: {repo}/.abcd/memory.json: {OWNED_BY_OTHER}" in stderr
    assert f"{repo}/.abcd/memory/ref_test_matrix.md: {OWNED_BY_OTHER}" in stderr


def test_a_page_handed_to_another_account_after_it_was_recalled_is_refused_at_the_next_prompt(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    fill_both_layers(host, repo, abcd_home)
    matrix = repo / ".abcd" / "memory" / "ref_test_matrix.md"
    past = matrix.stat().st_mtime - 60  # old enough for the cache to keep it
    os.utime(matrix, (past, past))
    assert "page:ref_test_matrix.md" in keys(host.prompt("run the test suite", "warm"))
    give_away(matrix)  # a chown moves the change time, so the stat the cache keyed it by moves
    env = host.prompt("run the test suite", "later")
    assert "page:ref_test_matrix.md" not in keys(env)
    assert f"{matrix}: {OWNED_BY_OTHER}" in env["stderr"]


def test_a_world_writable_file_is_refused_and_a_group_writable_one_read(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    fill_both_layers(host, repo, abcd_home)
    (repo / ".abcd" / "memory.json").chmod(0o664)  # git under umask 002 writes it so
    (repo / ".abcd" / "rules.json").chmod(0o666)
    env = host.prompt("run the test suite")
    assert PROJECT_NOTE in keys(env)
    assert env["injected"] == ["MINE"]
    assert f"abcd memory: {repo}/.abcd/rules.json: writable by others" in env["stderr"]


def test_abcd_rules_names_the_checkout_another_account_owns(
    abcd: Run, host: Host, repo: Path, abcd_home: Path
) -> None:
    fill_both_layers(host, repo, abcd_home)
    give_away(repo)
    result = abcd("rules", cwd=repo)
    assert result.code == 1
    assert result.err.strip() == f"abcd: {repo}: {OWNED_BY_OTHER}"
    assert "TESTING" not in result.out


def test_the_diagnostic_lists_the_refused_checkout_among_the_unreadable_and_ranks_the_home(
    abcd: Run, host: Host, repo: Path, abcd_home: Path
) -> None:
    mine = fill_both_layers(host, repo, abcd_home)
    give_away(repo)
    result = abcd("rules", "--prompt", "run the test suite", "--all", cwd=repo)
    assert result.code == 1
    message = f"{repo}: {OWNED_BY_OTHER}; {REFUSED}"
    assert result.err.strip() == f"abcd: {message}"
    assert f"unreadable: 1\n  checkout  {message}" in result.out
    assert mine in result.out and PROJECT_NOTE not in result.out
    facts = json.loads(abcd("rules", "--prompt", "test", "--json", cwd=repo).out)
    assert facts["problems"] == [{"kind": "checkout", "message": message}]
    assert [d["name"] for d in facts["domains"]] == ["MINE"]


def test_memory_list_names_the_checkout_another_account_owns_and_lists_the_home(
    abcd: Run, host: Host, repo: Path, abcd_home: Path
) -> None:
    mine = fill_both_layers(host, repo, abcd_home)
    give_away(repo)
    result = abcd("memory", "list", cwd=repo)
    assert result.code == 1
    assert mine in result.out and PROJECT_NOTE not in result.out
    assert f"project notes unreadable: {repo}: {OWNED_BY_OTHER}" in result.err


def test_a_checkout_of_ones_own_inside_a_folder_another_account_owns_is_read(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    fill_both_layers(host, repo, abcd_home)
    give_away(repo.parent)  # /tmp-like: the folder above is not the checkout
    env = host.prompt("run the test suite")
    assert PROJECT_NOTE in keys(env) and "page:ref_test_matrix.md" in keys(env)
    assert str(OTHER_UID) not in env["stderr"]


def test_a_planted_git_file_neither_hangs_nor_fills_the_hook(
    abcd: Run, abcd_home: Path, tmp_path: Path
) -> None:
    """The walk up from the working folder reads any `.git` file it meets, in any folder above
    it, so anyone who can write one of those folders can plant it: a `commondir` that is a FIFO
    hung every hook, one linked to /dev/zero read until memory ran out, a huge `.git` was read
    whole. Each is now read as "not a linked worktree", and the hook answers."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    mine = Host(abcd, elsewhere).note(
        "Tests need the race flag", "Use -race.", "test", everywhere=True
    )
    fifo, zero, huge = (tmp_path / name for name in ("fifo", "zero", "huge"))
    for top in (fifo, zero, huge):
        (top / "gd").mkdir(parents=True)
        (top / ".git").write_text(f"gitdir: {top / 'gd'}\n")
    os.mkfifo(fifo / "gd" / "commondir")
    (zero / "gd" / "commondir").symlink_to("/dev/zero")
    with open(huge / ".git", "wb") as handle:
        handle.write(f"gitdir: {huge / 'gd'}\n".encode())
        handle.truncate(3 << 30)  # 3 GiB, sparse
    for top in (fifo, zero, huge):
        host = Host(abcd, top)
        host.start()
        assert keys(host.prompt("run the test suite")) == [mine], top
        # `memory add` walks the same way, and answers: git finds no commit in such a checkout.
        added = abcd(
            "memory", "add", "--title", "Lint", "--recall", "lint", "--by", BY, stdin="x", cwd=top
        )
        assert added.code == 1 and "has no commit yet" in added.err, added.err


def test_session_start_asks_no_git_in_a_repository_another_account_owns(
    abcd: Run, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    """Git refuses such a repository by default; a person's `safe.directory = *` would let it
    answer, and its root commit was recorded as this session's checkout."""
    config = tmp_path / "gitconfig"
    config.write_text("[safe]\n\tdirectory = *\n")
    give_away(repo)
    payload = {"session_id": "s1", "cwd": str(repo), "source": "startup"}
    done = abcd(
        "hook", "session-start", stdin=json.dumps(payload), env={"GIT_CONFIG_GLOBAL": str(config)}
    )
    assert done.code == 0, done.err
    ledgers = list((abcd_home / "sessions").iterdir())
    assert ledgers and all(b"repo.seen" not in ledger.read_bytes() for ledger in ledgers)
