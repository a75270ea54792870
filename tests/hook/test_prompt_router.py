"""The prompt hook through the real command: what comes back, once, ranked, labelled, never blocking."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import BY, git

from .conftest import Host, keys, page, project_notes, rules
from .transcript import DEPLETED, FRESH, MODERATE, transcript


def test_n1_a_note_written_unasked_comes_back_next_session_on_a_prompt_about_tests(
    host: Host, tmp_path: Path
) -> None:
    note = host.note(
        "The tests need the race flag", "Run go test -race ./... first.", "test", "race"
    )
    host.start("next-session")
    env = host.prompt(
        "how do I run the tests", "next-session", transcript_path=transcript(tmp_path, FRESH)
    )
    assert keys(env) == [note]
    assert f"### {note} (personal note, agent-written): The tests need the race flag" in env["text"]
    assert "Run go test -race ./... first." in env["text"]
    assert env["recalled"][0]["form"] == "full"


def test_n2_a_matching_note_and_page_come_back_together_in_one_block(
    host: Host, repo: Path, tmp_path: Path
) -> None:
    note = host.note("Auth tests need a clock", "Freeze the clock in auth tests.", "auth")
    page(
        repo / ".abcd" / "memory",
        "ref_auth_tokens.md",
        ["auth", "login"],
        "How sign-in tokens are issued",
        "Tokens rotate.",
    )
    env = host.prompt("fix the auth bug", transcript_path=transcript(tmp_path, FRESH))
    assert sorted(keys(env)) == sorted([note, "page:ref_auth_tokens.md"])
    assert env["text"].count("## MEMORY") == 1


def test_n5_personal_and_promoted_notes_both_come_back_labelled_by_layer(
    host: Host, repo: Path
) -> None:
    mine = host.note("Deploys need a tag", "Tag before deploying.", "deploy")
    project_notes(
        repo,
        {
            "id": "mem-2611010000001234",
            "title": "Deploy from main only",
            "body": "Only main.",
            "recall": ["deploy"],
        },
    )
    env = host.prompt("deploy the service")
    layers = {r["key"]: r["layer"] for r in env["recalled"]}
    assert layers == {mine: "machine", "mem-2611010000001234": "project"}
    assert "(project note, in this repository)" in env["text"]
    assert "(personal note, agent-written)" in env["text"]
    assert "(project)" in env["stderr"] and "(personal)" in env["stderr"]


def test_p1_a_page_with_auth_recall_comes_back_on_auth_and_no_other_page(
    host: Host, repo: Path
) -> None:
    pages = repo / ".abcd" / "memory"
    page(pages, "ref_auth_tokens.md", ["auth", "login"], "Sign-in tokens", "Tokens rotate hourly.")
    page(
        pages, "ref_build_cache.md", ["build", "cache"], "The build cache", "Cache lives in .cache."
    )
    page(
        pages, "ref_auth_unlisted.md", None, "Auth page without recall words", "Never a candidate."
    )
    env = host.prompt("auth")
    assert keys(env) == ["page:ref_auth_tokens.md"]


def test_p3_a_repeated_prompt_injects_once_until_the_refresh(host: Host, tmp_path: Path) -> None:
    note = host.note("The tests need the race flag", "Use -race.", "test")
    rules(host.cwd / ".abcd", {"TESTING": {"recall": ["test"], "rules": ["Run with -race."]}})
    host.start()
    first = host.prompt("run the tests")
    assert keys(first) == [note] and first["injected"] == ["TESTING"]
    again = host.prompt("run the tests")
    assert again["recalled"] == [] and again["injected"] == [] and again["text"] == ""
    host.compact()
    after = host.prompt("run the tests")
    assert keys(after) == [note] and after["injected"] == ["TESTING"]
    host.start(source="clear")
    assert keys(host.prompt("run the tests")) == [note]


def test_p4_a_workspace_page_suppresses_the_machine_page_of_the_same_name(
    host: Host, repo: Path, abcd_home: Path
) -> None:
    host.note("seed the home", "so it exists", "unrelated")
    page(abcd_home / "memory", "ref_auth_tokens.md", ["auth"], "Machine copy", "machine text")
    page(
        repo / ".abcd" / "memory",
        "ref_auth_tokens.md",
        ["auth"],
        "Workspace copy",
        "workspace text",
    )
    env = host.prompt("auth")
    assert env["recalled"] == [
        {"key": "page:ref_auth_tokens.md", "layer": "workspace", "form": "line"}
    ]
    assert "Workspace copy" in env["text"] and "Machine copy" not in env["text"]


def test_a_machine_page_comes_back_where_no_workspace_page_shadows_it(
    host: Host, abcd_home: Path
) -> None:
    host.note("seed the home", "so it exists", "unrelated")
    page(
        abcd_home / "memory",
        "ref_shell_quoting.md",
        ["quoting"],
        "Shell quoting",
        "Quote every expansion.",
    )
    env = host.prompt("a quoting question")
    assert env["recalled"] == [
        {"key": "page:ref_shell_quoting.md", "layer": "machine", "form": "line"}
    ]
    assert "(personal page, on this machine)" in env["text"]


def test_a_prompt_that_matches_nothing_adds_nothing(host: Host) -> None:
    host.note("The tests need the race flag", "Use -race.", "test")
    out, err = host.plain("what is the weather like")
    assert out == ""
    assert "recalled" not in err


def test_the_backstop_resends_on_the_fifteenth_prompt(host: Host) -> None:
    note = host.note("The tests need the race flag", "Use -race.", "test")
    host.start()
    sent_on = [n for n in range(1, 31) if keys(host.prompt("run the test suite"))]
    assert sent_on == [1, 15, 30]
    assert note


def test_a_session_start_resets_and_sessions_do_not_share_a_ledger(host: Host) -> None:
    note = host.note("The tests need the race flag", "Use -race.", "test")
    assert keys(host.prompt("tests", "one")) == [note]
    assert keys(host.prompt("tests", "two")) == [note]
    assert keys(host.prompt("tests", "one")) == []
    host.start("one", source="startup")
    assert keys(host.prompt("tests", "one")) == [note]


def test_a_resumed_session_keeps_its_ledger_because_its_context_still_holds_what_was_sent(
    host: Host,
) -> None:
    note = host.note("The tests need the race flag", "Use -race.", "test")
    host.start("one")
    assert keys(host.prompt("tests", "one")) == [note]
    host.start("one", source="resume")
    assert keys(host.prompt("tests", "one")) == []
    for source in ("clear", "compact"):
        host.start("one", source=source)
        assert keys(host.prompt("tests", "one")) == [note]


def test_a_note_tied_to_another_repository_is_not_recalled_here(host: Host, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "commit", "-q", "--allow-empty", "-m", "another root")
    host.note("Elsewhere only", "Not for this repo.", "test", cwd=other)
    here = host.note("Here", "For this repo.", "test")
    everywhere = host.note("Everywhere", "For every repo.", "test", everywhere=True)
    assert sorted(keys(host.prompt("test"))) == sorted([here, everywhere])


def test_the_kill_switch_silences_rules_notes_and_pages(host: Host, repo: Path) -> None:
    host.note("The tests need the race flag", "Use -race.", "test")
    page(
        repo / ".abcd" / "memory", "ref_test_matrix.md", ["test"], "Test matrix", "Linux and macOS."
    )
    rules(
        repo / ".abcd",
        {"TESTING": {"recall": ["test"], "rules": ["Run with -race."]}},
        disabled=True,
    )
    env = host.prompt("run the test suite")
    assert env["text"] == "" and env["recalled"] == [] and env["injected"] == []


def test_recall_words_outweigh_the_body_and_a_rare_word_outranks_a_common_one(
    host: Host, tmp_path: Path
) -> None:
    for n in range(6):
        host.note(f"Common note {n}", "The build runs the build again.", "build")
    rare = host.note("Flaky integration suite", "Retry once on timeout.", "build", "flaky")
    body_only = host.note(
        "Mentions flaky only in its body", "Sometimes flaky, flaky, flaky.", "build"
    )
    env = host.prompt("the build is flaky", transcript_path=transcript(tmp_path, FRESH))
    order = keys(env)
    assert order[0] == rare
    assert order.index(rare) < order.index(body_only)


def test_the_same_prompt_ranks_the_same_way_every_time(host: Host, tmp_path: Path) -> None:
    for n in range(5):
        host.note(f"Lesson {n}", "Same body.", "deploy")
    orders = {tuple(keys(host.prompt("deploy now", session=f"s{n}"))) for n in range(3)}
    assert len(orders) == 1
    (order,) = orders
    listed = json.loads(host.abcd("memory", "list", "--json").out)["notes"]
    newest_first = [n["id"] for n in sorted(listed, key=lambda n: n["written_at"], reverse=True)]
    assert list(order) == newest_first  # a tie breaks on recency: newer first


def test_ties_break_on_narrower_scope_first(host: Host, repo: Path) -> None:
    mine = host.note("Same words", "Same body.", "deploy")
    project_notes(
        repo,
        {
            "id": "mem-2001010000000000",
            "title": "Same words",
            "body": "Same body.",
            "recall": ["deploy"],
        },
    )
    assert keys(host.prompt("deploy")) == ["mem-2001010000000000", mine]


def test_brackets_shrink_recall_from_full_to_one_line_and_it_stays_there(
    host: Host, tmp_path: Path
) -> None:
    first = host.note("Race flag", "Use -race.", "test")
    assert (
        host.prompt("test", transcript_path=transcript(tmp_path, FRESH))["recalled"][0]["form"]
        == "full"
    )
    second = host.note("Coverage flag", "Use -cover.", "test")
    env = host.prompt("test", transcript_path=transcript(tmp_path, DEPLETED))
    assert env["recalled"] == [{"key": second, "layer": "machine", "form": "line"}]
    assert env["bracket"] == "depleted" and first not in keys(env)


def test_moderate_sends_the_top_in_full_within_8_kib_and_the_rest_as_lines(
    host: Host, tmp_path: Path
) -> None:
    for n in range(6):
        host.note(f"Big lesson {n}", ("word " * 380).strip(), "deploy")
    env = host.prompt("deploy", transcript_path=transcript(tmp_path, MODERATE))
    forms = [r["form"] for r in env["recalled"]]
    assert env["bracket"] == "moderate"
    assert (
        forms[0] == "full" and "line" in forms and forms == sorted(forms)
    )  # fulls first, then lines
    assert len(env["recalled"]) == 6


def test_depleted_always_sends_at_least_the_top_line(host: Host, tmp_path: Path) -> None:
    note = host.note("x" * 120, "body", "deploy")
    env = host.prompt("deploy", transcript_path=transcript(tmp_path, DEPLETED))
    assert keys(env) == [note]


def test_a_page_larger_than_the_budget_is_set_aside_named_and_does_not_stop_the_take(
    host: Host, repo: Path, tmp_path: Path
) -> None:
    pages = repo / ".abcd" / "memory"
    page(
        pages,
        "ref_deploy_huge.md",
        ["deploy", "release"],
        "Everything about deploys",
        "deploy " * 12_000,
    )
    small = host.note("Deploy with the tag", "Tag first.", "deploy")
    env = host.prompt("deploy release", transcript_path=transcript(tmp_path, FRESH))
    assert keys(env) == [small]
    assert "too large [page:ref_deploy_huge.md]" in env["stderr"]
    again = host.prompt("deploy release", transcript_path=transcript(tmp_path, FRESH))
    assert again["recalled"] == []


def test_bodies_sit_in_a_tilde_fence_longer_than_any_run_inside(host: Host, tmp_path: Path) -> None:
    host.note("Fences", "Use ~~~~ fences.\n# Not a heading\n~~~\nend", "fence")
    text = host.prompt("fence", transcript_path=transcript(tmp_path, FRESH))["text"]
    assert "\n~~~~~\nUse ~~~~ fences.\n# Not a heading\n~~~\nend\n~~~~~" in text


def test_the_hook_never_blocks_on_a_malformed_payload(host: Host) -> None:
    for bad in ("", "not json", "[1, 2]", json.dumps({"prompt": 5})):
        result = host.abcd("hook", "prompt-router", stdin=bad)
        assert result.code == 0
        assert len(result.err.strip().splitlines()) <= 1
    assert host.abcd("hook", "nonsense", stdin="{}").code == 0


def _deploy_from_the_repository_only(host: Host, repo: Path) -> dict[str, object]:
    """A project note and a rule domain about deploys; a prompt must bring back exactly them."""
    project_notes(
        repo,
        {
            "id": "mem-2611010000001234",
            "title": "Deploy from main",
            "body": "Only main.",
            "recall": ["deploy"],
        },
    )
    rules(repo / ".abcd", {"DEPLOY": {"recall": ["deploy"], "rules": ["Tag first."]}})
    env = host.prompt("deploy")
    assert keys(env) == ["mem-2611010000001234"] and env["injected"] == ["DEPLOY"]
    return env


def test_a_refused_machine_view_does_not_stop_rules_or_the_projects_notes(
    host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    host.note("Mine", "machine note", "deploy")
    view = abcd_home / "memory.json"
    elsewhere = tmp_path / "view.json"
    elsewhere.write_bytes(view.read_bytes())
    view.unlink()
    view.symlink_to(elsewhere)
    env = _deploy_from_the_repository_only(host, repo)
    assert "memory.json: is a symlink" in env["stderr"]


def test_the_json_envelope_says_the_fill_and_each_items_form(host: Host, tmp_path: Path) -> None:
    host.note("Race flag", "Use -race.", "test")
    env = host.prompt("test", transcript_path=transcript(tmp_path, MODERATE))
    assert set(env) >= {"text", "injected", "recalled", "fill"}
    assert env["fill"]["source"] == "transcript" and round(env["fill"]["used_percentage"]) == 50
    unknown = host.prompt("test", session="other")
    assert unknown["fill"] == {"used_percentage": None, "source": "unknown"}


def test_the_unknown_fill_is_said_once_a_session(host: Host) -> None:
    host.note("Race flag", "Use -race.", "test")
    said = [("fill unknown" in host.prompt(f"prompt {n}")["stderr"]) for n in range(3)]
    assert said == [True, False, False]


def test_the_hook_does_not_import_the_cli_framework(host: Host) -> None:
    code = (
        "import sys, io, json; from abcd.entry import main; "
        "sys.argv=['abcd','hook','prompt-router']; "
        "sys.stdin=io.TextIOWrapper(io.BytesIO(json.dumps({'prompt':'x','cwd':'.'}).encode())); "
        # The hook leaves through `os._exit` (no teardown), as `abcd.leanos` gives it: report what
        # it loaded on the way out.
        "from abcd import leanos; leave = leanos._exit; "
        "leanos._exit = lambda code: (print(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('typer','click','rich','msgspec','portalocker')), file=sys.stderr), "
        "leave(code)); main()"
    )
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=host.cwd,
        env=dict(os.environ),
    )
    assert out.returncode == 0
    assert out.stderr.strip().splitlines()[-1] == "[]"
    assert BY


def test_p2_below_40_percent_free_three_matched_pages_come_back_as_index_lines_only(
    host: Host, repo: Path, tmp_path: Path
) -> None:
    pages = repo / ".abcd" / "memory"
    for n in range(3):
        page(
            pages,
            f"ref_deploy_step{n}.md",
            ["deploy"],
            f"Deploy step {n}",
            f"Step {n} in detail. " * 20,
        )
    env = host.prompt("deploy", transcript_path=transcript(tmp_path, DEPLETED))
    assert env["bracket"] == "depleted"
    assert sorted(r["key"] for r in env["recalled"]) == [
        f"page:ref_deploy_step{n}.md" for n in range(3)
    ]
    assert {r["form"] for r in env["recalled"]} == {"line"}
    assert "Step 0 in detail" not in env["text"] and "~~~" not in env["text"]
    for n in range(3):
        assert (
            f"- page:ref_deploy_step{n}.md (project page, in this repository): Deploy step {n}"
            in env["text"]
        )


def test_n8_recall_goes_full_then_one_line_and_stays_there_to_the_end_of_the_session(
    host: Host, tmp_path: Path
) -> None:
    host.start()
    forms = []
    for n, used in enumerate((FRESH, MODERATE, DEPLETED, DEPLETED)):
        host.note(f"Lesson {n}", ("detail " * 250).strip(), f"topic{n}", "shared")
        env = host.prompt(f"shared topic{n}", transcript_path=transcript(tmp_path, used))
        forms.append([r["form"] for r in env["recalled"]])
    assert forms[0] == ["full"]
    assert forms[2] == ["line"] and forms[3] == ["line"]
    assert all(len(f) == 1 for f in forms)  # nothing sent before is sent again in another form


def test_the_ledger_reads_a_long_session_only_back_to_its_last_reset(
    host: Host, abcd_home: Path
) -> None:
    from abcd.session.events import ItemRecalled, SessionReset
    from abcd.session.files import SESSIONS_DIR, append_events, read_events_since_reset
    from abcd.trust.guarded import Home

    note = host.note("The tests need the race flag", "Use -race.", "test")
    home = Home.open(abcd_home)
    assert home is not None
    with home:
        filler = [
            ItemRecalled(key=f"mem-{n:016d}", signature="x" * 32, form="line") for n in range(3000)
        ]
        append_events(home, SESSIONS_DIR, "long", filler)  # ~400 KB before any reset
        append_events(home, SESSIONS_DIR, "long", [SessionReset(reason="backstop"), *filler[:3]])
        tail = read_events_since_reset(home, SESSIONS_DIR, "long")
    assert [type(r.event).__name__ for r in tail] == [
        "SessionReset",
        "ItemRecalled",
        "ItemRecalled",
        "ItemRecalled",
    ]
    assert keys(host.prompt("tests", "long")) == [note]


def test_a_session_whose_files_outgrew_their_bound_keeps_its_ledger_and_its_fill(
    host: Host, abcd_home: Path
) -> None:
    """Thousands of prompts into one session, its ledger and fill file past 8 MiB: each is read
    from its end (to its last reset, to its last reading), so a note recalled once is not sent
    again and the status line's last figure is the fill, with nothing said (seventeenth round:
    both files were refused whole, every item was sent on every prompt, the fill was unknown)."""
    from abcd.session.events import FillRead, ItemRecalled, SessionReset
    from abcd.session.files import FILL_DIR, SESSION_FILE_MAX_BYTES, SESSIONS_DIR, append_events
    from abcd.trust.guarded import Home

    note = host.note("The tests need the race flag", "Use -race.", "test")
    host.start("long")
    home = Home.open(abcd_home)
    assert home is not None
    with home:
        recalled = [
            ItemRecalled(key=f"mem-{n:016d}", signature="x" * 64, form="line") for n in range(4000)
        ]
        readings = [FillRead(used_percentage=n % 900 / 10) for n in range(10_000)]
        while _size(abcd_home, SESSIONS_DIR, "long") <= SESSION_FILE_MAX_BYTES:
            append_events(home, SESSIONS_DIR, "long", [SessionReset(reason="backstop"), *recalled])
        append_events(home, SESSIONS_DIR, "long", [SessionReset(reason="backstop")])
        while _size(abcd_home, FILL_DIR, "long") <= SESSION_FILE_MAX_BYTES:
            append_events(home, FILL_DIR, "long", readings)
        append_events(home, FILL_DIR, "long", [FillRead(used_percentage=12.5)])
    first = host.prompt("tests", "long")
    assert keys(first) == [note]
    assert first["fill"] == {"used_percentage": 12.5, "source": "statusline"}
    assert "bound" not in first["stderr"] and "unreadable" not in first["stderr"]
    again = host.prompt("tests", "long")
    assert keys(again) == []  # once a session: the ledger holds it
    assert "bound" not in again["stderr"] and "unreadable" not in again["stderr"]
    # A reviewer reads the whole session: the send is there, and nothing is refused.
    shown = host.abcd("memory", "show", note, "--json")
    assert shown.code == 0, shown.err
    story = json.loads(shown.out)
    assert story["problems"] == [] and len(story["sent"]) == 1


def _size(abcd_home: Path, folder: str, session: str) -> int:
    from abcd.session.files import file_name

    path = abcd_home / folder / file_name(session)
    return path.stat().st_size if path.exists() else 0


def test_the_unknown_fill_is_said_once_across_a_compaction_and_the_backstop(host: Host) -> None:
    host.note("Race flag", "Use -race.", "test")
    host.start()
    said = ["fill unknown" in host.prompt(f"prompt {n}")["stderr"] for n in range(16)]
    host.compact()
    host.start(source="compact")
    said.append("fill unknown" in host.prompt("after the compaction")["stderr"])
    assert said.count(True) == 1 and said[0]


def test_a_refused_home_still_lets_the_repositorys_notes_and_rules_come_back(
    host: Host, repo: Path, abcd_home: Path, tmp_path: Path
) -> None:
    import os

    real = tmp_path / "real-home"
    real.mkdir(mode=0o700)
    os.symlink(real, abcd_home)  # the home itself is a symlink: refused
    env = _deploy_from_the_repository_only(host, repo)
    assert "machine home refused" in env["stderr"] and "symlink" in env["stderr"]


def test_a_session_start_source_of_any_shape_leaves_the_ledger_readable_and_once_per_session(
    host: Host, abcd_home: Path
) -> None:
    """`source` was written into the ledger as the reset's reason, whole: 12 MiB of it put the
    ledger past its 8 MiB bound (every prompt then recalled as if fresh), and a lone surrogate
    failed its encoding (no reset was written)."""
    note = host.note("Tests need the race flag", "Use -race.", "test")
    for session, source in (("s1", "x" * (12 << 20)), ("s2", "\ud800"), ("s3", "start up;")):
        host.start(session=session, source=source)
        first = host.prompt("run the test suite", session=session)
        again = host.prompt("run the test suite", session=session)
        assert keys(first) == [note] and keys(again) == [], session
        assert "unreadable" not in first["stderr"] + again["stderr"]
    ledgers = list((abcd_home / "sessions").iterdir())
    assert max(ledger.stat().st_size for ledger in ledgers) < 4096
    assert b'"session-start:other"' in b"".join(ledger.read_bytes() for ledger in ledgers)
