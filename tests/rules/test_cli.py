"""`abcd rules [NAME] [--json]`: the listing with sources, one domain in full, loud broken files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from abcd.cli import rules_cmd
from abcd.rules import load_here, render_domain
from abcd.trust import shown
from tests.conftest import Run
from tests.rules.conftest import Write

Domain = Callable[..., dict[str, Any]]


def rules(*args: str) -> Result:
    return CliRunner().invoke(rules_cmd.app, list(args))


@pytest.fixture
def two_layers(write_machine: Write, write_repo: Write) -> tuple[Path, Path]:
    mine = write_machine(
        {
            "domains": {
                "TESTING": {"recall": ["test"], "aliases": ["race detector"], "rules": ["Mine."]},
                "SECRETS": {"state": "dormant", "rules": ["Never paste a token."]},
            }
        }
    )
    theirs = write_repo(
        {
            "domains": {
                "TESTING": {"rules": ["Run the tests with -race.", "Never skip a test."]},
                "DEPLOY": {"recall": ["deploy", "release"], "rules": ["Use the script."]},
            }
        }
    )
    return mine, theirs


def test_the_listing_names_each_domain_with_its_source(two_layers: tuple[Path, Path]) -> None:
    result = rules()
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert f"personal rules: {shown(two_layers[0])} (read)" in lines
    assert f"project rules: {shown(two_layers[1])} (read)" in lines
    rows = {line.split()[0]: line for line in lines if line and line.split()[0].isupper()}
    assert rows["TESTING"].split()[:5] == ["TESTING", "active", "repo", "override", "2"]
    assert rows["TESTING"].endswith('test; "race detector"')
    assert rows["SECRETS"].split()[:3] == ["SECRETS", "dormant", "machine"]
    assert rows["SECRETS"].endswith("*SECRETS only")
    assert rows["DEPLOY"].split()[:3] == ["DEPLOY", "active", "repo"]
    assert result.stderr == ""


def test_a_name_renders_that_domain_in_full_as_the_hook_would(
    two_layers: tuple[Path, Path],
) -> None:
    result = rules("testing")
    assert result.exit_code == 0
    expected = load_here().get("TESTING")
    assert expected is not None
    assert result.stdout == render_domain(expected)
    assert result.stdout.startswith("## TESTING (repo override)\n- Run the tests with -race.\n")


def test_the_listing_in_json(two_layers: tuple[Path, Path]) -> None:
    result = rules("--json")
    assert result.exit_code == 0
    listing = json.loads(result.stdout)
    assert listing["disabled"] is False
    assert [(d["name"], d["origin"]) for d in listing["domains"]] == [
        ("TESTING", "repo override"),
        ("SECRETS", "machine"),
        ("DEPLOY", "repo"),
    ]
    assert listing["domains"][0]["aliases"] == ["race detector"]
    assert [layer["status"] for layer in listing["layers"]] == ["read", "read"]


def test_one_domain_in_json_carries_its_rendered_text(two_layers: tuple[Path, Path]) -> None:
    shown_domain = json.loads(rules("DEPLOY", "--json").stdout)
    assert shown_domain["name"] == "DEPLOY"
    assert shown_domain["text"] == "## DEPLOY\n- Use the script.\n"


def test_a_broken_file_exits_1_with_one_line_naming_it(write_repo: Write) -> None:
    path = write_repo(b'{"domains": {"testing": {"rules": ["r"]}}}')
    result = rules()
    assert result.exit_code == 1
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"abcd: {shown(path)}: domains: `testing` is not a domain name")


def test_a_symlinked_machine_file_exits_1_naming_it(
    write_machine: Write, tmp_path: Path, repo: Path
) -> None:
    real = write_machine({"domains": {}})
    real.rename(tmp_path / "elsewhere.json")
    real.symlink_to(tmp_path / "elsewhere.json")
    result = rules("--json")
    assert result.exit_code == 1
    assert (
        result.stderr == f"abcd: {shown(real)}: is a symlink (refused: links are never followed)\n"
    )


def test_the_kill_switch_is_named_with_its_file(
    write_machine: Write, write_repo: Write, a_domain: Domain
) -> None:
    write_machine({"domains": {"TESTING": a_domain()}})
    path = write_repo({"disabled": True})
    listing = rules()
    assert listing.stdout.splitlines()[0] == (
        f'kill switch: "disabled": true in {shown(path)}; rules, notes and pages are silenced'
    )
    one = rules("TESTING")
    assert one.exit_code == 0
    assert f'kill switch: "disabled": true in {shown(path)}' in one.stderr
    assert json.loads(rules("--json").stdout)["disabled_by"] == [shown(path)]


def test_a_dropped_domain_is_said_on_stderr_without_failing(write_repo: Write) -> None:
    path = write_repo({"domains": {"EMPTY": {"recall": ["x"]}}})
    result = rules()
    assert result.exit_code == 0
    assert result.stderr == f"abcd: {shown(path)}: domain EMPTY has no rules; dropped\n"
    assert "no rule domains" in result.stdout


def test_an_unknown_name_exits_1_and_points_at_the_listing(repo: Path) -> None:
    result = rules("NOPE")
    assert result.exit_code == 1
    assert result.stderr == "abcd: no rule domain NOPE; `abcd rules` lists them\n"


def test_registered_on_a_root_app_a_name_and_json_parse_in_any_order(
    two_layers: tuple[Path, Path],
) -> None:
    root = typer.Typer()

    @root.callback()
    def main() -> None:
        """The root, as `abcd` has one."""

    rules_cmd.register(root)
    result = CliRunner().invoke(root, ["rules", "DEPLOY", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["name"] == "DEPLOY"


def test_the_real_abcd_runs_rules(abcd: Run, two_layers: tuple[Path, Path]) -> None:
    from abcd.cli.main import app

    commands = {c.name for c in app.registered_commands} | {g.name for g in app.registered_groups}
    if "rules" not in commands:
        pytest.skip("`rules` is not registered on the root app yet (abcd.cli.main)")
    result = abcd("rules", "DEPLOY")
    assert result.code == 0, result.err
    assert result.out == "## DEPLOY\n- Use the script.\n"
