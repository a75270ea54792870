"""Domain blocks in full and short, the one fence, and whole blocks kept within a budget of
the host's characters."""

from __future__ import annotations

from abcd.rules import Domain, fence, fit, render_domain, render_rule
from abcd.rules.render import truncated_line


def domain(
    name: str = "TESTING", rules: tuple[str, ...] = ("First.", "Second."), **kw: object
) -> Domain:
    return Domain(name, "active", (), (), rules, "machine", **kw)  # type: ignore[arg-type]


def test_a_domain_in_full_is_its_heading_and_every_rule() -> None:
    assert render_domain(domain()) == "## TESTING\n- First.\n- Second.\n"


def test_an_overridden_domains_heading_says_whose_words_these_are() -> None:
    block = render_domain(domain(override="repo"))
    assert block.splitlines()[0] == "## TESTING (repo override)"


def test_the_short_form_is_heading_first_rule_and_where_the_rest_are() -> None:
    assert render_domain(domain(rules=("First.", "Second.", "Third.")), short=True) == (
        "## TESTING\n- First.\n3 rules: `abcd rules TESTING`\n"
    )


def test_the_short_form_of_a_one_rule_domain_says_one_rule() -> None:
    assert render_domain(domain(rules=("Only.",)), short=True).endswith(
        "1 rule: `abcd rules TESTING`\n"
    )


def test_a_rule_spanning_lines_is_fenced_inside_its_item() -> None:
    assert render_rule("Run:\n\n  go test -race\n") == "- ~~~\n  Run:\n\n    go test -race\n  ~~~"


def test_a_rule_that_would_read_as_markdown_structure_is_fenced() -> None:
    for rule in (
        "# Obey me",
        "> quoted",
        "- a list",
        "1. first",
        "---",
        "```sh",
        "<b>x</b>",
        "| a |",
    ):
        assert render_rule(rule).startswith("- ~~~\n"), rule


def test_ordinary_rules_with_inline_markdown_stay_plain() -> None:
    for rule in (
        "Run `go test -race` first.",
        "**Never** push tags.",
        "3.11 is the floor.",
        "#1 rule",
    ):
        assert render_rule(rule) == f"- {rule}", rule


def test_the_fence_is_longer_than_any_run_of_tildes_inside() -> None:
    assert fence("a ~~~~ b") == "~~~~~\na ~~~~ b\n~~~~~"
    assert fence("plain") == "~~~\nplain\n~~~"


def test_every_block_that_fits_is_kept_with_no_truncation_line() -> None:
    blocks = [("A", "## A\n- a\n"), ("B", "## B\n- b\n")]
    fitted = fit(blocks, 1000)
    assert fitted.text == "## A\n- a\n\n## B\n- b\n"
    assert fitted.kept == ("A", "B") and fitted.left_out == ()
    assert fitted.used == len(fitted.text)


def test_an_overflow_keeps_whole_blocks_and_says_loudly_how_many_were_left_out() -> None:
    big = "## BIG\n- " + "x" * 400 + "\n"
    blocks = [
        ("A", "## A\n- a\n"),
        ("BIG", big),
        ("C", "## C\n- c\n"),
        ("D", "## D\n- " + "d" * 300 + "\n"),
    ]
    fitted = fit(blocks, 300)
    assert fitted.kept == ("A", "C")
    assert fitted.left_out == ("BIG", "D")
    assert fitted.text.endswith(truncated_line(2, 4, 300) + "\n")
    assert "INJECTION TRUNCATED: 2 of 4 matched rule domains left out" in fitted.text
    assert len(fitted.text) == fitted.used <= 300
    for _, block in [blocks[0], blocks[2]]:
        assert block in fitted.text  # never cut


def test_the_budget_counts_characters_as_the_host_does_utf16_code_units() -> None:
    block = "## A\n- " + "é" * 50 + "\U0001f600" * 10 + "\n"  # 68 code points, 78 UTF-16 units
    assert len(block) == 68
    assert fit([("A", block)], 78).kept == ("A",)
    assert fit([("A", block)], 77).kept == ()
