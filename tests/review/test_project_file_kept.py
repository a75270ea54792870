"""A promotion writes the project's file back with everything it held, as it held it, and
copies no stamp into it that the gate refuses: through the real command, at a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import BY, Run, git
from tests.review.test_desk_cli import add, at_a_terminal, audit

PROJECT = Path(".abcd/memory.json")
HAND = {
    "id": "mem-2612010000000001",
    "title": "Hand",
    "body": "B",
    "recall": ["deploy"],
    "promoted_by": "person",  # a key this abcd does not know (a newer abcd's, a person's)
}


def test_a_promotion_keeps_every_key_the_file_held_and_stamps_no_hand_written_note(
    abcd: Run, repo: Path
) -> None:
    (repo / ".abcd").mkdir()
    raw = {"schema_version": 1, "team": "x", "notes": [HAND]}
    (repo / PROJECT).write_text(json.dumps(raw, separators=(",", ":")))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a hand-written project file")
    note_id = add(abcd, "Lint before push", recall=("lint", "format"), by="person")

    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)

    assert code == 0, out
    written = json.loads((repo / PROJECT).read_text())
    assert list(written) == ["schema_version", "team", "notes"] and written["team"] == "x"
    hand, promoted = written["notes"]
    assert hand == HAND and list(hand) == list(HAND)  # no origin, no null stamps, in its order
    assert promoted["id"] == note_id and promoted["origin"] == "person"
    listed = abcd("memory", "list", "--json")
    (entry,) = [e for e in json.loads(listed.out)["notes"] if e["id"] == HAND["id"]]
    assert entry["origin"] is None and entry["layer"] == "project"
    shown = abcd("memory", "list").out.split(f"{HAND['id']}  Hand\n")[1]
    assert "written by writer unknown at time unknown, session unknown, origin unknown" in shown


def test_a_note_in_the_files_own_layout_keeps_its_lines_when_another_is_promoted(
    abcd: Run, repo: Path
) -> None:
    """A file abcd wrote, with a key of a newer abcd added to its note: the diff of the next
    promotion adds the new note and takes no line away."""
    first = add(abcd, "Deploys go out on Tuesdays", recall=("deploy",), body="B.")
    assert at_a_terminal(["memory", "promote", first], "yes", repo)[0] == 0
    data = json.loads((repo / PROJECT).read_text())
    data["notes"][0]["reviewed_in"] = {"pr": 12, "ratio": 1.50}
    (repo / PROJECT).write_text(json.dumps(data, indent=2) + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the first promoted note, with a newer abcd's key")
    before = (repo / PROJECT).read_text()

    second = add(abcd, "Lint before push", recall=("lint",), body="Run make lint.")
    assert at_a_terminal(["memory", "promote", second], "yes", repo)[0] == 0

    diff = git(repo, "diff", "-U0", "--", str(PROJECT)).splitlines()
    removed = [line for line in diff if line.startswith("-") and not line.startswith("---")]
    assert removed == [], diff
    after = json.loads((repo / PROJECT).read_text())
    assert after["notes"][0] == json.loads(before)["notes"][0]
    assert [n["id"] for n in after["notes"]] == [first, second]


@pytest.mark.parametrize("stamp", ["session", "written_by", "revised_by"])
def test_a_promotion_is_refused_before_asking_when_a_stamp_holds_a_private_name(
    abcd: Run, repo: Path, stamp: str
) -> None:
    """The stamps go into the committed file as they are: judged against this checkout's
    private names, as an add judges its own `--by` and `--session`, and named."""
    named = {"session": "acmewidgets-sess-42", "by": "Claude:acmewidgets-opus"}
    extra = ["--session", named["session"]] if stamp == "session" else []
    by = named["by"] if stamp == "written_by" else BY
    note_id = add(abcd, "Lint before push", *extra, recall=("lint", "format"), by=by)
    if stamp == "revised_by":
        revised = abcd("memory", "revise", note_id, "--by", named["by"], stdin="Run make lint.")
        assert revised.code == 0, revised.err
    assert abcd("names", "add", "AcmeWidgets").code == 0
    events = len(audit(abcd))

    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)

    assert code == 1 and "Type yes" not in out, out
    (line,) = out.strip().splitlines()
    assert line.startswith(f"abcd: refused: private name in {stamp} (judged against this ")
    assert "acmewidgets" not in line.lower()
    assert not (repo / PROJECT).exists()
    assert len(audit(abcd)) == events


def test_a_promotion_into_a_file_with_a_number_no_reader_reads_as_a_value_keeps_it(
    abcd: Run, repo: Path, abcd_home: Path
) -> None:
    """After the person's yes, promotion died with msgspec's traceback on `1e999` in a key the
    readers pass over; and a file its layout would grow past the readers' bound is refused,
    nothing written, no event."""
    (repo / ".abcd").mkdir()
    hand = json.dumps(HAND)[:-1] + ', "x": 1e999}'
    (repo / PROJECT).write_text(f'{{"schema_version": 1, "notes": [{hand}]}}')
    note_id = add(abcd, "Lint before push", recall=("lint", "format"), by="person")
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 0 and "Traceback" not in out, out
    assert '"x": 1e999' in (repo / PROJECT).read_text()

    deep = "[" * 57 + ",".join(["0"] * 600_000) + "]" * 57
    grows = json.dumps(HAND)[:-1] + f', "x": {deep}}}'
    (repo / PROJECT).write_text(f'{{"schema_version": 1, "notes": [{grows}]}}')
    before = (repo / PROJECT).read_bytes()
    other = add(abcd, "Format before push", recall=("format", "black"), by="person")
    code, out = at_a_terminal(["memory", "promote", other], "yes", repo)
    assert code == 1 and "every reader reads: nothing was written" in out, out
    assert (repo / PROJECT).read_bytes() == before
    assert [r["type"] for r in audit(abcd)].count("note.promoted") == 1  # the first only
