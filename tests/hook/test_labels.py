"""The block says who wrote a personal note: an agent, a person, or the host's memory files."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Run
from tests.hook.conftest import Host


def test_a_note_a_person_wrote_is_not_labelled_agent_written(host: Host, abcd: Run) -> None:
    agent = host.note("Deploys need a tag", "Tag the release first.", "deploy")
    person = abcd(
        "memory",
        "add",
        "--title",
        "Deploy on weekdays",
        "--recall",
        "deploy",
        "--by",
        "person",
        stdin="Never deploy on a Friday.",
    )
    assert person.code == 0, person.err
    text = host.prompt("deploy it", "s1")["text"]
    assert f"{agent} (personal note, agent-written)" in text
    assert f"{person.out.strip()} (personal note, written by a person)" in text


def test_the_label_is_the_same_when_the_hook_reads_the_view(
    host: Host, abcd: Run, abcd_home: Path
) -> None:
    person = abcd(
        "memory",
        "add",
        "--title",
        "Deploy on weekdays",
        "--recall",
        "deploy",
        "--by",
        "person",
        stdin="Never deploy on a Friday.",
    )
    (abcd_home / "memory.idx").unlink()
    text = host.prompt("deploy it", "s1")["text"]
    assert f"{person.out.strip()} (personal note, written by a person)" in text
