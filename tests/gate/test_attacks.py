"""The gate judges what a text really says: hundreds of disguised attempts, each refused
naming the kind and the field and echoing nothing; and what names nothing passes."""

from __future__ import annotations

import pytest

from abcd.errors import Refused
from abcd.gate import judge_note
from abcd.gate.fold import fold

from .attacks import Attempt, attempts

ATTEMPTS = list(attempts())
FIELDS = ("title", "body", "recall[2]")


def holds_run(haystack: str, secret: str) -> bool:
    """True when `haystack` repeats more than four characters of `secret` in a row."""
    return any(secret[i : i + 5] in haystack for i in range(len(secret) - 4))


def judged_in(field: str, attempt: Attempt) -> tuple[str, str] | None:
    title, body, recall = "A lesson", "The build needs the race flag.", ["race", "flag", "ci"]
    if field == "title":
        title = attempt.sample.text
    elif field == "body":
        body = attempt.sample.text
    else:
        recall[2] = attempt.sample.text
    finding = judge_note(title, body, recall, private_names=attempt.names)
    if finding is None:
        return None
    message = str(Refused(finding.kind, finding.field))
    assert not holds_run(f"{message} {finding!r}", attempt.sample.secret), attempt.name
    return finding.kind, finding.field


def test_the_attempts_number_in_the_hundreds_and_cover_every_disguise() -> None:
    assert len(ATTEMPTS) * len(FIELDS) >= 500
    disguises = {a.name.rsplit(" / ", 1)[1] for a in ATTEMPTS}
    assert disguises == {
        "plain",
        "hidden characters",
        "full width",
        "mathematical letters",
        "escape sequence",
        "wrapped line",
        "terminal session",
    }


@pytest.mark.parametrize("field", FIELDS)
def test_every_attempt_is_refused_in_every_field_naming_its_kind_and_field_and_echoing_nothing(
    field: str,
) -> None:
    missed = []
    for attempt in ATTEMPTS:
        found = judged_in(field, attempt)
        if found != (attempt.kind, field) and not _another_secret(attempt, found, field):
            missed.append(f"{attempt.name}: {found}")
    assert missed == []


def _another_secret(attempt: Attempt, found: tuple[str, str] | None, field: str) -> bool:
    """True when a secret wrapped onto two lines was refused as a secret of another kind: its
    first line alone can be a value another rule refuses (`NAME=` and half a key)."""
    wrapped = attempt.name.endswith((" / wrapped line", " / terminal session"))
    wrapped = wrapped and attempt.kind.startswith("secret: ")
    return wrapped and found is not None and found[0].startswith("secret: ") and found[1] == field


# What names nothing: none of these may be refused, in any field.
LOOK_ALIKES = [
    "input_tokens: 15873902",
    "output_tokens=48211, cache_read_input_tokens: 9921734",
    "token_sha: " + "9c1f3e7a" * 5,
    "secret_name: prod/db/credentials-2024",
    "password_hash = argon2id$v=19$m=65536,t=3,p=4$" + "c2FsdHNhbHQ$aGFzaGhhc2g",
    "AK" + "IAIOSFODNN7" + "EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    "the VPC is 10.0.0.0/16 and the pods use 172.16.0.0/12",
    "allow 192.168.0.0/24 through",
    "café naïve résumé — ✔️ done, 日本語のテキスト",
    "ｆｕｌｌ ｗｉｄｔｈ prose is folded and still says nothing",
    "pass --password to the command, or use --password-stdin",
    "mysql -u root -p appdb",
    "curl -u admin:changeme http://localhost:8080",
    "session = requests.Session()",
    "ssh_key: ~/.ssh/id_ed25519",
    "GET /api/users/42 returns the profile",
    "about ~5 ms, ~/src and ~+ are fine",
    "the announcement went out",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_look_alike_that_names_nothing_passes_in_every_field(text: str) -> None:
    assert judge_note("A lesson", text, ["race"], private_names=["Ann"]) is None
    assert judge_note(text[:120], "The body.", ["race"], private_names=["Ann"]) is None
    assert judge_note("A lesson", "The body.", [text[:64]], private_names=["Ann"]) is None


def test_a_host_cidr_or_an_interface_address_with_its_prefix_is_still_refused() -> None:
    for text in ("ssh to 10.1.2.3/24", "the host 10.0.0.5/32", "pin 172.16.4.1/31"):
        finding = judge_note("A lesson", text, ["race"])
        assert finding is not None and finding.kind == "network: ipv4 address", text


def test_folding_removes_hidden_characters_and_escapes_and_undoes_compatibility_forms() -> None:
    assert fold("g\u2066h\ufe0fp\U000e0041_x") == "ghp_x"
    assert fold("ｇｈｐ＿ｘ") == "ghp_x"
    assert fold("a\x1b[31mb\x1b]8;;\x07c\x07d") == "abcd"
    assert fold("\u3164\u2800x\uffa0") == "x"
    assert fold("line one\nline\ttwo\r\n") == "line one\nline\ttwo\r\n"
    plain = "plain ASCII prose stays the very same object"
    assert fold(plain) is plain
