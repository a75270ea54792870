"""`abcd rules --prompt`: what one prompt would bring back in a fresh session, and why.

Every test runs the real command in a subprocess (the `abcd` fixture), in a
git repository of its own with an `ABCD_HOME` of its own.
"""

from __future__ import annotations

import json
import math
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from abcd.cli.diagnose import typed_words
from tests.conftest import BY, Result, Run, git

PAGES = Path(".abcd") / "memory"
KIB = 1024


class World:
    """What is in reach of one prompt: notes, pages and rules, written as a person or agent would."""

    def __init__(self, abcd: Run, repo: Path, home: Path) -> None:
        self.abcd = abcd
        self.repo = repo
        self.home = home

    def note(self, title: str, body: str, *recall: str, cwd: Path | None = None) -> str:
        """A personal note through `abcd memory add`, tied to the repository it is written in."""
        args = ["memory", "add", "--title", title, "--by", BY]
        for word in recall:
            args += ["--recall", word]
        result = self.abcd(*args, stdin=body, cwd=cwd or self.repo)
        assert result.code == 0, result.err
        return result.out.strip()

    def project_notes(self, *notes: dict[str, Any]) -> Path:
        path = self.repo / ".abcd" / "memory.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"schema_version": 1, "notes": list(notes)}))
        return path

    def workspace_page(self, name: str, recall: list[str] | None, summary: str, body: str) -> Path:
        return _page(self.repo / PAGES, name, recall, summary, body)

    def machine_page(self, name: str, recall: list[str] | None, summary: str, body: str) -> Path:
        self.home.mkdir(mode=0o700, exist_ok=True)
        folder = self.home / "memory"
        folder.mkdir(mode=0o700, exist_ok=True)
        path = _page(folder, name, recall, summary, body)
        path.chmod(0o600)
        return path

    def rules(self, domains: dict[str, Any], *, disabled: bool = False) -> Path:
        path = self.repo / ".abcd" / "rules.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"schema_version": 1, "disabled": disabled, "domains": domains}))
        return path

    def diagnose(self, prompt: str, *args: str) -> Result:
        return self.abcd("rules", "--prompt", prompt, *args)

    def facts(self, prompt: str, *args: str) -> dict[str, Any]:
        result = self.diagnose(prompt, "--json", *args)
        assert result.code == 0, result.err
        facts: dict[str, Any] = json.loads(result.out)
        return facts


def _page(folder: Path, name: str, recall: list[str] | None, summary: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    front = ["---", *([f"recall: [{', '.join(recall)}]"] if recall is not None else [])]
    path = folder / name
    path.write_text("\n".join([*front, f"summary: {summary}", "---", body, ""]))
    return path


@pytest.fixture
def world(abcd: Run, repo: Path, abcd_home: Path) -> World:
    return World(abcd, repo, abcd_home)


def candidates(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Notes and pages together, in their one ranked order."""
    return sorted(facts["notes"] + facts["pages"], key=lambda c: c["rank"])


def forms(facts: dict[str, Any]) -> dict[str, str]:
    return {c["key"]: c["form"] for c in candidates(facts)}


def withheld(facts: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(w["key"], w["layer"]): w["reason"] for w in facts["withheld"]}


def snapshot(*roots: Path) -> dict[str, tuple[int, int, bytes | None]]:
    """Every path under the roots: its mode, its modification time, and a file's bytes."""
    seen: dict[str, tuple[int, int, bytes | None]] = {}
    for root in roots:
        if not root.exists():
            continue
        for path in [root, *root.rglob("*")]:
            st = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
            seen[str(path)] = (st.st_mode, st.st_mtime_ns, data)
    return seen


def a_full_reach(world: World) -> None:
    """A note, a page of each scope, a project note and rules: something of every kind in reach."""
    world.note("How to run the tests", "Use pytest -q from the top.", "test")
    world.note("Deploys need a tag", "Tag before deploying.", "deploy")
    world.project_notes(
        {
            "id": "mem-2611010000001234",
            "title": "Tests run in CI",
            "body": "CI.",
            "recall": ["test"],
        }
    )
    world.workspace_page(
        "ref_auth_tokens.md", ["auth", "login"], "Sign-in tokens", "Tokens rotate."
    )
    world.machine_page("ref_test_speed.md", ["test"], "Fast tests", "Use -x to stop early.")
    world.rules({"TESTING": {"recall": ["test"], "rules": ["Run the tests first."]}})


# --- it writes nothing -------------------------------------------------------------


def test_the_diagnostic_writes_nothing_in_the_home_or_the_repository(
    world: World, repo: Path, abcd_home: Path
) -> None:
    a_full_reach(world)
    before = snapshot(abcd_home, repo)
    for args in ([], ["--all"], ["--json"], ["--fill", "50", "--all", "--json"]):
        assert world.diagnose("login and run the tests", *args).code == 0
    assert snapshot(abcd_home, repo) == before


def test_an_absent_home_is_not_created(world: World, abcd_home: Path) -> None:
    world.workspace_page("ref_auth_tokens.md", ["auth"], "Sign-in tokens", "Tokens rotate.")
    facts = world.facts("fix the auth bug")
    assert [c["key"] for c in candidates(facts)] == ["page:ref_auth_tokens.md"]
    assert not abcd_home.exists()


# --- the bracket -------------------------------------------------------------------


def test_without_fill_it_says_the_fill_is_unknown_and_renders_the_unknown_form(
    world: World,
) -> None:
    a_full_reach(world)
    result = world.diagnose("run the tests")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    bracket = next(line for line in lines if line.startswith("bracket: "))
    assert bracket.startswith("bracket: unknown: no --fill given")
    assert "unknown-fill form" in bracket
    assert "  rules:           every matched domain in full" in lines
    assert any(line.startswith("  notes and pages: one line each") for line in lines)
    facts = world.facts("run the tests")
    assert facts["bracket"]["fill"] == {"used_percentage": None, "source": "unknown"}
    assert [d["form"] for d in facts["domains"]] == ["full"]
    assert set(forms(facts).values()) == {"line"}


@pytest.mark.parametrize(
    ("used", "bracket"),
    [
        ("0", "fresh"),
        ("10", "fresh"),
        ("30", "fresh"),
        ("30.5", "moderate"),
        ("50", "moderate"),
        ("60", "moderate"),
        ("75", "depleted"),
        ("100", "depleted"),
    ],
)
def test_fill_sets_the_bracket_and_the_reason_says_how(
    world: World, used: str, bracket: str
) -> None:
    facts = world.facts("anything", "--fill", used)
    assert facts["bracket"]["name"] == bracket
    assert facts["bracket"]["fill"] == {"used_percentage": float(used), "source": "--fill"}
    reason = facts["bracket"]["reason"]
    assert reason.startswith(f"{bracket}: {float(used):g}% used (--fill)")
    assert f"{100 - float(used):g}% free" in reason


def three_pages_of_three_kib(world: World) -> None:
    for slug in ("alpha", "beta", "gamma"):
        world.workspace_page(
            f"ref_cache_{slug}.md", ["cache"], f"Cache {slug}", "x " * (3 * KIB // 2)
        )


def test_fresh_sends_every_domain_and_every_candidate_in_full(world: World) -> None:
    three_pages_of_three_kib(world)
    world.rules({"CACHE": {"recall": ["cache"], "rules": ["Clear it.", "Then warm it."]}})
    facts = world.facts("the cache is stale", "--fill", "10")
    assert [d["form"] for d in facts["domains"]] == ["full"]
    assert [c["form"] for c in candidates(facts)] == ["full", "full", "full"]
    assert "- Then warm it." in facts["text"]


def test_moderate_sends_the_top_in_full_within_8_kib_the_rest_one_line_and_rules_short(
    world: World,
) -> None:
    three_pages_of_three_kib(world)
    world.rules({"CACHE": {"recall": ["cache"], "rules": ["Clear it.", "Then warm it."]}})
    facts = world.facts("the cache is stale", "--fill", "50")
    assert [d["form"] for d in facts["domains"]] == ["short"]
    assert [c["form"] for c in candidates(facts)] == ["full", "full", "line"]
    assert "2 rules: `abcd rules CACHE`" in facts["text"]


@pytest.mark.parametrize("fill", [["--fill", "75"], []], ids=["depleted", "unknown"])
def test_depleted_and_unknown_send_one_line_each(world: World, fill: list[str]) -> None:
    three_pages_of_three_kib(world)
    facts = world.facts("the cache is stale", *fill)
    assert [c["form"] for c in candidates(facts)] == ["line", "line", "line"]


def test_an_item_larger_than_the_hosts_limit_is_too_large_and_the_first_too_big_for_full_goes_as_a_line(
    world: World,
) -> None:
    # The huge page alone holds the rarer word, so it ranks first.
    world.workspace_page("ref_cache_huge.md", ["cache", "stale"], "Huge", "x " * 6_000)
    world.workspace_page("ref_cache_big1.md", ["cache"], "Big one", "y " * 3_000)
    world.workspace_page("ref_cache_big2.md", ["cache"], "Big two", "z " * 3_000)
    facts = world.facts("the stale cache", "--fill", "10")
    assert candidates(facts)[0]["key"] == "page:ref_cache_huge.md"
    assert [c["form"] for c in candidates(facts)] == ["too large", "full", "line"]
    result = world.diagnose("the stale cache", "--fill", "10")
    assert "too large: its block alone is larger than the host's whole 10,000 characters" in (
        result.out
    )


def test_an_item_larger_than_the_limit_does_not_stop_the_take_in_full(world: World) -> None:
    world.workspace_page("ref_cache_big1.md", ["cache", "stale", "warm"], "Big one", "y " * 1_500)
    world.workspace_page("ref_cache_huge.md", ["cache", "stale"], "Huge", "x " * 6_000)
    world.workspace_page("ref_cache_big2.md", ["cache"], "Big two", "z " * 1_500)
    facts = world.facts("the stale cache, warm it", "--fill", "10")
    assert [(c["key"], c["form"]) for c in candidates(facts)] == [
        ("page:ref_cache_big1.md", "full"),
        ("page:ref_cache_huge.md", "too large"),
        ("page:ref_cache_big2.md", "full"),
    ]


def test_the_first_line_that_does_not_fit_stops_the_take_and_the_rest_do_not_fit(
    world: World,
) -> None:
    for n in range(40):
        world.workspace_page(f"ref_cache_n{n:02}.md", ["cache"], f"Cache {n:02} " + "t" * 90, "b")
    facts = world.facts("the cache", "--fill", "90")  # depleted: one line each within 2,048
    found = [c["form"] for c in candidates(facts)]
    assert found == sorted(found, key=lambda form: form != "line")  # the lines, then the rest
    assert 10 < found.count("line") < 40
    assert set(found[found.count("line") :]) == {"does not fit"}
    result = world.diagnose("the cache", "--fill", "90")
    assert "does not fit: what was left of the host's 10,000 characters" in result.out
    assert "It is not recorded, so it can come back on a later prompt" in result.out


def test_a_domain_past_the_hosts_limit_is_left_out_and_the_hook_says_so(
    world: World,
) -> None:
    many = [f"Rule {n}: " + "r" * 90 for n in range(40)]  # about 4,000 characters a domain
    world.rules({name: {"recall": ["cache"], "rules": many} for name in ("ONE", "TWO", "THREE")})
    facts = world.facts("the cache", "--fill", "10")
    assert [(d["name"], d["form"]) for d in facts["domains"]] == [
        ("ONE", "full"),
        ("TWO", "full"),
        ("THREE", "left out"),
    ]
    assert "INJECTION TRUNCATED: 1 of 3" in facts["truncated"]
    assert "within the host's 10000 characters" in facts["truncated"]
    assert facts["size"] <= facts["limit"]["chars"] == 10_000
    out = world.diagnose("the cache", "--fill", "10").out
    assert re.search(r"^  THREE +left out ", out, re.M)
    assert f"  the hook says: {facts['truncated']}" in out


# --- domains and candidates ------------------------------------------------------


def test_each_matched_domain_shows_the_words_that_hit_and_a_summons(world: World) -> None:
    world.rules(
        {
            "TESTING": {"recall": ["test", "pytest"], "aliases": ["race detector"], "rules": ["a"]},
            "SECRETS": {"state": "dormant", "recall": ["token"], "rules": ["b"]},
            "DEPLOY": {"recall": ["deploy"], "rules": ["c"]},
        }
    )
    prompt = "run the tests under the race detectors, mind the token *SECRETS"
    facts = world.facts(prompt)
    assert facts["domains"] == [
        {"name": "TESTING", "words": ["test", "race detector"], "form": "full", "summoned": False},
        {"name": "SECRETS", "words": ["token"], "form": "full", "summoned": True},
    ]
    out = world.diagnose(prompt).out
    assert re.search(r"^  TESTING +full +\(repo\) +hit by: test, race detector$", out, re.M)
    assert re.search(
        r"^  SECRETS +full +\(repo\) +hit by: token; summoned by \*SECRETS$", out, re.M
    )
    assert "DEPLOY" not in out


def test_each_candidate_is_one_block_with_rank_score_terms_and_form(world: World) -> None:
    a_full_reach(world)
    prompt = "run the tests, then login"
    facts = world.facts(prompt, "--fill", "10")
    out = world.diagnose(prompt, "--fill", "10").out
    blocks = out.split("\n\n")
    for cand in candidates(facts):
        head = f"#{cand['rank']}  {cand['key']}  score {cand['score']:.4f}  {cand['form']}"
        block = next(b for b in blocks if b.lstrip().startswith(head))
        assert f"hit by: {', '.join(cand['hits'])}" in block
        for term in cand["terms"]:
            word = re.escape(typed_words(prompt)[term["term"]])
            row = (
                rf"^ +{word} +{term['recall']} +{term['title']} +{term['body']} +"
                rf"{term['weighted']} +{term['idf']:.4f} +{term['contribution']:.4f}$"
            )
            assert re.search(row, block, re.M), (row, block)
        assert re.search(rf"^ +score +{cand['score']:.4f}$", block, re.M)


def test_the_breakdown_shows_the_prompts_words_as_typed_not_their_stems(world: World) -> None:
    a_full_reach(world)
    prompt = "run the tests and the test outside"

    out = world.diagnose(prompt, "--fill", "10").out

    assert re.search(r"^ +word +recall +title", out, re.M)
    assert re.search(r"^ +tests/test +\d", out, re.M)
    assert not re.search(r"^ +outsid +\d", out, re.M)
    assert typed_words(prompt) == {
        "run": "run",
        "the": "the",
        "test": "tests/test",
        "and": "and",
        "outsid": "outside",
    }


def test_the_term_breakdown_adds_up_to_the_score(world: World) -> None:
    a_full_reach(world)
    facts = world.facts("run the tests and test the login for the tests", "--fill", "10")
    found = candidates(facts)
    assert len(found) == 4  # every item but the deploy note
    for cand in found:
        terms = cand["terms"]
        assert terms, cand
        assert math.isclose(
            math.fsum(t["contribution"] for t in terms), cand["score"], abs_tol=1e-9
        )
        for t in terms:
            assert t["weighted"] == 3 * t["recall"] + 2 * t["title"] + t["body"] > 0
            assert 0 < t["contribution"] < t["idf"]  # saturation keeps it under the idf


def test_a_terms_idf_does_not_depend_on_whether_a_tied_note_hit(world: World) -> None:
    world.note("How to run the tests", "Use pytest -q from the top.", "test")
    world.workspace_page("ref_auth_tokens.md", ["login"], "Sign-in tokens", "Tokens rotate.")

    def login_idf(prompt: str) -> float:
        page = world.facts(prompt)["pages"][0]
        idf: float = next(t["idf"] for t in page["terms"] if t["term"] == "login")
        return idf

    assert login_idf("login") == pytest.approx(login_idf("login test"), abs=1e-12)


def test_notes_and_pages_share_one_rank_order_highest_score_first(world: World) -> None:
    a_full_reach(world)
    facts = world.facts("run the tests and the login", "--fill", "10")
    ranked = candidates(facts)
    assert [c["rank"] for c in ranked] == list(range(1, len(ranked) + 1))
    assert {c["key"] for c in facts["pages"]} == {
        "page:ref_auth_tokens.md",
        "page:ref_test_speed.md",
    }
    scores = [c["score"] for c in ranked]
    assert all(a >= b - 1e-9 for a, b in pairwise(scores))


def test_an_empty_recall_says_so_and_points_at_all(world: World) -> None:
    world.note("Deploys need a tag", "Tag before deploying.", "deploy")
    result = world.diagnose("what is the weather")
    assert result.code == 0
    assert "rules: no domain matched" in result.out
    assert "notes and pages: no candidate" in result.out
    assert "not shown: 1 withheld; --all says which and why" in result.out
    assert result.out.rstrip().endswith("the hook would send nothing for this prompt")


# --- --all: every item that did not come back, and why ----------------------------


def test_all_names_a_note_whose_words_miss(world: World) -> None:
    note = world.note("Deploys need a tag", "Tag before deploying.", "deploy", "release")
    assert withheld(world.facts("fix the tests")) == {(note, "machine"): "no word hit"}
    out = world.diagnose("fix the tests", "--all").out
    assert re.search(
        rf"^  {note} +personal note +no word hit \(recall: deploy, release\); second tier: holds"
        " none of the prompt's telling content words$",
        out,
        re.M,
    )


def test_all_names_a_note_without_recall_words(world: World) -> None:
    world.project_notes({"id": "mem-2611010000001234", "title": "T", "body": "B", "recall": []})
    facts = world.facts("anything at all")
    assert withheld(facts) == {("mem-2611010000001234", "project"): "no recall words"}


def test_all_names_a_page_without_recall_words(world: World) -> None:
    world.workspace_page("ref_auth_unlisted.md", None, "Auth without recall", "auth auth")
    facts = world.facts("auth")
    assert withheld(facts) == {("page:ref_auth_unlisted.md", "workspace"): "no recall words"}


def test_all_names_a_note_tied_to_another_repository(world: World, tmp_path: Path) -> None:
    other = tmp_path / "other-project"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    git(other, "commit", "-q", "--allow-empty", "-m", "another project's first commit")
    elsewhere = world.note("Deploy with their script", "Run ./ship.", "deploy", cwd=other)
    here = world.note("Deploy with our script", "Run ./release.", "deploy")
    facts = world.facts("deploy it")
    assert forms(facts) == {here: "line"}
    assert withheld(facts) == {(elsewhere, "machine"): "tied to another repository"}
    out = world.diagnose("deploy it", "--all").out
    assert re.search(rf"^  {elsewhere} +personal note +tied to another repository$", out, re.M)


def test_all_names_a_machine_page_suppressed_by_the_workspace_page_of_the_same_name(
    world: World,
) -> None:
    world.machine_page("ref_auth_tokens.md", ["auth"], "Mine", "Machine copy.")
    world.workspace_page("ref_auth_tokens.md", ["auth"], "Ours", "Workspace copy.")
    facts = world.facts("auth")
    assert [(c["key"], c["layer"]) for c in candidates(facts)] == [
        ("page:ref_auth_tokens.md", "workspace")
    ]
    reason = "suppressed by a narrower scope (the project page)"
    assert withheld(facts) == {("page:ref_auth_tokens.md", "machine"): reason}


def test_a_workspace_page_without_recall_words_still_suppresses_the_machine_page(
    world: World,
) -> None:
    world.machine_page("ref_auth_tokens.md", ["auth"], "Mine", "Machine copy.")
    world.workspace_page("ref_auth_tokens.md", None, "Ours, kept for people", "Workspace copy.")
    facts = world.facts("auth")
    assert candidates(facts) == []
    reason = "suppressed by a narrower scope (the project page)"
    assert withheld(facts)[("page:ref_auth_tokens.md", "machine")] == reason


def test_the_kill_switch_is_named_with_its_file_and_silences_every_item(world: World) -> None:
    a_full_reach(world)
    switch = world.rules({"TESTING": {"recall": ["test"], "rules": ["a"]}}, disabled=True)
    facts = world.facts("run the tests and login")
    assert facts["disabled_by"] == [str(switch)]
    assert facts["domains"] == [] and candidates(facts) == [] and facts["text"] == ""
    silenced = f"silenced by the kill switch ({switch})"
    reasons = withheld(facts)
    assert len(reasons) == 5
    assert set(reasons.values()) == {silenced}
    out = world.diagnose("run the tests and login", "--all").out
    assert f'kill switch: "disabled": true in {switch}; rules, notes and pages are silenced' in out
    assert out.count(silenced) == 5


def test_an_unreadable_project_memory_file_is_named_and_the_other_layers_still_come_back(
    world: World, repo: Path
) -> None:
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "memory.json").write_text("not json")
    world.workspace_page("ref_auth_tokens.md", ["auth"], "Sign-in tokens", "Tokens rotate.")
    result = world.diagnose("auth", "--all")
    assert result.code == 1
    message = f"project notes unreadable: {repo}/.abcd/memory.json: not JSON"
    assert result.err.startswith(f"abcd: {message}")
    assert len(result.err.splitlines()) == 1
    assert "unreadable: 1" in result.out
    assert re.search(rf"^  note  {re.escape(message)}", result.out, re.M)
    assert "#1  page:ref_auth_tokens.md" in result.out
    facts = json.loads(world.diagnose("auth", "--json").out)
    assert [p["kind"] for p in facts["problems"]] == ["note"]
    assert facts["problems"][0]["message"].startswith(message)


def test_a_broken_rules_file_is_named_and_notes_and_pages_still_come_back(
    world: World, repo: Path
) -> None:
    (repo / ".abcd").mkdir()
    (repo / ".abcd" / "rules.json").write_text('{"domains": 5}')
    world.workspace_page("ref_auth_tokens.md", ["auth"], "Sign-in tokens", "Tokens rotate.")
    result = world.diagnose("auth", "--all")
    assert result.code == 1
    assert result.err.startswith(f"abcd: {repo}/.abcd/rules.json: domains:")
    assert re.search(rf"^  rules  {re.escape(str(repo))}/\.abcd/rules\.json: ", result.out, re.M)
    assert "#1  page:ref_auth_tokens.md" in result.out


def test_without_all_the_withheld_are_counted_and_not_listed(world: World) -> None:
    note = world.note("Deploys need a tag", "Tag before deploying.", "deploy")
    world.workspace_page("ref_auth_tokens.md", ["auth"], "Sign-in tokens", "Tokens rotate.")
    out = world.diagnose("auth").out
    assert note not in out
    assert "not shown: 1 withheld; --all says which and why" in out
    assert note in world.diagnose("auth", "--all").out


# --- JSON ----------------------------------------------------------------------------


def test_the_json_carries_every_fact_in_its_documented_shape(world: World) -> None:
    a_full_reach(world)
    facts = world.facts("run the tests and login", "--fill", "10")
    assert set(facts) >= {
        "bracket",
        "domains",
        "notes",
        "pages",
        "withheld",
        "problems",
        "text",
    }
    assert set(facts["bracket"]) >= {"name", "reason", "fill"}
    assert facts["domains"] == [
        {"name": "TESTING", "words": ["test"], "form": "full", "summoned": False}
    ]
    entry_keys = {"id", "key", "layer", "rank", "score", "terms", "form", "hits"}
    for entry in facts["notes"] + facts["pages"]:
        assert set(entry) >= entry_keys
        assert {"term", "recall", "title", "body", "idf", "contribution"} <= set(entry["terms"][0])
    page = next(p for p in facts["pages"] if p["layer"] == "workspace")
    assert (page["id"], page["key"], page["hits"]) == (
        "ref_auth_tokens.md",
        "page:ref_auth_tokens.md",
        ["login"],
    )
    project = next(n for n in facts["notes"] if n["layer"] == "project")
    assert project["id"] == project["key"] == "mem-2611010000001234"
    assert [w["reason"] for w in facts["withheld"]] == ["no word hit"]  # the deploy note
    assert facts["withheld"][0]["kind"] == "note"
    assert facts["problems"] == []
    assert facts["text"].startswith("## TESTING\n- Run the tests first.")


# --- refusals ------------------------------------------------------------------------


def test_prompt_with_a_domain_name_is_refused_naming_both_forms(world: World) -> None:
    result = world.abcd("rules", "TESTING", "--prompt", "run the tests")
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1
    assert "`abcd rules NAME`" in result.err and "`abcd rules --prompt" in result.err


@pytest.mark.parametrize("fill", ["abc", "-1", "100.5", "nan", "inf", ""])
def test_a_fill_outside_0_to_100_is_refused_in_one_line(world: World, fill: str) -> None:
    result = world.diagnose("run the tests", "--fill", fill)
    assert result.code == 2
    assert result.out == ""
    refusal = f"abcd: --fill takes the percent of the window used, 0 to 100; not {fill!r}\n"
    assert result.err == refusal


@pytest.mark.parametrize("option", [["--fill", "50"], ["--all"]])
def test_fill_and_all_need_a_prompt(world: World, option: list[str]) -> None:
    result = world.abcd("rules", *option)
    assert result.code == 2
    assert result.err.startswith(f"abcd: {option[0]} goes with --prompt")
    assert result.err.count("\n") == 1
