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
    # Since the ninth round's share of 0.4, 45 and 47 of 59 against the seed's 37 and 39.
    assert ours["held"]["hit@1"] >= seed["held"]["hit@1"] + 0.10
    assert ours["held"]["hit@5"] >= seed["held"]["hit@5"] + 0.10
    # What the calibration promises: never less silent than the seed on the half it was tuned on
    # (with tune2.jsonl's 45 everyday prompts), and so far on the prompts it was not tuned on.
    assert ours["tune"]["nothing"] >= 50
    for half in ("tune", "held", "fresh", "third", "fourth"):
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
    # Under the seventh round's thresholds the rule picked adjacent pairs at 0.5, by one prompt on
    # each half; under the ninth round's they gain on one writing what they lose on the other, and
    # the tie keeps the ranking as it is (docs/recall.md, "The ninth round").
    assert report["picked"] == {"mode": "recall", "weight": 0.0}
    figures = report["figures"]
    shipped = scored("--notes", str(TOOL.parent / "recallset" / "taught"))
    for mode in ("recall", "pairs"):
        assert figures[f"taught / {mode} / 0.0 / held"]["hit@1"] == shipped["held"]["hit@1"]


def test_the_gain_holds_on_prompts_written_blind_to_the_design() -> None:
    # `fresh`, `third` and `fourth` were written by agents that saw neither recall words nor
    # scorer nor figures, and no setting was tuned on them; the notes as the page now has them
    # written (`taught2/`). The out-of-sample check docs/recall.md quotes ("The ninth round"):
    # 102 of 150 first against the seed's 97, and never less silent on any of the three.
    taught2 = str(TOOL.parent / "recallset" / "taught2")
    seed, ours = scored("--seed", "--notes", taught2), scored("--notes", taught2)
    blind = ("fresh", "third", "fourth")
    assert [ours[h]["prompts"] for h in blind] == [seed[h]["prompts"] for h in blind] == [60, 45, 45]
    assert [ours[h]["nothing"] for h in blind] == [15, 30, 35]

    def first(report: dict[str, dict[str, float]]) -> int:
        return round(sum(report[h]["hit@1"] * report[h]["prompts"] for h in blind))

    assert first(ours) >= first(seed) + 4
    for half in blind:
        assert ours[half]["silent"] >= seed[half]["silent"], half


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
