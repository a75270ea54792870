"""The repository's files as a teammate's editor or git may save them: a byte order mark, CRLF.

RFC 8259 lets a parser ignore a BOM, and Windows editors write one; every reader reads the
file through it alike, and the next promotion writes the file in its one layout.
"""

from __future__ import annotations

import json
from pathlib import Path

from abcd.errors import CorruptFile
from abcd.notes.project import decode_project_file
from abcd.recall.items import parse_project_file
from tests.conftest import Run
from tests.hook.conftest import Host
from tests.review.test_desk_cli import add, at_a_terminal
from tests.review.test_merge_driver import PROJECT, file_of

BOM = b"\xef\xbb\xbf"


def saved_on_windows(repo: Path, abcd: Run) -> str:
    """A promoted note, the file then saved again with a BOM and CRLF line ends."""
    note_id = add(abcd, "Lint before each commit", recall=("lint",), body="Run ruff first.")
    code, out = at_a_terminal(["memory", "promote", note_id], "yes", repo)
    assert code == 0, out
    path = repo / PROJECT
    path.write_bytes(BOM + path.read_bytes().replace(b"\n", b"\r\n"))
    abcd("memory", "remove", note_id)  # only the project's copy is left to recall
    return note_id


def test_a_project_file_with_a_byte_order_mark_is_read_by_every_reader(
    abcd: Run, repo: Path, host: Host
) -> None:
    note_id = saved_on_windows(repo, abcd)

    out, err = host.plain("lint")
    assert note_id in out and "unreadable" not in err, err
    listed = abcd("memory", "list", "--json")
    assert listed.code == 0, listed.err
    assert [n["id"] for n in json.loads(listed.out)["notes"]] == [note_id]


def test_a_promotion_writes_a_file_saved_with_a_byte_order_mark_in_its_one_layout(
    abcd: Run, repo: Path
) -> None:
    first = saved_on_windows(repo, abcd)
    second = add(abcd, "The tests need the race flag", recall=("race",), body="Use -race.")
    code, out = at_a_terminal(["memory", "promote", second], "yes", repo)
    assert code == 0, out

    data = (repo / PROJECT).read_bytes()
    assert not data.startswith(BOM) and b"\r" not in data
    assert [n["id"] for n in json.loads(data)["notes"]] == [first, second]


def test_the_readers_agree_on_a_byte_order_mark_and_only_at_the_start() -> None:
    data = file_of()
    for bytes_ in (BOM + data, data.replace(b"{", b"{" + BOM, 1), BOM + BOM + data):
        try:
            hook: object = parse_project_file(bytes_, "f")
        except CorruptFile as err:  # the verdict is the comparison
            hook = type(err)
        try:
            commands: object = list(decode_project_file(bytes_, "f"))
        except CorruptFile as err:
            commands = type(err)
        assert (hook == []) == (commands == []), (bytes_[:8], hook, commands)
    assert parse_project_file(BOM + data, "f") == []
    assert list(decode_project_file(BOM + data, "f")) == []


def test_rules_and_a_page_saved_with_a_byte_order_mark_come_back(
    abcd: Run, repo: Path, host: Host
) -> None:
    rules = {"schema_version": 1, "domains": {"LINT": {"recall": ["lint"], "rules": ["Run ruff."]}}}
    (repo / ".abcd").mkdir()
    (repo / ".abcd/rules.json").write_bytes(BOM + json.dumps(rules).encode())
    (repo / ".abcd/memory").mkdir()
    page = "---\r\nrecall: [lint]\r\nsummary: How we lint\r\n---\r\n# Lint\r\nRun ruff.\r\n"
    (repo / ".abcd/memory/howto_lint_page.md").write_bytes(BOM + page.encode())

    out, err = host.plain("lint")
    assert "Run ruff." in out and "not valid JSON" not in err, err
    assert "page:howto_lint_page.md" in out, out
