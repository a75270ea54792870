"""Bad bytes in any file or payload cost only what they hold, and are named in one line.

Every real shape the hook and the status line read (the host's captured
payloads and transcript, the rules files, the project's notes, the pages,
the view, the index, the caches, the session and fill lines) is cut at every
prefix and corrupted at random (byte flips, deletions, an inserted comma,
merge-conflict markers, junk), and each case goes through the real entry
point in a fresh interpreter that has not loaded `json` (`driver.py`): on
Python 3.11 that is what used to turn a trailing comma into a `SystemError`
that silenced every layer. The hook and the status line exit 0 with no
traceback; the layers the case did not break still come back; a file whose
bytes are bad is named on stderr.
"""

from __future__ import annotations

import json
import marshal
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Run

from .world import (
    DOMAINS,
    HOST_DATA,
    PROJECT_NOTE,
    PROMPT,
    World,
    bad_lines,
    hook_case,
    is_json,
    is_utf8,
    make_world,
    statusline_case,
)

NEVER: Callable[[bytes], bool] = lambda _: False  # noqa: E731 - a cache is re-derived, not named
STATUS_CAPTURES = sorted(HOST_DATA.glob("statusline_*.json"))


def _is_object(data: bytes) -> bool:
    return is_json(data) and isinstance(json.loads(data), dict)


@dataclass(frozen=True)
class Shape:
    """One real file or payload: where it lives, what breaking it may cost, when it must be named."""

    name: str
    path: Callable[[World], str]  # "" for the hook's payload
    owns: Callable[[World], frozenset[str]]
    bad: Callable[[bytes], bool]  # the bytes are bad: the stderr must name the file
    named: Callable[[World], str] = lambda w: ""
    stride: int = 1  # of the prefixes: a binary file's are many and alike
    diagnosed: bool = False  # `abcd rules --prompt` reads it too
    # Bytes the diagnostic believes as they are (the view carries no digest of its notes: a flip
    # inside a string that leaves valid JSON and a matching checkpoint is read as written).
    believed: Callable[[bytes], bool] = lambda _: False

    def cli_case(self, world: World, data: bytes) -> dict[str, Any]:
        files = {self.path(world): data}
        return {"entry": "cli", "argv": ["rules", "--prompt", PROMPT], "stdin": b"", "files": files}

    def base(self, world: World) -> bytes:
        path = self.path(world)
        return world.payload() if not path else world.base.get(path) or world.caches[path]

    def case(self, world: World, data: bytes) -> dict[str, Any]:
        path = self.path(world)
        if not path:
            return hook_case(world, {}, stdin=data)
        files = _caches_around(world, path) if path in world.caches else {}
        return hook_case(world, {**files, path: data})


def _at(*parts: str) -> Callable[[World], str]:
    def path(world: World) -> str:
        root = world.repo if parts[0] == ".abcd" else world.home
        return str(root.joinpath(*parts))

    return path


def _cache(prefix: str) -> Callable[[World], str]:
    return lambda w: next(p for p in w.caches if Path(p).name.startswith(prefix))


def _caches_around(world: World, path: str) -> dict[str, bytes]:
    """The world's caches but the one at `path`, and but the reach's table when `path` holds the
    forwards: they are read only to build a table that is not kept."""
    forwards = Path(path).name.startswith("stems-")
    return {
        p: b
        for p, b in world.caches.items()
        if p != path and not (forwards and Path(p).name.startswith("reach-"))
    }


def _nothing(_: World) -> frozenset[str]:
    return frozenset()


def _owns(*keys: str) -> Callable[[World], frozenset[str]]:
    return lambda _: frozenset(keys)


def _rules_bad(data: bytes) -> bool:
    return not _is_object(data)


SHAPES = [
    Shape(
        "machine rules", _at("rules.json"), _owns("MACHINE_DEPLOY"), _rules_bad, _at("rules.json")
    ),
    Shape(
        "repository rules",
        _at(".abcd", "rules.json"),
        _owns("REPO_DEPLOY"),
        _rules_bad,
        _at(".abcd", "rules.json"),
        diagnosed=True,
    ),
    Shape(
        "project notes",
        _at(".abcd", "memory.json"),
        _owns(PROJECT_NOTE),
        lambda d: not _is_object(d),
        _at(".abcd", "memory.json"),
        diagnosed=True,
    ),
    Shape(
        "workspace page",
        _at(".abcd", "memory", "ref_deploy_workspace.md"),
        _owns("page:ref_deploy_workspace.md"),
        lambda d: not is_utf8(d),
        _at(".abcd", "memory", "ref_deploy_workspace.md"),
        diagnosed=True,
    ),
    Shape(
        "machine page",
        _at("memory", "ref_deploy_machine.md"),
        _owns("page:ref_deploy_machine.md"),
        lambda d: not is_utf8(d),
        _at("memory", "ref_deploy_machine.md"),
        diagnosed=True,
    ),
    Shape(
        "the memory.json view",
        _at("memory.json"),
        _nothing,
        NEVER,
        diagnosed=True,
        believed=is_json,
    ),
    Shape("the memory.idx index", _at("memory.idx"), _nothing, NEVER, stride=3),
    Shape("the parsed cache", _cache("parsed-"), _nothing, NEVER, stride=3),
    Shape("the stem cache", _cache("stems-"), _nothing, NEVER, stride=3),
    Shape("the reach's table", _cache("reach-"), _nothing, NEVER, stride=3),
    Shape("session lines", lambda w: w.session_file, _nothing, bad_lines, lambda w: w.session_file),
    Shape("fill lines", lambda w: w.fill_file, _nothing, bad_lines, lambda w: w.fill_file),
    Shape("the transcript", lambda w: str(w.transcript), _nothing, NEVER),
    Shape(
        "the hook payload",
        lambda _: "",
        lambda w: w.everything,
        lambda d: d != b"" and not _is_object(d),  # an empty payload is an empty object
        lambda _: "hook payload",
    ),
]


def back_of(result: dict[str, Any]) -> set[str]:
    """The rule domains and items the hook's envelope says came back."""
    envelope = json.loads(result["out"] or '{"injected": [], "recalled": []}')
    return set(envelope["injected"]) | {r["key"] for r in envelope["recalled"]}


def check(shape: Shape, world: World, data: bytes, result: dict[str, Any]) -> None:
    """Exit 0, no traceback, nothing lost but what the case broke, and bad bytes named."""
    said = f"{shape.name} {data[:200]!r}: {result['err']}"
    assert not result["json_loaded"], "the case did not meet a fresh interpreter's scanner"
    assert result["raised"] is None, said + result["raised"]
    assert result["code"] == 0, said
    assert "Traceback" not in result["err"] and "failed:" not in result["err"], said
    assert world.everything - shape.owns(world) <= back_of(result), said
    if shape.bad(data):
        assert shape.named(world) in result["err"], said


def check_diagnosis(shape: Shape, world: World, data: bytes, result: dict[str, Any]) -> None:
    """`abcd rules --prompt`: no traceback, everything the case did not break listed, bad bytes
    named in one line and exit 1."""
    said = f"rules --prompt, {shape.name} {data[:200]!r}: {result['err']}"
    assert not result["json_loaded"], "the case did not meet a fresh interpreter's scanner"
    assert result["raised"] is None, said + result["raised"]
    assert "Traceback" not in result["err"], said
    assert result["code"] in (0, 1), said
    if not shape.believed(data):
        for kept in sorted(world.everything - shape.owns(world)):
            assert kept in result["out"], f"{kept} missing; {said}"
    if shape.bad(data):
        assert result["code"] == 1, said
        assert shape.named(world) in result["err"], said


def run_and_check(shape: Shape, world: World, batch: list[bytes], tmp: Path) -> None:
    """Each input through the hook, and through `abcd rules --prompt` when that reads the shape."""
    cases = [shape.case(world, data) for data in batch]
    if shape.diagnosed:
        cases += [shape.cli_case(world, data) for data in batch]
    results = world.run(cases, tmp)
    for data, result in zip(batch, results[: len(batch)], strict=True):
        check(shape, world, data, result)
    for data, result in zip(batch if shape.diagnosed else [], results[len(batch) :], strict=True):
        check_diagnosis(shape, world, data, result)


def prefixes(base: bytes, stride: int = 1) -> list[bytes]:
    """Every `stride`th prefix of the last 1 KiB (where a file is cut short), every 61st before."""
    start = max(0, len(base) - 1024)
    return [base[:n] for n in [*range(0, start, 61), *range(start, len(base), stride)]]


@pytest.fixture
def world(tmp_path: Path, abcd: Run, repo: Path) -> World:
    return make_world(tmp_path, repo, abcd)


def test_the_world_brings_back_every_layer_when_nothing_is_broken(
    world: World, tmp_path: Path
) -> None:
    (result,) = world.run([hook_case(world, {})], tmp_path)
    envelope = json.loads(result["out"])
    assert set(envelope["injected"]) == DOMAINS
    assert {r["key"] for r in envelope["recalled"]} == world.everything - DOMAINS
    assert "Traceback" not in result["err"]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_every_prefix_of_a_shape_costs_only_what_it_holds_and_is_named(
    shape: Shape, world: World, tmp_path: Path
) -> None:
    run_and_check(shape, world, prefixes(shape.base(world), shape.stride), tmp_path)


def corruptions(base: bytes) -> st.SearchStrategy[bytes]:
    """A byte flipped, bytes deleted, a comma or junk inserted, a merge conflict, a cut."""
    n = len(base)
    at = st.integers(0, n)

    def flip(i: int, mask: int) -> bytes:
        i = min(i, n - 1)
        return base[:i] + bytes([base[i] ^ mask]) + base[i + 1 :]

    def conflict(i: int) -> bytes:
        line = base.rfind(b"\n", 0, i) + 1
        return base[:line] + b"<<<<<<< HEAD\n" + base[line:] + b"=======\n>>>>>>> theirs\n"

    return st.one_of(
        at.map(lambda i: base[:i]),
        st.builds(flip, at, st.integers(1, 255)),
        st.builds(lambda i, k: base[:i] + base[i + k :], at, st.integers(1, 16)),
        at.map(lambda i: base[:i] + b"," + base[i:]),
        st.builds(
            lambda i, junk: base[:i] + junk + base[i:], at, st.binary(min_size=1, max_size=8)
        ),
        at.map(conflict),
    )


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_corruptions_of_a_shape_cost_only_what_it_holds_and_are_named(
    shape: Shape, world: World, tmp_path: Path, data: st.DataObject
) -> None:
    batch = data.draw(st.lists(corruptions(shape.base(world)), min_size=1, max_size=40))
    run_and_check(shape, world, batch, tmp_path)


def _status_corruptions() -> st.SearchStrategy[bytes]:
    return st.sampled_from(STATUS_CAPTURES).flatmap(lambda p: corruptions(p.read_bytes()))


def _check_row(data: bytes, result: dict[str, Any]) -> None:
    said = f"{data[:200]!r}: {result['err']}"
    assert not result["json_loaded"], "the case did not meet a fresh interpreter's scanner"
    assert result["raised"] is None, said + result["raised"]
    assert result["code"] == 0, said
    assert result["out"].endswith("\n") and result["out"].count("\n") == 1, said
    assert "used" in result["out"], said
    assert "Traceback" not in result["err"], said


def test_every_prefix_of_a_status_payload_still_prints_the_row(
    world: World, tmp_path: Path
) -> None:
    cut = [data for path in STATUS_CAPTURES for data in prefixes(path.read_bytes())]
    for data, result in zip(
        cut, world.run([statusline_case(d) for d in cut], tmp_path), strict=True
    ):
        _check_row(data, result)


@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batch=st.lists(_status_corruptions(), min_size=1, max_size=60))
def test_random_corruptions_of_a_status_payload_still_print_the_row(
    world: World, tmp_path: Path, batch: list[bytes]
) -> None:
    for data, result in zip(
        batch, world.run([statusline_case(d) for d in batch], tmp_path), strict=True
    ):
        _check_row(data, result)


def _reshaped(base: bytes, change: Callable[[dict[str, Any]], None]) -> bytes:
    """A cache file rewritten as a writer with the wrong shapes would: its CRC-32 made right."""
    assert int.from_bytes(base[:4], "little") == zlib.crc32(base[4:])
    stored = marshal.loads(base[4:])
    change(stored)
    blob = marshal.dumps(stored)
    return zlib.crc32(blob).to_bytes(4, "little") + blob


def _parsed_reshaped(
    change: Callable[[dict[str, Any]], None], bodies: bytes | None = None
) -> Callable[[bytes], bytes]:
    """The parsed file rewritten as a writer with the wrong shapes would (`change` to its first
    piece, `bodies` in place of its second): each piece's CRC-32 made right."""
    from abcd.recall import pieces
    from abcd.recall.stemcache import _reach_header, parsed_file

    def make(base: bytes) -> bytes:
        found = parsed_file(base)
        assert found is not None
        stored, kept_bodies = found
        change(stored)
        return pieces.encode(
            _reach_header(), [marshal.dumps(stored), kept_bodies if bodies is None else bodies]
        )

    return make


def _every(part: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(stored: dict[str, Any]) -> None:
        stored[part] = {key: value for key in stored.get(part, {})} or {"x": value}

    return change


def _reach_kept_as(
    field: int | None = None, value: object = None, deploy: bytes | None = None
) -> Callable[[bytes], bytes]:
    """The reach's table kept under its true digest, with `value` in place of one of its header's
    fields (1: the count, 2: the total, 3: the lengths) or `deploy` as the bytes of the shelf the
    prompt's `deploy` is on, every piece's CRC-32 made right."""
    from abcd.recall import pieces
    from abcd.recall.stemcache import SHELVES, _reach_header, shelf_of

    def make(base: bytes) -> bytes:
        found = pieces.decode(base, _reach_header(), 4, SHELVES)
        assert found is not None
        fields, blobs = list(found[0]), [bytes(b or b"") for b in found[1]]
        if field is not None:
            fields[field] = value
        if deploy is not None:
            blobs[shelf_of("deploy")] = deploy
        return pieces.encode((*_reach_header(), *fields), blobs)

    return make


def _files_kept_as(value: object) -> Callable[[dict[str, Any]], None]:
    """Each parsed file kept under its true stat, with `value` as what was parsed."""

    def change(stored: dict[str, Any]) -> None:
        assert stored["files"], "the world's files are old enough to be kept"
        stored["files"] = {rel: (kept[0], value) for rel, kept in stored["files"].items()}

    return change


def _bodies_numbered(number: int) -> Callable[[dict[str, Any]], None]:
    """Each kept page's and project note's body set apart under `number` instead of its own."""

    def renumbered(entry: tuple[Any, ...], at: int) -> tuple[Any, ...]:
        return (*entry[:at], number, *entry[at + 1 :])

    def change(stored: dict[str, Any]) -> None:
        files = stored["files"]
        assert files, "the world's files are old enough to be kept"
        for rel, (key, parsed) in files.items():
            if type(parsed) is list:  # the project's notes: the body third
                files[rel] = (key, [renumbered(fields, 2) for fields in parsed])
            else:  # a page: the body second
                files[rel] = (key, renumbered(parsed, 1))

    return change


def _zeroed(halves: int) -> Callable[[bytes], bytes]:
    """The file's first `halves` halves (none or one), then zeros to its length."""

    def make(base: bytes) -> bytes:
        keep = len(base) // 2 * halves
        return base[:keep] + bytes(len(base) - keep)

    return make


def _header(value: object) -> Callable[[bytes], bytes]:
    def make(base: bytes) -> bytes:
        length = int.from_bytes(base[8:16], "little")
        header = marshal.dumps(value)
        return base[:8] + len(header).to_bytes(8, "little") + header + base[16 + length :]

    return make


# Bytes that decode (marshal checks no shape) to something other than what was kept.
RESHAPED: list[tuple[str, Callable[[bytes], bytes]]] = [
    ("parsed-", _parsed_reshaped(_files_kept_as(42))),
    ("parsed-", _parsed_reshaped(_files_kept_as(("title", 7)))),
    ("parsed-", _parsed_reshaped(_files_kept_as([("id", "title", 0, ("w",), "", 7)]))),
    ("parsed-", _parsed_reshaped(_every("words", 7))),
    ("parsed-", _parsed_reshaped(_every("words", (1, 2)))),
    ("parsed-", _parsed_reshaped(lambda s: s.update(ids=("x", 1)))),
    # The bodies set apart: where they end lies, or their bytes are not text.
    ("parsed-", _parsed_reshaped(lambda s: s.update(texts=(0, 10**9)))),
    ("parsed-", _parsed_reshaped(lambda s: s.update(texts=(0, *s["texts"][2:], 0)))),
    ("parsed-", _parsed_reshaped(lambda s: s.update(texts="many"))),
    ("parsed-", _parsed_reshaped(lambda s: None, bodies=b"\xff" * 4096)),
    # A body's number not one this tool wrote: past the end, or below zero (this prompt's own).
    ("parsed-", _parsed_reshaped(_bodies_numbered(10**6))),
    ("parsed-", _parsed_reshaped(_bodies_numbered(-1))),
    ("stems-", lambda b: _reshaped(b, _every("entries", 7))),
    ("stems-", lambda b: _reshaped(b, _every("entries", marshal.dumps([1, 2])))),
    ("reach-", _reach_kept_as(1, "many")),
    ("reach-", _reach_kept_as(2, -1)),
    ("reach-", _reach_kept_as(3, ("long",))),
    ("reach-", _reach_kept_as(3, None)),
    ("reach-", _reach_kept_as(deploy=b"\xff")),
    ("reach-", _reach_kept_as(deploy=marshal.dumps([1, 2]))),
    ("reach-", _reach_kept_as(deploy=marshal.dumps({"deploy": 3}))),
    ("reach-", _reach_kept_as(deploy=marshal.dumps({"deploy": {0: "x"}}))),
    # A crash after a cache's rename reached the disk and before all its data did (caches are
    # not synced): zeros where the blocks were lost, the whole file or its second half.
    *[(cache, _zeroed(half)) for cache in ("parsed-", "stems-", "reach-") for half in (0, 1)],
    ("memory.idx", _header([1, 2])),
    ("memory.idx", _header({"format": "x"})),
]


@pytest.mark.parametrize(
    "which, make", RESHAPED, ids=[f"{w}{i}" for i, (w, _) in enumerate(RESHAPED)]
)
def test_a_cache_that_decodes_to_the_wrong_shape_is_read_around(
    world: World, tmp_path: Path, which: str, make: Callable[[bytes], bytes]
) -> None:
    index = str(world.home / "memory.idx")
    path = index if which == index[-len(which) :] else next(p for p in world.caches if which in p)
    files = _caches_around(world, path)
    files[path] = make(world.base[index] if path == index else world.caches[path])
    (result,) = world.run([hook_case(world, files)], tmp_path)
    check(SHAPES[0], world, b"{}", result)  # nothing owned by the caches may be lost
    assert back_of(result) == world.everything
