"""The seventeenth round's escapes, through the real `abcd memory add`: forms of a home path,
an address and a private host the gate promised to refuse and passed. Each refusal names
the kind and the field, in one line, and writes nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from abcd.gate import judge_note
from tests.conftest import Run

from .samples import ALNUM, rand
from .test_gate_cli import add, holds_run, snapshot

# Each body is an accident an agent makes: a path copied from a terminal or an error
# message, an address as a tool printed it, a remote as `git remote -v` shows it.
ESCAPES = {
    # A Windows profile folder takes the account's own name, in any script (docs/gate.md,
    # "Home paths": `C:\Users\<name>`, `/home/<name>`, `/Users/<name>`).
    "windows-profile-accented": (
        "home path",
        "The build log is in C:\\Users\\{é}lodie\\proj\\out.",
    ),
    "windows-profile-cjk": ("home path", "Open C:\\Users\\{cjk}\\AppData\\Local\\app.log."),
    "linux-home-accented": ("home path", "The cache sits in /home/{é}mile/.cache/pip."),
    "macos-home-accented": ("home path", "Xcode put it in /Users/{é}lodie/Library/Developer."),
    # A path glued to a compiler's one-letter flag, as its command line prints it.
    "home-after-a-flag": ("home path", "It builds with gcc -I/home/alice/include -O2 main.c."),
    # A dotted quad with zero-padded parts (as some devices and spreadsheets print them), and
    # one in octal parts: `ping` and `inet_aton` read both as 192.168.1.10.
    "zero-padded-quad": ("network: ipv4 address", "The printer answers on 192.168.001.010 only."),
    "octal-quad": ("network: ipv4 address", "ping 0300.0250.1.012 from the lab."),
    # An SSH remote on an internal host, as `git remote -v` prints it.
    "ssh-remote-internal": (
        "network: private host",
        "Clone git@gitlab.internal:team/tools.git and run make.",
    ),
    # The host of an SSH login through a variable, which the e-mail check lets pass.
    "ssh-login-internal": ("network: private host", "Log in with ssh $USER@bastion.corp first."),
    # A name, plain words and a colon, then the value: prose as an agent writes it.
    "prose-name-words-colon": (
        "secret: credential assignment",
        "The password for staging: {value} (rotated monthly).",
    ),
    # An e-mail address on an internationalised domain.
    "email-idn-domain": ("identity: e-mail address", "Ask bob@b{ü}cher.de for access."),
}


def body_of(template: str) -> str:
    value = rand(random.Random(17), 24, ALNUM)  # a key-shaped value, built at run time
    return template.format(**{"é": "\u00e9", "ü": "\u00fc", "cjk": "\u5f20\u4f1f", "value": value})


@pytest.fixture
def home_with_one_note(abcd: Run, repo: Path, abcd_home: Path) -> Path:
    result = add(abcd, repo, "The tests need the race flag.")
    assert result.code == 0, result.err
    return abcd_home


@pytest.mark.parametrize("name", list(ESCAPES))
def test_an_escape_of_round_17_is_refused_by_the_command_and_nothing_is_written(
    abcd: Run, repo: Path, home_with_one_note: Path, name: str
) -> None:
    kind, template = ESCAPES[name]
    before = snapshot(home_with_one_note)
    result = add(abcd, repo, body_of(template))
    assert result.code == 1, result.out
    assert result.err.strip() == f"abcd: refused: {kind} in body"
    assert result.out == ""
    assert not holds_run(result.err, body_of("{value}"))
    assert snapshot(home_with_one_note) == before


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # A human reads a zero-padded part as decimal, though a URL parser refuses `09`.
        ("The NAS is http://192.168.009.010/ on the office network.", "network: ipv4 address"),
        ("Ask bob@b\u00fccher.de.", "identity: e-mail address"),
        ("Ask info@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444.", "identity: e-mail address"),
        ("Lint with ~/bin/x -L/home/alice/lib.", "home path"),
        ("The profile is C:\\Users\\\u00c5sa and D:/Users/\u0418\u0432\u0430\u043d/.", "home path"),
    ],
)
def test_round_17_refuses(text: str, kind: str) -> None:
    finding = judge_note("A lesson", text, ["build"])
    assert finding is not None and finding.kind == kind


@pytest.mark.parametrize(
    "text",
    [
        # What the fixes must still let through.
        "Version 1.02.3 shipped; 1.2.3 build 4 is next.",
        "/home/ with no name, src/home/views.py, /Users/Shared and C:\\Users\\Public pass.",
        "git@github.com:owner/repo.git is the remote; mail bob@b\u00fccher.example.",
        "The netmask is 255.255.255.000 and the range 010.000.000.000/8.",
        "Pass -I/usr/include and -L/opt/lib; src-I/home/x is one name.",
        "Use ~/ or $HOME/ paths: ~/src, $HOME/.cache.",
        "threading.local and settings.local are Python names.",
        "Runs on port 8080; the time was 12:30:45.",
        "The token for CI: GITHUB_TOKEN. The secret for deploys: stored in vault.",
        "The token count for prod: 4096. The password (prod): ask the owner.",
    ],
)
def test_what_round_17_still_lets_through(text: str) -> None:
    assert judge_note("A lesson", text, ["build"]) is None


@pytest.mark.parametrize(
    ("by", "kind"),
    [
        ("Claude:10.1.2.3", "network: ipv4 address"),
        ("Claude:build.internal", "network: private host"),
        ("Claude:gitlab.corp", "network: private host"),
    ],
)
def test_who_wrote_holding_an_address_or_a_private_host_is_refused(
    abcd: Run, repo: Path, home_with_one_note: Path, by: str, kind: str
) -> None:
    """`--by` is `Vendor:model`, and the model part may be dotted: `Claude:10.1.2.3` went into
    the journal and, promoted, into the committed project file, since the network checks ran
    on no stamp (a session id is a UUID; who wrote is not)."""
    before = snapshot(home_with_one_note)
    result = add(abcd, repo, "The tests need the race flag, always.", by=by)
    assert result.code == 1, result.out
    assert result.err.strip() == f"abcd: refused: {kind} in --by"
    assert result.out == "" and snapshot(home_with_one_note) == before


@pytest.mark.parametrize(
    "by",
    [
        "Claude:claude-opus-4-8",
        "Claude:claude-3.5-sonnet",
        "OpenAI:gpt-4.1-mini",
        "Meta:llama3.1-70b",
        "Google:gemini-2.5-pro",
        "Qwen:qwen2.5-coder-32b",
    ],
)
def test_model_names_with_dots_still_write(abcd: Run, repo: Path, by: str) -> None:
    result = add(abcd, repo, f"The tests need the race flag ({by}).", by=by)
    assert result.code == 0, result.err
