"""`judge_stamps`: `--by` and the session pass the secret table and the private names only."""

from __future__ import annotations

import random
import uuid

import pytest

from abcd.errors import Refused
from abcd.gate import Finding, judge_stamps

from .samples import ALNUM, TRUE_SECRETS, rand


def test_a_uuid_session_and_an_ordinary_writer_pass() -> None:
    session = str(uuid.UUID(int=random.Random(1).getrandbits(128), version=4))
    assert judge_stamps([("--by", "Claude:claude-opus-4-8"), ("--session", session)]) is None


@pytest.mark.parametrize(
    "rule_id", ["github-pat", "npm-access-token", "gitlab-pat", "slack-bot-token"]
)
def test_a_token_in_the_session_is_refused_naming_where_the_session_came_from(rule_id: str) -> None:
    token = TRUE_SECRETS[rule_id](random.Random(rule_id)).text
    for source in ("--session", "CLAUDE_CODE_SESSION_ID"):
        finding = judge_stamps([("--by", "Claude:x"), (source, token)])
        assert finding is not None and finding.field == source
        assert finding.kind.startswith("secret: ")


def test_a_private_name_in_by_is_refused_even_glued_to_the_model() -> None:
    for by in ("Quennell:claude", "Claude:quennell-model", "QuennellAi:claude"):
        assert judge_stamps([("--by", by)], private_names=["Quennell"]) == Finding(
            "private name", "--by"
        )


def test_an_absent_session_is_skipped_and_a_hidden_character_does_not_hide_a_token() -> None:
    token = "gh" + "p_" + rand(random.Random(3), 36, ALNUM)
    hidden = token[:6] + "\u2066" + token[6:]
    assert judge_stamps([("--session", None)]) is None
    assert judge_stamps([("--session", hidden)]) == Finding("secret: github token", "--session")


def test_a_names_list_that_cannot_compile_refuses_the_stamps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import abcd.gate.judge as judge

    def broken(names: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(judge, "names_matcher", broken)
    with pytest.raises(Refused) as caught:
        judge_stamps([("--by", "Claude:x")])
    assert str(caught.value) == "refused: gate unavailable: internal error (RuntimeError)"
