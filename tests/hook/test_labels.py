"""The block says who wrote a personal note: an agent, a person, or the host's memory files."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Run
from tests.hook.conftest import Host

PERSON = "(personal note, written by a person)"


def _a_persons_note(abcd: Run) -> str:
    added = abcd(
        "memory", "add", "--title", "Deploy on weekdays", "--recall", "deploy", "--by", "person",
        stdin="Never deploy on a Friday.",
    )  # fmt: skip
    assert added.code == 0, added.err
    return added.out.strip()


def test_a_note_a_person_wrote_is_not_labelled_agent_written(host: Host, abcd: Run) -> None:
    agent = host.note("Deploys need a tag", "Tag the release first.", "deploy")
    person = _a_persons_note(abcd)
    text = host.prompt("deploy it", "s1")["text"]
    assert f"{agent} (personal note, agent-written)" in text
    assert f"{person} {PERSON}" in text


def test_the_label_is_the_same_when_the_hook_reads_the_view(
    host: Host, abcd: Run, abcd_home: Path
) -> None:
    person = _a_persons_note(abcd)
    (abcd_home / "memory.idx").unlink()
    assert f"{person} {PERSON}" in host.prompt("deploy it", "s1")["text"]
