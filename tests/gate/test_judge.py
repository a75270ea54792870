"""`judge_note` as a whole: field order, naming, the input cap, refusing when it cannot run, and no leaks."""

from __future__ import annotations

import random

import pytest

import abcd.gate.compiled as compiled_module
import abcd.gate.secrets as secrets_module
from abcd.errors import Refused
from abcd.gate import Finding, judge_note
from abcd.gate.finding import GATE_UNAVAILABLE, INPUT_TOO_LONG
from abcd.gate.limits import GATE_INPUT_MAX_CHARS
from abcd.gate.secrets import RULES, SecretRule

from .samples import TRUE_SECRETS, rand


def github_token(rng: random.Random) -> str:
    return "gh" + "p_" + rand(rng, 36)


def shares_run(haystack: str, secret: str, longer_than: int = 4) -> bool:
    """True when `haystack` holds any run of `secret` longer than `longer_than` characters."""
    n = longer_than + 1
    return any(secret[i : i + n] in haystack for i in range(len(secret) - n + 1))


# Ordinary developer prose that must pass (SPEC section 5, "Must pass").
PROSE = [
    "go test -race ./internal/... needs the race flag on CI",
    "pytest -k name -x stops at the first failure",
    "edit src/abcd/gate/network.py and tests/gate/test_network.py",
    "commit 3f2a9c1 fixed it; the image is sha256:" + "0123456789abcdef" * 4,
    "a full hash: " + "a1b2c3d4e5f6" * 5 + "abcd",
    "Python 3.11.7, ruff v0.5.1, node 20.11",
    "see https://docs.python.org/3/library/re.html and https://github.com/jcrist/msgspec/issues/12",
    "set API_KEY and GITHUB_TOKEN in the environment, never in code",
    'password = os.environ["DB_PASSWORD"] reads the secret at run time',
    "PATs look like ghp_ followed by 36 characters",
    "token = <placeholder> in the example config",
    "password: changeme is the default of the dev container",
    "the hook reads $HOME/.config and ~/.cache",
    "use `uv pip install -e .[dev]` then run tools/test",
]


def test_a_note_with_nothing_to_refuse_passes() -> None:
    assert judge_note("Tests need the race flag", "\n".join(PROSE), ["race", "go test"]) is None


@pytest.mark.parametrize("text", PROSE)
def test_each_line_of_ordinary_developer_prose_passes(text: str) -> None:
    assert judge_note("t", text, ["w"]) is None


def test_a_github_token_in_a_recall_word_is_refused_naming_recall_0() -> None:
    finding = judge_note("title", "body", [github_token(random.Random(1))])
    assert finding == Finding("secret: github token", "recall[0]")


def test_the_title_is_judged_before_the_body_and_the_body_before_the_recall_words() -> None:
    rng = random.Random(2)
    token = github_token(rng)
    assert judge_note(token, token, [token]) == Finding("secret: github token", "title")
    assert judge_note("t", token, [token]) == Finding("secret: github token", "body")
    assert judge_note("t", "b", ["ok", "fine", token]) == Finding(
        "secret: github token", "recall[2]"
    )


def test_within_a_field_a_secret_is_named_before_an_address() -> None:
    token = github_token(random.Random(3))
    assert judge_note("t", f"10.1.2.3 then {token}", ["w"]) == Finding(
        "secret: github token", "body"
    )


def test_a_recall_given_as_one_string_is_judged_as_one_word() -> None:
    assert judge_note("t", "b", "10.1.2.3") == Finding("network: ipv4 address", "recall[0]")  # type: ignore[arg-type]


def test_input_longer_than_the_cap_is_refused_as_too_long_for_the_gate() -> None:
    body = "word " * (GATE_INPUT_MAX_CHARS // 5 + 1)
    assert judge_note("t", body, ["w"]) == Finding(INPUT_TOO_LONG, "body")
    assert judge_note("t", body[:GATE_INPUT_MAX_CHARS], ["w"]) is None


def test_a_token_split_by_invisible_characters_is_still_refused() -> None:
    token = github_token(random.Random(4))
    split = token[:2] + "\u200b" + token[2:10] + "\u2060" + token[10:] + "\ufeff"
    assert judge_note("t", split, ["w"]) == Finding("secret: github token", "body")


def test_a_finding_is_immutable_and_equal_by_value() -> None:
    finding = Finding("home path", "body")
    assert finding == Finding("home path", "body")
    assert finding != Finding("home path", "title")
    assert hash(finding) == hash(Finding("home path", "body"))
    assert repr(finding) == "Finding(kind='home path', field='body')"
    with pytest.raises(AttributeError):
        finding.kind = "other"  # type: ignore[misc]


def test_a_rule_that_fails_to_compile_refuses_every_note_it_would_judge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = SecretRule("broken-rule", "secret: broken", ("deploy",), r"(?a)deploy[")
    monkeypatch.setattr(secrets_module, "RULES", (*RULES, broken))
    monkeypatch.setattr(compiled_module, "_CACHE", {})
    with pytest.raises(Refused) as info:
        judge_note("t", "deploy on friday", ["w"])
    assert info.value.kind == GATE_UNAVAILABLE
    assert "friday" not in str(info.value)


def test_an_unexpected_error_inside_the_gate_refuses_rather_than_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import abcd.gate.judge as judge_module

    def explode(text: str, lowered: str) -> None:
        raise RuntimeError(f"boom on {text}")

    monkeypatch.setattr(judge_module, "find_network", explode)
    with pytest.raises(Refused) as info:
        judge_note("t", "a secretive body", ["w"])
    assert info.value.kind == GATE_UNAVAILABLE
    assert "secretive" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_a_private_names_list_that_cannot_compile_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    import abcd.gate.names as names_module

    def failing_compile(*args: object, **kwargs: object) -> None:
        raise re.error("too big")

    monkeypatch.setattr(names_module, "_MATCHERS", {})
    monkeypatch.setattr(re, "compile", failing_compile)
    with pytest.raises(Refused) as info:
        judge_note("t", "b", ["w"], private_names=["Quennell"])
    assert info.value.kind == GATE_UNAVAILABLE


@pytest.mark.parametrize("rule_id", sorted(TRUE_SECRETS))
def test_neither_the_finding_nor_the_refusal_holds_more_than_four_characters_of_the_secret(
    rule_id: str,
) -> None:
    rng = random.Random(f"leak-{rule_id}")
    for _ in range(10):
        sample = TRUE_SECRETS[rule_id](rng)
        for title, body, recall in (
            (sample.text, "b", ["w"]),
            ("t", f"before {sample.text} after", ["w"]),
            ("t", "b", ["w", sample.text]),
        ):
            finding = judge_note(title, body, recall)
            assert finding is not None
            shown = " ".join(
                [
                    finding.kind,
                    finding.field,
                    repr(finding),
                    str(Refused(finding.kind, finding.field)),
                ]
            )
            assert not shares_run(shown, sample.secret), rule_id


def test_importing_the_gate_loads_neither_re_nor_dataclasses() -> None:
    import subprocess
    import sys

    code = "import sys, abcd.gate; print(sorted({'re', 'dataclasses', 'ipaddress', 'typing'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
