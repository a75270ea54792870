"""The repository layer's parsed files, kept between prompts: reused only while the file is unchanged."""

from __future__ import annotations

import io
import json
import marshal
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from abcd.host import hook
from abcd.recall.stemcache import cache_rel, parsed_file
from tests.conftest import Run
from tests.oscalls import patch_os

from .conftest import Host, keys, page, project_notes, rules
from .transcript import FRESH, transcript

HOUR_NS = 3600 * 10**9


def _age(path: Path) -> None:
    """Date the file's modification an hour back, as a file not touched since an earlier day."""
    old = time.time_ns() - HOUR_NS
    os.utime(path, ns=(old, old))


def _rewrite_keeping_stat(path: Path, old: str, new: str) -> os.stat_result:
    """Replace `old` by `new` (as long) and put the modification time back: within one timestamp
    tick a file system may leave the stat just so. The change time still moves. Returns the stat
    from before."""
    before = path.stat()
    path.write_text(path.read_text().replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    return before


def _opened_by_a_prompt(
    repo: Path, session: str, transcript_path: str
) -> tuple[set[str], dict[str, Any]]:
    """The names of the files one prompt opened (in process, through `os.open`), and its envelope."""
    opened: set[str] = set()
    real_open = os.open

    def recording_open(
        path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None
    ) -> int:
        opened.add(os.path.basename(os.fspath(path)))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    payload = {
        "session_id": session,
        "cwd": str(repo),
        "prompt": "auth",
        "transcript_path": transcript_path,
    }
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch_os(patch, "open", recording_open)
        hook.main(
            ["prompt-router", "--json"],
            io.BytesIO(json.dumps(payload).encode()),
            out,
            io.StringIO(),
        )
    return opened, json.loads(out.getvalue())


def _served_from_the_cache_once_read(
    host: Host, where: Path, path: Path, transcript_path: str, text: str
) -> None:
    """Two prompts of `auth` in new sessions from `where`: the first reads the page at `path`,
    the second brings it back (with `text`) without opening it."""
    key = f"page:{path.name}"
    host.start("s1")
    opened, env = _opened_by_a_prompt(where, "s1", transcript_path)
    assert keys(env) == [key] and path.name in opened
    host.start("s2")
    opened, env = _opened_by_a_prompt(where, "s2", transcript_path)
    assert keys(env) == [key] and text in env["text"]
    assert path.name not in opened  # it came from the cache


def test_an_unchanged_page_is_not_read_again_and_a_changed_one_always_is(
    host: Host, repo: Path, tmp_path: Path
) -> None:
    full = transcript(tmp_path, FRESH)
    pages = repo / ".abcd" / "memory"
    path = page(pages, "ref_auth_tokens.md", ["auth"], "Sign-in tokens", "Tokens rotate hourly.")
    _age(path)
    _served_from_the_cache_once_read(host, repo, path, full, "Tokens rotate hourly.")
    # Same size, same modification time, new words: the change time differs, so it is read again.
    stat = _rewrite_keeping_stat(path, "hourly", "weekly")
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    host.start("s3")
    env = host.prompt("auth", "s3", transcript_path=full)
    assert "Tokens rotate weekly." in env["text"] and "hourly" not in env["text"]


def test_a_page_written_just_now_is_not_kept_so_a_quick_second_write_is_seen(
    host: Host, repo: Path, tmp_path: Path
) -> None:
    full = transcript(tmp_path, FRESH)
    pages = repo / ".abcd" / "memory"
    path = page(pages, "ref_auth_tokens.md", ["auth"], "Sign-in tokens", "Tokens rotate hourly.")
    host.start("s1")
    assert "hourly" in host.prompt("auth", "s1", transcript_path=full)["text"]
    _rewrite_keeping_stat(path, "hourly", "weekly")
    host.start("s2")
    assert "weekly" in host.prompt("auth", "s2", transcript_path=full)["text"]


def test_a_cached_page_replaced_by_a_link_is_refused_not_served(host: Host, repo: Path) -> None:
    pages = repo / ".abcd" / "memory"
    path = page(pages, "ref_auth_tokens.md", ["auth"], "Sign-in tokens", "Tokens rotate hourly.")
    _age(path)
    host.start("s1")
    assert keys(host.prompt("auth", "s1")) == ["page:ref_auth_tokens.md"]
    target = repo / "elsewhere.md"
    os.replace(path, target)
    path.symlink_to(target)
    host.start("s2")
    env = host.prompt("auth", "s2")
    assert keys(env) == [] and "ref_auth_tokens.md" in env["stderr"]


def test_unchanged_project_notes_come_from_the_cache_and_an_edit_is_seen(
    host: Host, repo: Path
) -> None:
    # (Whether the file is opened again is the page test's subject; this one follows edits.)
    note = {
        "id": "mem-2611010000001234",
        "title": "Deploy from main",
        "body": "Only main.",
        "recall": ["deploy"],
    }
    project_notes(repo, note)
    memory = repo / ".abcd" / "memory.json"
    _age(memory)
    host.start("s1")
    assert keys(host.prompt("deploy it", "s1")) == ["mem-2611010000001234"]
    host.start("s2")
    assert keys(host.prompt("deploy it", "s2")) == ["mem-2611010000001234"]
    project_notes(repo, dict(note, recall=["release"]))
    host.start("s3")
    assert keys(host.prompt("deploy it", "s3")) == []
    host.start("s4")
    assert keys(host.prompt("release it", "s4")) == ["mem-2611010000001234"]


def test_outside_a_checkout_an_unchanged_machine_page_is_not_read_again(
    abcd: Run, abcd_home: Path, tmp_path: Path
) -> None:
    full = transcript(tmp_path, FRESH)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outside = Host(abcd, elsewhere)
    path = page(abcd_home / "memory", "ref_auth_keys.md", ["auth"], "Signing keys", "Rotate them.")
    _age(path)
    # The set of caches kept for the prompts outside any checkout.
    _served_from_the_cache_once_read(outside, elsewhere, path, full, "Rotate them.")
    assert (abcd_home / cache_rel("", "parsed")).is_file()


def test_the_rules_words_are_kept_with_the_parsed_files_and_inject_the_same(
    host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    full = transcript(tmp_path, FRESH)
    rules(
        repo / ".abcd",
        {"AUTH": {"recall": ["auth"], "aliases": ["signing keys"], "rules": ["Rotate."]}},
    )
    host.start("s1")
    first = host.prompt("auth and signing keys", "s1", transcript_path=full)
    assert first["injected"] == ["AUTH"]
    found = parsed_file((abcd_home / cache_rel(str(repo), "parsed")).read_bytes())
    assert found is not None
    kept = found[0]
    assert kept["words"]["auth"] == ("auth",) and kept["words"]["signing keys"] == ("sign", "key")
    host.start("s2")
    again = host.prompt("auth and signing keys", "s2", transcript_path=full)
    assert again["text"] == first["text"]


def _kept_page(host: Host, repo: Path, abcd_home: Path, full: str) -> tuple[Path, str]:
    """A page brought back once (so its parse is kept), its text as sent, and the parsed file."""
    pages = repo / ".abcd" / "memory"
    path = page(pages, "ref_auth_tokens.md", ["auth"], "Sign-in tokens", "Tokens rotate hourly.")
    _age(path)
    host.start("s1")
    text = host.prompt("auth", "s1", transcript_path=full)["text"]
    assert "Tokens rotate hourly." in text
    return abcd_home / cache_rel(str(repo), "parsed"), text


def _body_flipped(cache: Path) -> None:
    """One letter of the kept page's body flipped, in the bodies' piece behind its own CRC-32."""
    data = bytearray(cache.read_bytes())
    data[data.index(b"Tokens rotate hourly.")] ^= 0x20
    cache.write_bytes(bytes(data))


def test_a_kept_page_is_sent_whole_with_its_body_read_from_the_cache(
    host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    full = transcript(tmp_path, FRESH)
    cache, text = _kept_page(host, repo, abcd_home, full)
    found = parsed_file(cache.read_bytes())
    assert found is not None
    stored, bodies = found
    [(_, kept)] = [v for k, v in stored["files"].items() if k.endswith("ref_auth_tokens.md")]
    assert type(kept[1]) is int  # the body set apart, in the second piece
    assert b"Tokens rotate hourly." in bodies
    host.start("s2")
    assert host.prompt("auth", "s2", transcript_path=full)["text"] == text


@pytest.mark.parametrize("how", ["flipped", "cut"])
def test_a_kept_body_that_does_not_check_is_read_again_from_its_page(
    host: Host, repo: Path, abcd_home: Path, tmp_path: Path, how: str
) -> None:
    full = transcript(tmp_path, FRESH)
    cache, text = _kept_page(host, repo, abcd_home, full)
    if how == "flipped":
        _body_flipped(cache)
    else:
        data = cache.read_bytes()
        cache.write_bytes(data[: data.index(b"Tokens rotate hourly.") + 5])
    host.start("s2")
    again = host.prompt("auth", "s2", transcript_path=full)
    assert again["text"] == text  # the same, read from the page itself
    assert "recall cache:" in again["stderr"] or how == "cut"  # a cut file is not read at all
    # And kept anew: the next prompt reads it from the cache again.
    found = parsed_file(cache.read_bytes())
    assert found is not None and b"Tokens rotate hourly." in found[1]
    host.start("s3")
    assert host.prompt("auth", "s3", transcript_path=full)["text"] == text


def test_a_kept_body_number_below_zero_is_never_another_pages_body(
    host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    # A prompt numbers the bodies it sets apart itself -1, -2, ...: a kept entry claiming one
    # (a damaged or rewritten cache, its checks made right) would show another page's text.
    full = transcript(tmp_path, FRESH)
    cache, _ = _kept_page(host, repo, abcd_home, full)

    def claiming_minus_one(stored: dict[str, Any], bodies: bytes) -> bytes:
        [rel] = [k for k in stored["files"] if k.endswith("ref_auth_tokens.md")]
        key, kept = stored["files"][rel]
        stored["files"][rel] = (key, (kept[0], -1, *kept[2:]))
        return bodies

    _forged(cache, claiming_minus_one)
    # A second page, new to the cache: this prompt parses it and sets its body apart as -1.
    other = page(repo / ".abcd" / "memory", "ref_auth_keys.md", ["auth"], "Keys", "Keys expire.")
    _age(other)
    host.start("s2")
    env = host.prompt("auth", "s2", transcript_path=full)
    sections = env["text"].split("### ")
    [tokens] = [s for s in sections if s.startswith("page:ref_auth_tokens.md")]
    [keys_page] = [s for s in sections if s.startswith("page:ref_auth_keys.md")]
    assert "Tokens rotate hourly." in tokens and "Keys expire." not in tokens
    assert "Keys expire." in keys_page


def _reach_file(home: Path) -> tuple[int, int, bytes]:
    """The one checkout's reach table as kept: its inode, modification time and bytes."""
    (found,) = (home / "cache").glob("reach-*.marshal")
    st = found.stat()
    return st.st_ino, st.st_mtime_ns, found.read_bytes()


@pytest.mark.parametrize("changed", ["page", "project notes"])
def test_a_changed_file_is_ranked_under_the_key_the_next_prompts_find_it_by(
    host: Host, repo: Path, abcd_home: Path, tmp_path: Path, changed: str
) -> None:
    # The prompt that parses a changed file keys its items as the prompts after it will, from
    # the cache: one reach table built for the change, not one then and another at the next.
    path = page(
        repo / ".abcd" / "memory", "ref_auth_tokens.md", ["auth"], "Sign-in", "Tokens rotate."
    )
    note = {"id": "mem-2611010000001234", "title": "Auth", "body": "Only main.", "recall": ["auth"]}
    project_notes(repo, note)
    memory = repo / ".abcd" / "memory.json"
    for each in (path, memory):
        _age(each)
    full = transcript(tmp_path, FRESH)  # room enough for the bodies
    host.start("s1")
    assert len(keys(host.prompt("auth", "s1", transcript_path=full))) == 2
    if changed == "page":
        path.write_text(path.read_text().replace("rotate", "expire"))
        _age(path)
    else:
        project_notes(repo, dict(note, body="Only the release branch."))
        _age(memory)
    host.start("s2")
    env = host.prompt("auth", "s2", transcript_path=full)
    assert "expire" in env["text"] if changed == "page" else "release branch" in env["text"]
    built = _reach_file(abcd_home)
    for session in ("s3", "s4"):
        host.start(session)
        assert host.prompt("auth", session, transcript_path=full)["text"] == env["text"]
        assert _reach_file(abcd_home) == built  # read, not built again


def _forged(cache: Path, change: Callable[[dict[str, Any], bytes], bytes]) -> None:
    """The parsed file rewritten as a program running as you could, with abcd's own formats:
    `change` edits its first piece in place and gives the bodies' bytes; every check made right."""
    from abcd.recall import pieces
    from abcd.recall.stemcache import _reach_header

    found = parsed_file(cache.read_bytes())
    assert found is not None
    stored, bodies = found
    bodies = change(stored, bodies)
    cache.write_bytes(pieces.encode(_reach_header(), [marshal.dumps(stored), bodies]))


def test_verify_names_a_parsed_copy_that_holds_what_its_file_does_not(
    abcd: Run, host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    full = transcript(tmp_path, FRESH)
    cache, text = _kept_page(host, repo, abcd_home, full)
    clean = abcd("journal", "verify", "--json", cwd=repo)
    assert clean.code == 0, clean.err
    assert json.loads(clean.out)["recall_cache_differs"] == []

    # Same length, so only what the page is said to hold changes: the hook would send it.
    _forged(cache, lambda _, bodies: bodies.replace(b"rotate hourly", b"expire weekly"))
    host.start("s2")
    assert "Tokens expire weekly." in host.prompt("auth", "s2", transcript_path=full)["text"]
    said = abcd("journal", "verify", cwd=repo)
    assert said.code == 1
    assert ".abcd/memory/ref_auth_tokens.md other than the file does" in said.err
    assert cache.name in said.err and "remove the copy named above" in said.err
    report = json.loads(abcd("journal", "verify", "--json", cwd=repo).out)
    assert report["intact"] is False and len(report["recall_cache_differs"]) == 1

    # Removed, as it says: parsed again from the page, and verify is clean.
    cache.unlink()
    host.start("s3")
    assert host.prompt("auth", "s3", transcript_path=full)["text"] == text
    assert abcd("journal", "verify", cwd=repo).code == 0


def test_verify_names_a_kept_recall_word_the_term_rule_does_not_give(
    abcd: Run, host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    full = transcript(tmp_path, FRESH)
    cache, _ = _kept_page(host, repo, abcd_home, full)

    def misread(stored: dict[str, Any], bodies: bytes) -> bytes:
        assert stored["words"]["auth"] == ("auth",)
        stored["words"]["auth"] = ("deploy",)  # the page would come back on "deploy" instead
        return bodies

    _forged(cache, misread)
    said = abcd("journal", "verify", cwd=repo)
    assert said.code == 1
    assert "holds the recall word 'auth' as ('deploy',)" in said.err


def test_verify_from_a_checkout_the_hook_refuses_finds_no_copy_to_name(
    abcd: Run, host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    full = transcript(tmp_path, FRESH)
    _kept_page(host, repo, abcd_home, full)
    (repo / ".abcd").chmod(0o777)  # writable by anyone: the hook reads nothing of it
    host.start("s2")
    assert "ref_auth_tokens.md" not in host.prompt("auth", "s2", transcript_path=full)["text"]
    said = abcd("journal", "verify", "--json", cwd=repo)
    assert said.code == 0, said.err
    assert json.loads(said.out)["recall_cache_differs"] == []


def test_verify_names_no_copy_the_hook_would_not_use(
    abcd: Run, host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    # A body whose piece does not check is never sent (the hook parses the page again): nothing
    # kept differs from what reaches the model, so verify has nothing to name.
    full = transcript(tmp_path, FRESH)
    cache, _ = _kept_page(host, repo, abcd_home, full)
    _body_flipped(cache)
    said = abcd("journal", "verify", "--json", cwd=repo)
    assert said.code == 0, said.err
    assert json.loads(said.out)["recall_cache_differs"] == []


def test_a_prompt_writes_its_caches_without_waiting_for_the_disk(
    host: Host, repo: Path, abcd_home: Path, synced: list[int]
) -> None:
    # Every reader checks a cache and can do without it, so after a crash it costs a prompt some
    # work at most: no prompt waits for the disk to keep one.
    path = page(repo / ".abcd" / "memory", "ref_auth_tokens.md", ["auth"], "Tokens", "Rotate.")
    _age(path)
    host.start("s1")
    synced.clear()  # what the session start synced
    payload = {"session_id": "s1", "cwd": str(repo), "prompt": "auth"}
    out = io.StringIO()
    hook.main(
        ["prompt-router", "--json"], io.BytesIO(json.dumps(payload).encode()), out, io.StringIO()
    )
    assert keys(json.loads(out.getvalue())) == ["page:ref_auth_tokens.md"]
    assert (abcd_home / cache_rel(str(repo), "parsed")).is_file()  # written by this prompt
    assert synced == []


def test_a_prompt_that_read_every_personal_note_leaves_no_words_for_later_prompts_to_decode(
    host: Host, repo: Path, abcd: Run, abcd_home: Path, tmp_path: Path
) -> None:
    """Without the index (an upgrade, a copied home) a prompt reads every personal note, and the
    parsed file kept the terms of all their recall words; the prompts after it, through the
    index again, looked up only the checkout's words, found nothing new to write, and decoded
    the thousands kept on every prompt (0.4 ms at 10,000 notes), for as long as the checkout
    changed nothing. The file is written again with what a prompt used once it holds far more."""
    notes = tmp_path / "notes.jsonl"
    notes.write_text(
        "".join(
            json.dumps({"title": f"Step {n}", "body": "B.", "recall": [f"word{n}", "deploy"]})
            + "\n"
            for n in range(400)
        )
    )
    assert abcd("memory", "import", str(notes), "--by", "person").code == 0
    _age(page(repo / ".abcd" / "memory", "ref_auth_keys.md", ["auth"], "Keys", "Rotate them."))
    parsed = abcd_home / cache_rel(str(repo), "parsed")

    def kept_words() -> set[str]:
        found = parsed_file(parsed.read_bytes())
        assert found is not None
        return set(found[0]["words"])

    host.start("s1")
    host.prompt("auth", "s1")
    index = abcd_home / "memory.idx"
    index.rename(tmp_path / "away")  # for one prompt, no index: every note read
    host.prompt("auth and deploy", "s1")
    (tmp_path / "away").rename(index)  # the same index back, so nothing else changes
    assert {"word0", "word399", "auth"} <= kept_words()
    host.start("s2")
    host.prompt("auth", "s2")
    assert "auth" in kept_words() and not {"word0", "word399"} & kept_words()
    host.start("s3")
    assert keys(host.prompt("auth", "s3")) == ["page:ref_auth_keys.md"]
