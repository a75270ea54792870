"""The prompt's words kept between prompts (`abcd.recall.wordstems`): a prompt of words seen
before loads no stemmer, recalls exactly what it would have, and a damaged, foreign or stale
file is read around, never believed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcd.recall import pieces, wordstems
from abcd.recall.terms import _stemming
from abcd.recall.wordstems import MAX_WORDS, SHELVES, WORDS_REL, WordStems, decode, encode, shelf_of
from abcd.trust.guarded import Home
from tests.conftest import Run
from tests.hook.conftest import Host, page


def _prompt(abcd: Run, cwd: Path, session: str, text: str) -> tuple[dict[str, Any], bool]:
    """The hook's answer to `text` in a new session, and whether its process loaded the stemmer
    (the real command in a fresh interpreter, its imports listed by `-X importtime`)."""
    start = {"session_id": session, "cwd": str(cwd), "source": "startup"}
    assert abcd("hook", "session-start", stdin=json.dumps(start)).code == 0
    payload = {"session_id": session, "cwd": str(cwd), "prompt": text}
    result = abcd(
        "hook",
        "prompt-router",
        "--json",
        stdin=json.dumps(payload),
        env={"PYTHONPROFILEIMPORTTIME": "1"},
    )
    assert result.code == 0, result.err
    loaded = any(line.rstrip().endswith("| Stemmer") for line in result.err.splitlines())
    return json.loads(result.out), loaded


def _context(envelope: dict[str, Any]) -> str:
    return str(envelope["text"])


def _home() -> Home:
    home = Home.open(os.environ["ABCD_HOME"])
    assert home is not None
    return home


def test_a_prompt_of_words_seen_before_loads_no_stemmer_and_recalls_the_same(
    host: Host, abcd: Run, repo: Path
) -> None:
    note = host.note(
        "Rerun a flaky suite",
        "Retry the flaky suite twice before calling it broken.",
        "flaky",
        "retry",
        "suite",
        "rerun",
    )
    text = "why does the flaky suite keep failing on retries"
    first, loaded_first = _prompt(abcd, repo, "s1", text)
    assert loaded_first  # nothing kept yet
    assert note in _context(first)
    again, loaded_again = _prompt(abcd, repo, "s2", text)
    assert not loaded_again
    assert _context(again) == _context(first)
    # One new word loads it once, and is kept for the next prompt.
    _, loaded_new = _prompt(abcd, repo, "s3", "the flaky suite retries forever")
    assert loaded_new
    _, loaded_after = _prompt(abcd, repo, "s4", "forever the flaky suite")
    assert not loaded_after


def test_the_rules_words_are_kept_too_so_a_domain_comes_back_without_the_stemmer(
    abcd: Run, repo: Path
) -> None:
    rules = {"domains": {"RELEASES": {"recall": ["release", "changelog"], "rules": ["Tag it."]}}}
    (repo / ".abcd").mkdir(mode=0o700)
    (repo / ".abcd" / "rules.json").write_text(json.dumps(rules))
    text = "cut the releases and write the changelog"
    first, loaded_first = _prompt(abcd, repo, "s1", text)
    assert loaded_first
    assert "Tag it." in _context(first)
    again, loaded_again = _prompt(abcd, repo, "s2", text)
    assert not loaded_again
    assert _context(again) == _context(first)


def test_outside_a_checkout_a_prompt_of_seen_words_loads_no_stemmer(
    host: Host, abcd: Run, tmp_path: Path, abcd_home: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    note = host.note(
        "Disk space on the runner",
        "Prune the docker images when the runner runs out of disk.",
        "disk",
        "docker",
        "prune",
        everywhere=True,
    )
    # A machine page's recall words are kept with the parsed files of the folder-less set.
    page(abcd_home / "memory", "ref_runner_disk.md", ["runner", "disk"], "Runner disk", "Prune it.")
    text = "the runner is out of disk again"
    first, loaded_first = _prompt(abcd, elsewhere, "s1", text)
    assert loaded_first
    assert note in _context(first)
    assert "ref_runner_disk" in _context(first)
    again, loaded_again = _prompt(abcd, elsewhere, "s2", text)
    assert not loaded_again
    assert _context(again) == _context(first)


def _kept(words: list[str]) -> None:
    home = _home()
    try:
        kept = WordStems(home)
        kept.prime(words)
        kept.save()
    finally:
        home.close()


def _found(words: list[str]) -> tuple[int, set[str]]:
    home = _home()
    try:
        kept = WordStems(home)
        kept.prime(words)
        return kept.found, kept.missing
    finally:
        home.close()


@pytest.fixture
def kept_home(abcd_home: Path) -> Path:
    abcd_home.mkdir(mode=0o700)
    _kept(["testing", "migrations", "flaky", "deploys"])
    return abcd_home


def test_kept_words_are_found_with_the_stemmers_own_stems(kept_home: Path) -> None:
    assert _found(["testing", "migrations", "unseen"]) == (2, {"unseen"})
    shelves = decode((kept_home / WORDS_REL).read_bytes())
    assert shelves is not None
    held = {word: stem for shelf in shelves for word, stem in shelf.items()}
    stemmer = _stemming()
    assert held == {word: stemmer.stemWord(word) for word in held}
    assert set(held) == {"testing", "migrations", "flaky", "deploys"}


def test_a_damaged_shelf_loses_only_its_own_words(kept_home: Path) -> None:
    words = ["testing", "migrations", "flaky", "deploys"]
    assert len({shelf_of(word) for word in words}) > 1  # spread over shelves of their own
    path = kept_home / WORDS_REL
    data = bytearray(path.read_bytes())
    base = 4 + int.from_bytes(data[:4], "little")
    found = pieces._where(bytes(data[4:base]), wordstems._header(), 0, SHELVES)
    assert found is not None
    damaged = shelf_of("testing")
    data[base + found[1][damaged + 1] - 1] ^= 0xFF  # the last byte of that shelf's piece
    path.write_bytes(bytes(data))
    lost = {word for word in words if shelf_of(word) == damaged}
    assert _found(words) == (len(words) - len(lost), lost)
    # The next save keeps every shelf that checks, and mends the damaged one's words.
    _kept(sorted(lost))
    assert _found(words) == (len(words), set())


@pytest.mark.parametrize("damage", ["header", "length", "truncated", "version", "garbage"])
def test_a_file_that_is_not_ours_is_read_as_empty_and_written_anew(
    kept_home: Path, damage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = kept_home / WORDS_REL
    data = path.read_bytes()
    if damage == "header":
        data = data[:8] + bytes([data[8] ^ 0xFF]) + data[9:]
    elif damage == "length":
        data = (10**6).to_bytes(4, "little") + data[4:]
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "garbage":
        data = os.urandom(len(data))
    else:  # written under another term rule
        with monkeypatch.context() as patch:
            patch.setattr(wordstems, "TERM_RULE_VERSION", "0" * 16)
            data = encode(decode(data) or [])
    path.write_bytes(data)
    words = ["testing", "migrations"]
    assert _found(words) == (0, set(words))
    _kept(words)
    assert _found(words) == (2, set())


def test_a_file_others_can_write_is_refused_and_nothing_raises(kept_home: Path) -> None:
    path = kept_home / WORDS_REL
    path.chmod(0o666)
    assert _found(["testing"]) == (0, {"testing"})
    path.chmod(0o600)
    assert _found(["testing"]) == (1, set())


def test_a_link_in_its_place_is_refused(kept_home: Path, tmp_path: Path) -> None:
    path = kept_home / WORDS_REL
    elsewhere = tmp_path / "planted.marshal"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere)
    assert _found(["testing"]) == (0, {"testing"})


def test_a_full_file_starts_over_with_the_new_words(
    kept_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wordstems, "MAX_WORDS", 5)
    _kept(["alpha", "beta"])  # 4 + 2 > 5: only the new ones are kept
    assert _found(["alpha", "beta", "testing"]) == (2, {"testing"})
    assert MAX_WORDS > 5  # the module's own bound is untouched


def test_a_long_word_is_stemmed_never_kept(kept_home: Path) -> None:
    long_word = "x" * (wordstems.WORD_MAX_CHARS + 1)
    _kept([long_word])
    assert _found([long_word]) == (0, set())


words_ = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"]),
    min_size=1,
    max_size=wordstems.WORD_MAX_CHARS,
)


@given(st.dictionaries(words_, st.text(max_size=20), max_size=60))
def test_a_file_decodes_to_the_shelves_it_was_encoded_from(pairs: dict[str, str]) -> None:
    shelves: list[dict[str, str]] = [{} for _ in range(SHELVES)]
    for word, stem in pairs.items():
        shelves[shelf_of(word)][word] = stem
    assert decode(encode(shelves)) == shelves
