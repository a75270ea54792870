"""The second tier (issue 16), through the hook as the host runs it: a paraphrase brings back the
note its recall words miss, a prompt of nothing stays silent, and the diagnostic says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abcd.recall.constants import SECOND_MIN_SCORE, SECOND_MIN_SHARE, SECOND_MIN_WORDS
from tests.conftest import BY, Run, git

from .conftest import Host, keys

RECALLSET = Path(__file__).resolve().parents[2] / "tools" / "recallset"
CI_TIMEOUT = "Integration job times out on shared runners"


@pytest.fixture
def memory(host: Host, abcd: Run, repo: Path) -> dict[str, str]:
    """The recall set's notes, imported as one batch into the test's home: each title's id."""
    notes = [json.loads(line) for line in (RECALLSET / "notes.jsonl").read_text().splitlines()]
    batch = "".join(
        json.dumps(
            {"title": n["title"], "body": n["body"], "recall": n["recall"], "everywhere": True}
        )
        + "\n"
        for n in notes
    )
    result = abcd("memory", "import", "-", "--by", BY, "--json", stdin=batch, cwd=repo)
    assert result.code == 0, result.err
    ids = json.loads(result.out)["imported"]
    return {n["title"]: note_id for n, note_id in zip(notes, ids, strict=True)}


def test_a_paraphrase_brings_back_the_note_no_recall_word_of_which_it_says(
    host: Host, memory: dict[str, str]
) -> None:
    # The note's recall words are flaky, timeout and retry; the person says none of them.
    envelope = host.prompt("the CI keeps timing out on the integration job")
    assert keys(envelope)[0] == memory[CI_TIMEOUT]
    assert memory[CI_TIMEOUT] in envelope["stderr"]


def test_a_note_the_second_tier_brought_is_sent_once_a_session(
    host: Host, memory: dict[str, str]
) -> None:
    prompt = "the CI keeps timing out on the integration job"
    assert memory[CI_TIMEOUT] in keys(host.prompt(prompt, "s1"))
    assert memory[CI_TIMEOUT] not in keys(host.prompt(prompt, "s1"))
    assert memory[CI_TIMEOUT] in keys(host.prompt(prompt, "s2"))


@pytest.mark.parametrize(
    "prompt", ["thanks, that looks good", "ok continue", "what should I do now with it?"]
)
def test_a_prompt_that_says_nothing_about_any_note_stays_silent(
    host: Host, memory: dict[str, str], prompt: str
) -> None:
    out, err = host.plain(prompt)
    assert out == ""
    assert "recalled" not in err


def test_a_note_tied_to_another_repository_never_comes_through_the_second_tier(
    host: Host, memory: dict[str, str], tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "commit", "-q", "--allow-empty", "-m", "another root")
    tied = host.note(
        "Quarterly ledger reconciliation uses the archive mirror",
        "Reconciliation reads the archive mirror, never the primary ledger.",
        "books",
        cwd=other,
    )
    assert tied not in keys(host.prompt("reconciliation of the ledger archive mirror"))
    here = Host(host.abcd, other)
    assert keys(here.prompt("reconciliation of the ledger archive mirror"))[0] == tied


def test_the_diagnostic_says_which_tier_brought_an_item_and_why_the_others_stayed(
    abcd: Run, memory: dict[str, str]
) -> None:
    result = abcd("rules", "--prompt", "the CI keeps timing out on the integration job", "--all")
    assert result.code == 0, result.err
    block = result.out.split(f"  #1  {memory[CI_TIMEOUT]}", 1)[1].split("\n\n", 1)[0]
    assert (
        "hit by: no recall word; second tier admitted: content words held ci, integr, job" in block
    )
    assert f"(at least {SECOND_MIN_SCORE})" in block and f"(at least {SECOND_MIN_SHARE})" in block
    assert f"content word(s) held (at least {SECOND_MIN_WORDS})" in block
    freeze = memory["Freeze time in tests with freezegun"]
    withheld = next(line for line in result.out.splitlines() if line.strip().startswith(freeze))
    assert (
        "no word hit (recall: freezegun, clock, datetime); second tier below the threshold"
        in withheld
    )
    assert f"score 2.1470 (at least {SECOND_MIN_SCORE})" in withheld


def test_a_share_just_below_the_bar_is_never_shown_as_meeting_it(
    host: Host, abcd: Run, memory: dict[str, str]
) -> None:
    """The share was rounded to two places: a note judged at 0.2954 read "second tier below the
    threshold: ... share 0.30 (at least 0.3)". Shown figures are cut, never rounded up, so each
    line's own numbers say its verdict; the JSON keeps the exact figures."""
    prompt = "where do integration tests go in this repo and how do I run one file with pytest?"
    report = json.loads(abcd("rules", "--prompt", prompt, "--all", "--json").out)
    judged = {
        item.get("id") or item["key"]: item["second"]
        for item in report["notes"] + report["withheld"]
        if item["second"] is not None
    }
    assert any(0.295 <= j["share"] < SECOND_MIN_SHARE for j in judged.values())  # the case
    text = abcd("rules", "--prompt", prompt, "--all")
    assert text.code == 0, text.err
    for key, judgement in judged.items():
        line = next(x for x in text.out.splitlines() if f"{key} " in x and "second tier" in x)
        score = float(line.split("score ", 1)[1].split(" ", 1)[0])
        share = float(line.split("share ", 1)[1].split(" ", 1)[0])
        meets = score >= SECOND_MIN_SCORE and share >= SECOND_MIN_SHARE
        if not judgement["admitted"] and len(judgement["words"]) >= SECOND_MIN_WORDS:
            assert not meets, line
        assert score <= judgement["score"] and share <= judgement["share"], line
    out, _ = host.plain(prompt)  # the hook sends exactly what the diagnostic admitted
    for key, judgement in judged.items():
        assert (key in out) == judgement["admitted"] or judgement["admitted"], key


def test_the_diagnostic_as_json_carries_each_judgement(abcd: Run, memory: dict[str, str]) -> None:
    result = abcd(
        "rules", "--prompt", "the CI keeps timing out on the integration job", "--all", "--json"
    )
    assert result.code == 0, result.err
    report = json.loads(result.out)
    first = report["notes"][0]
    assert first["id"] == memory[CI_TIMEOUT] and first["hits"] == []
    assert first["second"]["admitted"] is True and first["second"]["score"] >= 3.0
    below = [w for w in report["withheld"] if w["second"] is not None]
    assert below and all(w["second"]["admitted"] is False for w in below)


def test_a_pasted_wall_of_words_is_not_judged_by_the_second_tier_and_the_diagnostic_says_so(
    host: Host, abcd: Run, memory: dict[str, str]
) -> None:
    paste = "the CI keeps timing out on the integration job " + " ".join(
        f"entry{n}" for n in range(60)
    )
    assert memory[CI_TIMEOUT] not in keys(host.prompt(paste))
    result = abcd("rules", "--prompt", paste, "--all")
    assert result.code == 0, result.err
    line = next(x for x in result.out.splitlines() if x.strip().startswith(memory[CI_TIMEOUT]))
    assert line.endswith("second tier: not judged (the prompt holds more than 48 content words)")


def test_an_item_holding_fewer_content_words_than_the_floor_is_judged_below_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from abcd.recall import second

    monkeypatch.setattr(second, "SECOND_MIN_WORDS", 2)
    alone = second.Judged(9.0, 1.0, ("plan",))
    assert not alone.admitted
    assert "1 content word(s) held (at least 2)" in alone.why()
    assert second.Judged(9.0, 1.0, ("plan", "terraform")).admitted


def test_words_no_item_holds_weigh_in_what_the_prompt_says_by_the_unheld_weight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from abcd.recall import second
    from abcd.recall.bm25f import idf
    from abcd.recall.terms import Prompt

    prompt = Prompt("yes, go ahead with that terraform plan")
    assert second.content(prompt) == ["ahead", "go", "plan", "terraform", "yes"]
    held = {"plan": 1, "terraform": 2}

    def judged(weight: float) -> second.Judged:
        monkeypatch.setattr(second, "SECOND_UNHELD_WEIGHT", weight)
        tier = second.Second(prompt, lambda words: {w: held.get(w, 0) for w in words}, 100, 10.0)
        return tier.judge(10, lambda w: 3 if w in held else 0)

    told = idf(100, 1) + idf(100, 2)
    alone, weighed = judged(0.0), judged(1.0)
    assert alone.score == weighed.score > 0
    assert alone.share == pytest.approx(alone.score / told)  # only what the memory holds counts
    assert weighed.share == pytest.approx(weighed.score / (told + 3 * idf(100, 0)))
    assert weighed.share < alone.share / 2  # three words the memory does not hold


def test_the_diagnostic_names_the_prompts_words_no_item_holds_when_they_weigh_on_the_share(
    abcd: Run, memory: dict[str, str]
) -> None:
    result = abcd("rules", "--prompt", "yes, go ahead with that plan", "--all", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    judged = [w["second"] for w in report["withheld"] if w.get("second")]
    assert judged and all(set(j["unheld"]) >= {"ahead", "yes"} for j in judged)
    text = abcd("rules", "--prompt", "yes, go ahead with that plan", "--all").out
    assert "the share counts the prompt's words no item holds: ahead" in text
