"""The two layers: machine then repository, merged field by field, the kill switch, trust, notes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from abcd.errors import CorruptFile, TrustError
from abcd.rules import Layer, load_here, merge, parse_layer
from abcd.trust import shown
from tests.rules.conftest import Write

Domain = Callable[..., dict[str, Any]]


def test_absent_layers_cost_nothing_and_create_nothing(abcd_home: Path, repo: Path) -> None:
    rules = load_here()
    assert rules.domains == () and rules.problems == () and rules.notes == ()
    assert [(layer.kind, layer.status) for layer in rules.layers] == [
        ("machine", "absent"),
        ("repo", "absent"),
    ]
    assert not abcd_home.exists()
    assert not (repo / ".abcd").exists()


def test_outside_a_repository_only_the_machine_layer_is_read(
    tmp_path: Path, monkeypatch: Any, write_machine: Write, a_domain: Domain
) -> None:
    write_machine({"domains": {"TESTING": a_domain()}})
    monkeypatch.chdir(tmp_path)
    rules = load_here()
    assert [d.name for d in rules.domains] == ["TESTING"]
    assert [layer.kind for layer in rules.layers] == ["machine"]


def test_a_repo_layer_overrides_a_machine_domain_field_by_field(
    write_machine: Write, write_repo: Write
) -> None:
    write_machine(
        {
            "domains": {
                "TESTING": {
                    "recall": ["test"],
                    "aliases": ["race detector"],
                    "rules": ["Mine first.", "Mine second."],
                },
                "DOCS": {"recall": ["docs"], "rules": ["Write docs."]},
            }
        }
    )
    write_repo({"domains": {"TESTING": {"rules": ["The project's rule."], "state": "dormant"}}})
    rules = load_here()
    testing = rules.get("TESTING")
    assert testing is not None
    assert testing.rules == ("The project's rule.",)
    assert testing.state == "dormant"
    assert [w.text for w in testing.recall] == ["test"]  # left to the machine layer
    assert [w.text for w in testing.aliases] == ["race detector"]
    assert testing.label == "(repo override)"
    assert testing.origin == "repo override"
    docs = rules.get("DOCS")
    assert docs is not None and docs.label == "" and docs.origin == "machine"


def test_a_domain_only_the_repository_names_comes_from_the_repo(
    write_repo: Write, a_domain: Domain
) -> None:
    write_repo({"domains": {"SHELL": a_domain(recall=["bash"])}})
    [shell] = load_here().domains
    assert shell.origin == "repo" and shell.label == ""


def test_domains_keep_the_order_they_were_first_named_in(
    write_machine: Write, write_repo: Write, a_domain: Domain
) -> None:
    write_machine({"domains": {"ZED": a_domain(), "ALPHA": a_domain()}})
    write_repo({"domains": {"MID": a_domain(), "ZED": a_domain()}})
    assert [d.name for d in load_here().domains] == ["ZED", "ALPHA", "MID"]


def test_a_machine_layer_over_an_earlier_one_is_labelled_a_user_override() -> None:
    def layer(kind: Any, rules: list[str]) -> Layer:
        data = f'{{"domains": {{"SHELL": {{"rules": {rules!r}}}}}}}'.replace("'", '"')
        return parse_layer(data.encode(), kind, f"{kind}.json")

    [shell], _ = merge([layer("repo", ["project"]), layer("machine", ["mine"])])
    assert shell.label == "(user override)"
    assert shell.rules == ("mine",)
    assert shell.files == ("repo.json", "machine.json")


def test_the_kill_switch_in_either_layer_names_the_file_that_set_it(
    write_machine: Write, write_repo: Write, a_domain: Domain
) -> None:
    write_machine({"domains": {"TESTING": a_domain()}})
    path = write_repo({"disabled": True})
    rules = load_here()
    assert rules.disabled
    assert rules.disabled_by == (shown(path),)


def test_disabled_false_in_one_layer_never_undoes_the_other(
    write_machine: Write, write_repo: Write
) -> None:
    path = write_machine({"disabled": True})
    write_repo({"disabled": False})
    assert load_here().disabled_by == (shown(path),)


def test_a_domain_without_rules_is_dropped_with_a_note(write_repo: Write) -> None:
    path = write_repo({"domains": {"EMPTY": {"recall": ["x"]}, "BLANK": {"rules": []}}})
    rules = load_here()
    assert rules.domains == ()
    assert rules.notes == (
        f"{shown(path)}: domain EMPTY has no rules; dropped",
        f"{shown(path)}: domain BLANK has no rules; dropped",
    )


def test_an_override_that_empties_the_rules_drops_the_domain_and_names_both_files(
    write_machine: Write, write_repo: Write, a_domain: Domain
) -> None:
    mine = write_machine({"domains": {"TESTING": a_domain()}})
    theirs = write_repo({"domains": {"TESTING": {"rules": []}}})
    rules = load_here()
    assert rules.domains == ()
    assert rules.notes == (f"{shown(mine)}, {shown(theirs)}: domain TESTING has no rules; dropped",)


def test_an_active_domain_nothing_can_hit_is_said(write_repo: Write) -> None:
    write_repo({"domains": {"QUIET": {"rules": ["r"]}}})
    rules = load_here()
    assert [d.name for d in rules.domains] == ["QUIET"]
    assert rules.notes[0].endswith(
        "domain QUIET has no recall words or aliases; it comes back only on *QUIET"
    )


def test_a_broken_layer_is_a_problem_naming_its_file_and_the_other_still_loads(
    write_machine: Write, write_repo: Write, a_domain: Domain
) -> None:
    path = write_machine(b'{"domains": {"TESTING": ')
    write_repo({"domains": {"DOCS": a_domain()}})
    rules = load_here()
    [problem] = rules.problems
    assert isinstance(problem, CorruptFile)
    assert problem.shown_path == shown(path)
    assert [d.name for d in rules.domains] == ["DOCS"]
    assert [layer.status for layer in rules.layers] == ["refused", "read"]


def test_an_oversize_machine_file_is_refused_naming_it(write_machine: Write) -> None:
    path = write_machine(b'{"domains": {}, "pad": "' + b"x" * (256 * 1024) + b'"}')
    [problem] = load_here().problems
    assert isinstance(problem, TrustError)
    assert problem.shown_path == shown(path)
    assert "larger than its bound" in problem.reason


def test_an_oversize_repo_file_is_refused_naming_it(write_repo: Write) -> None:
    path = write_repo(b" " * (256 * 1024 + 1))
    [problem] = load_here().problems
    assert str(problem).startswith(f"{shown(path)}: larger than its bound")


def test_a_symlinked_machine_file_is_refused_naming_it(
    abcd_home: Path, tmp_path: Path, write_machine: Write, a_domain: Domain
) -> None:
    real = write_machine({"domains": {"TESTING": a_domain()}})
    elsewhere = tmp_path / "elsewhere.json"
    real.rename(elsewhere)
    real.symlink_to(elsewhere)
    rules = load_here()
    [problem] = rules.problems
    assert isinstance(problem, TrustError)
    assert problem.shown_path == shown(real) and "symlink" in problem.reason
    assert rules.domains == ()


def test_a_symlinked_repo_file_is_refused_naming_it(
    tmp_path: Path, write_repo: Write, a_domain: Domain
) -> None:
    real = write_repo({"domains": {"TESTING": a_domain()}})
    elsewhere = tmp_path / "elsewhere.json"
    real.rename(elsewhere)
    real.symlink_to(elsewhere)
    [problem] = load_here().problems
    assert str(problem) == f"{shown(real)}: is a symlink (refused: links are never followed)"


def test_a_symlinked_home_is_refused_and_the_repo_layer_still_loads(
    abcd_home: Path, tmp_path: Path, write_repo: Write, a_domain: Domain
) -> None:
    target = tmp_path / "real-home"
    target.mkdir(mode=0o700)
    (target / "rules.json").write_text('{"domains": {"MINE": {"rules": ["r"]}}}')
    abcd_home.symlink_to(target)
    write_repo({"domains": {"DOCS": a_domain()}})
    rules = load_here()
    [problem] = rules.problems
    assert isinstance(problem, TrustError) and problem.shown_path == shown(abcd_home)
    assert [d.name for d in rules.domains] == ["DOCS"]


def test_a_machine_file_others_can_write_is_refused(write_machine: Write, a_domain: Domain) -> None:
    path = write_machine({"domains": {"TESTING": a_domain()}})
    os.chmod(path, 0o622)
    [problem] = load_here().problems
    assert str(problem) == f"{shown(path)}: writable by group or others"


def test_a_domains_signature_follows_its_content_and_label_not_its_files(
    write_machine: Write, write_repo: Write, a_domain: Domain
) -> None:
    write_machine({"domains": {"TESTING": a_domain()}})
    before = load_here().get("TESTING")
    write_repo({"domains": {"TESTING": {}}})
    after = load_here().get("TESTING")
    assert before is not None and after is not None
    assert before.rules == after.rules
    assert before.signature() != after.signature()  # now labelled (repo override)
    assert after.signature() == load_here().get("TESTING").signature()  # type: ignore[union-attr]
