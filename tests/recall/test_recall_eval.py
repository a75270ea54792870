"""The recall set's scorer, run as a person runs it: the second tier's gain over the seed's design
is measured on the held-out half, and it is never less silent on the prompts that match nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "recall_eval.py"


def scored(*flags: str) -> dict[str, dict[str, float]]:
    done = subprocess.run(
        [sys.executable, str(TOOL), "--json", *flags],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    report: dict[str, dict[str, float]] = json.loads(done.stdout)
    return report


def test_the_second_tier_beats_the_seed_on_the_held_out_half_and_is_as_silent() -> None:
    seed, ours = scored("--seed"), scored()
    assert ours["held"]["prompts"] == seed["held"]["prompts"] > 50
    assert ours["held"]["hit@1"] >= seed["held"]["hit@1"] + 0.15
    assert ours["held"]["hit@5"] >= seed["held"]["hit@5"] + 0.15
    # What the calibration promises: never less silent than the seed on the half it was tuned on
    # (with tune2.jsonl's 45 everyday prompts), and so far on the prompts it was not tuned on.
    assert ours["tune"]["nothing"] >= 50
    for half in ("tune", "held", "fresh", "third"):
        assert ours[half]["silent"] >= seed[half]["silent"], half
    # Words, inflections and phrases the seed already brings first stay first.
    for kind in ("word", "inflect", "phrase"):
        assert ours["kinds"][kind]["hit@1"] >= seed["kinds"][kind]["hit@1"]


def test_notes_written_under_the_pages_advice_are_found_more_often_by_both_designs() -> None:
    taught = Path(__file__).resolve().parents[2] / "tools" / "recallset" / "taught"
    for flags in ([], ["--seed"]):
        as_written, written_taught = scored(*flags), scored(*flags, "--notes", str(taught))
        assert written_taught["held"]["prompts"] == as_written["held"]["prompts"]
        assert written_taught["held"]["hit@1"] >= as_written["held"]["hit@1"]
        assert written_taught["held"]["hit@5"] > as_written["held"]["hit@5"]
    # The seed's design gains the most: a recall word the person types is the sure way.
    seed, seed_taught = scored("--seed"), scored("--seed", "--notes", str(taught))
    assert seed_taught["held"]["hit@1"] >= seed["held"]["hit@1"] + 0.15


def test_the_phrase_trial_starts_from_the_hooks_own_order_and_keeps_it_as_docs_say() -> None:
    # The trial exits non-zero when weight 0 is not the hook's order, so its other figures are
    # measured against what the hook ranks; docs/recall.md ("The fifth round") quotes its pick.
    done = subprocess.run(
        [sys.executable, str(TOOL.parent / "recall_trial_phrases.py"), "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    # Since the seventh round's thresholds the rule picks adjacent pairs at 0.5, by one prompt on
    # each half; not built (docs/recall.md, "The seventh round").
    assert report["picked"] == {"mode": "pairs", "weight": 0.5}
    figures = report["figures"]
    shipped = scored("--notes", str(TOOL.parent / "recallset" / "taught"))
    for mode in ("recall", "pairs"):
        assert figures[f"taught / {mode} / 0.0 / held"]["hit@1"] == shipped["held"]["hit@1"]
    assert figures["taught / pairs / 0.5 / held"]["hit@1"] > shipped["held"]["hit@1"]


def test_the_gain_holds_on_prompts_written_blind_to_the_design() -> None:
    # `fresh.jsonl` was written by an agent that saw neither recall words nor scorer nor figures,
    # and no setting was ever tuned on it: the out-of-sample check docs/recall.md quotes.
    taught = str(TOOL.parent / "recallset" / "taught")
    seed, ours = (
        scored("--half", "fresh", "--seed", "--notes", taught),
        scored("--half", "fresh", "--notes", taught),
    )
    assert ours["fresh"]["prompts"] == seed["fresh"]["prompts"] == 60
    assert ours["fresh"]["nothing"] == 15
    assert ours["fresh"]["hit@1"] >= seed["fresh"]["hit@1"] + 0.08
    assert ours["fresh"]["hit@5"] >= seed["fresh"]["hit@5"] + 0.08
    assert ours["fresh"]["silent"] >= seed["fresh"]["silent"]


def test_notes_written_under_the_advice_on_everyday_words_are_more_silent() -> None:
    # Two writers under the page before (taught, taught-b), two under the page now (taught2,
    # taught2-b): docs/recall.md, "The eighth round". Every writing now is more silent, over the
    # sets no setting was tuned on, than every writing before.
    sets = TOOL.parent / "recallset"

    def silent(folder: str) -> float:
        report = scored("--notes", str(sets / folder))
        return sum(report[half]["silent"] for half in ("held", "fresh", "third"))

    before = [silent("taught"), silent("taught-b")]
    now = [silent("taught2"), silent("taught2-b")]
    assert min(now) >= max(before) + 8, (before, now)
