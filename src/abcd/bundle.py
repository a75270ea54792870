"""The lean commands' modules served from one file of their code (issue 13).

A prompt imports some 42 abcd modules. Beyond running each one's code, the
import system spends ~60 us on each (finding it, `stat`ing its source and
its `.pyc`, opening, reading and checking the `.pyc`): ~2.4 ms of a prompt
(`docs/performance.md`). So the lean commands (the hooks, the status line)
put a `Bundle` first on `sys.meta_path` before they import anything else:
it serves each abcd module named in one file beside the package, one
for each command and optimisation level
(`abcd/__pycache__/lean-<command>.<cache tag>.bundle`,
so each holds only what its command imports), read at once: a `marshal`led
table of module name -> (is a package, source path, its size, its
modification time in nanoseconds, where its code lies), then the modules'
code, each marshalled and decoded where it lies in what was read (copying
half a megabyte of code out of it cost a prompt ~0.2 ms). A module is served
only while its source has the size and modification time recorded with its
code (one `stat`, as the import system checks a `.pyc` against its source);
any other module, and one whose source changed, is left to the import
system (one whose code in the file does not decode is compiled from its
source), as is everything when the file is missing, of another format or
interpreter, or not this account's (or root's) or writable by others.

The file also names the modules every run of its command loads, in the
order they last finished loading: those loaded by the time the command
said it had imported what it always needs (`settle`; the prompt hook says
so once its recall modules are in). `install` runs them in that order
before the command imports anything (`Bundle.preload`): each module's own
imports then find what they name already loaded, and none pays the import
system's ~19 us of finding, locking and setting up a module (~0.5 ms of a
prompt, docs/performance.md). A module imported only after `settle` (a
rare path: the index rebuilt, the journal's chain walked) is served when
it is imported, never run ahead, so a run that once took that path does
not make every later one pay for it. A module whose package is not loaded
yet is left to its package's own import, one that changed to the import
system, and the first that raises stops the preloading (its importer
raises the same).

After the command ran, when an abcd module it loaded was not served (the
first run, an upgrade, an edit), the file is written again (atomically)
with every module still valid in it and those this process loaded, each
one's code compiled from its source as the import system compiles it, but
with `from __future__ import annotations` given as a compiler flag instead of
run as a statement: the `__future__` module is then never imported by a lean
command (~0.15 ms of a fresh process). Nothing is written when Python writes
no bytecode (`PYTHONDONTWRITEBYTECODE`, `-B`) or the folder cannot be
written: then every module is imported as before. The file holds what `.pyc`
files hold, where they are kept, and is trusted as they are.

This module and `abcd.entry`, loaded before any bundle, hold no future
statement for the same reason: their annotations that name what only a type
checker imports are written as strings.
"""

import marshal
import sys

from abcd import leanos as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import CodeType, ModuleType
    from typing import Any

# 2: the table first and the modules' code after it, each sliced from what was read, not copied;
# 3: and the modules every run loads, in the order they finished loading (run ahead by `preload`);
# 4: each module's code compiled with `from __future__ import annotations` as a flag (`_compiled`)
FORMAT = 4
# Loaded before the bundle is installed, so never served from it.
_FIRST = frozenset({"abcd", "abcd.entry", "abcd.bundle", "abcd.leanos"})
# The largest bundle read (the lean commands' modules are ~0.5 MB of code).
MAX_BYTES = 16 * 1024 * 1024


def _folder() -> str:
    import abcd

    return os.path.join(os.path.dirname(os.path.abspath(abcd.__file__)), "__pycache__")


# This interpreter and optimisation level, as a `.pyc`'s name says them (`cpython-311.opt-1`): a
# bundle is never served under another level (`-O` drops asserts from the code it holds).
_TAG = sys.implementation.cache_tag + (f".opt-{sys.flags.optimize}" if sys.flags.optimize else "")
# The ending of a module's `.pyc` under this interpreter and optimisation level.
_PYC = f".{_TAG}.pyc"


def bundle_path(command: str) -> str:
    """The bundle of a lean command (`prompt-router`, `statusline`, ...)."""
    return os.path.join(_folder(), f"lean-{command}.{_TAG}.bundle")


_CODE: "Any" = type(bundle_path.__code__)  # `types.CodeType`, without importing `types`
_MODULE: "Any" = type(sys)  # `types.ModuleType`

Entry = tuple[bool, str, int, int, "bytes | memoryview"]
"""A module in a bundle: whether it is a package, its source's path, size and modification time
in nanoseconds, and its code marshalled (a slice of the file as read)."""


class Bundle:
    """A finder on `sys.meta_path` serving the abcd modules its file holds, while each is current."""

    def __init__(self, path: str, entries: "dict[str, Entry]", eager: tuple[str, ...] = ()) -> None:
        self.path = path
        self.entries = entries
        self.eager = eager  # the modules every run loads, in the order they finished loading
        self.served: set[str] = set()
        self.stale = False  # a module it holds was not served (its source changed)
        self.finished: list[str] = []  # the served modules, in the order their code finished
        self.settled: list[str] | None = None  # the abcd modules loaded when the command settled
        self._spec_type: Any = type(sys.modules["abcd"].__spec__)  # importlib's, already loaded

    def find_spec(
        self, name: str, path: object = None, target: object = None
    ) -> "ModuleSpec | None":
        entry = self.entries.get(name)
        if entry is None:
            return None
        is_package, origin, size, mtime_ns, _ = entry
        try:
            st = os.stat(origin)
        except (OSError, ValueError):  # gone, or not a path at all
            st = None
        if st is None or st.st_size != size or st.st_mtime_ns != mtime_ns:
            self.stale = True
            return None
        spec: ModuleSpec = self._spec_type(name, self, origin=origin, is_package=is_package)
        spec.has_location = True  # `__file__` is the source's, as the import system sets it
        folder, file = os.path.split(origin)
        # `__cached__` as `importlib.util.cache_from_source` names it, without its ~10 us of work.
        spec.cached = os.path.join(folder, "__pycache__", file[:-3] + _PYC)
        if is_package:
            spec.submodule_search_locations = [folder]
        return spec

    def create_module(self, spec: "ModuleSpec") -> None:
        return None  # the default module

    def exec_module(self, module: "ModuleType") -> None:
        origin, blob = self.entries[module.__name__][1::3]
        try:
            code: Any = marshal.loads(blob)
        except (ValueError, EOFError, TypeError):
            code = None
        if type(code) is _CODE:
            self.served.add(module.__name__)
        else:  # damaged in the file: compiled from its source, and the file written again
            self.stale = True
            with open(origin, "rb") as source:
                code = compile(source.read(), origin, "exec", dont_inherit=True)
        exec(code, module.__dict__)
        self.finished.append(module.__name__)

    def preload(self) -> None:
        """Run the modules every run loads, in the order they finished loading, each as the import
        system would load it, so that their imports of one another find each one loaded."""
        modules = sys.modules
        for name in self.eager:
            parent, _, child = name.rpartition(".")
            package = modules.get(parent)
            if name in modules or package is None or name not in self.entries:
                continue  # loaded already, or imported by its package's own code
            spec = self.find_spec(name)
            if spec is None:
                continue  # its source changed: the import system imports it
            is_package = spec.submodule_search_locations is not None
            module = _MODULE(name)
            # What `importlib._bootstrap._init_module_attrs` sets on a module it loads.
            module.__spec__ = spec
            module.__loader__ = self
            module.__package__ = name if is_package else parent
            if is_package:
                module.__path__ = spec.submodule_search_locations
            module.__file__ = spec.origin
            module.__cached__ = spec.cached
            modules[name] = module
            try:
                self.exec_module(module)
            except BaseException:
                modules.pop(name, None)  # as the import system leaves a module that raised
                return
            setattr(package, child, module)

    def settle(self) -> None:
        """Note the modules loaded now as the ones every run of the command loads."""
        self.settled = [n for n in sys.modules if n.startswith("abcd.") and n not in _FIRST]

    def save(self) -> None:
        """Write the file again when a loaded abcd module was not served (never raises)."""
        if sys.dont_write_bytecode:
            return
        loaded = [
            (name, module)
            for name, module in list(sys.modules.items())
            if name.startswith("abcd.")
            and name not in _FIRST
            and str(getattr(module, "__file__", "")).endswith(".py")
        ]
        # Those loaded when the command settled: in the order they finished when served, else in
        # the order they were first imported (the next run serves them, and says their order).
        settled = set(self.settled or ())
        eager = [n for n in self.finished if n in settled]
        eager += [n for n in self.settled or () if n not in self.served]
        if (
            not self.stale
            and tuple(eager) == self.eager
            and all(name in self.served for name, _ in loaded)
        ):
            return
        folder = os.path.dirname(self.path)
        if not os.access(folder if os.path.isdir(folder) else os.path.dirname(folder), os.W_OK):
            return  # an installation this account cannot write to: nothing is gathered either
        try:
            entries = {name: e for name, e in self.entries.items() if _current(e)}
            for name, module in loaded:
                if name not in self.served or name not in entries:
                    entry = _entry(module)
                    if entry is not None:
                        entries[name] = entry
            _write(self.path, entries, tuple(n for n in eager if n in entries))
        except (OSError, ValueError, TypeError, SyntaxError):
            pass  # a bundle not written costs the next command the import system's work


def install(command: str) -> "Bundle":
    """Put the command's bundle first on `sys.meta_path` (an empty one when there is none)."""
    path = bundle_path(command)
    contents: tuple[dict[str, Entry], tuple[str, ...]] = ({}, ())
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        fd = -1
    if fd >= 0:
        try:
            st = os.fstat(fd)
            trusted = st.st_uid in (os.geteuid(), 0) and not st.st_mode & 0o022
            if trusted and st.st_size <= MAX_BYTES:
                contents = _contents(os.read(fd, MAX_BYTES + 1))
        except OSError:
            contents = ({}, ())
        finally:
            os.close(fd)
    bundle = Bundle(path, *contents)
    sys.meta_path.insert(0, bundle)
    bundle.preload()
    return bundle


def settle() -> None:
    """Say that the command has imported what every run of it needs (`Bundle.settle`); nothing
    when no bundle serves this process."""
    for finder in sys.meta_path:
        if type(finder) is Bundle:
            finder.settle()


def _entries(data: bytes) -> "dict[str, Entry]":
    """The modules a bundle's bytes hold (`_contents`)."""
    return _contents(data)[0]


def _contents(data: bytes) -> "tuple[dict[str, Entry], tuple[str, ...]]":
    """The modules a bundle's bytes hold and those every run loads, or nothing when they are not
    one this abcd wrote.

    The file is the length of its table, the table (`marshal`led: the format, the interpreter's
    tag, name -> (is a package, source path, size, modification time, where its code starts
    and ends after the table), and the names of the modules every run loads), then the modules'
    code; each module's is a `memoryview` of `data`, so nothing is copied but what is
    unmarshalled.
    """
    view = memoryview(data)
    base = 4 + int.from_bytes(view[:4], "little")
    try:
        stored = marshal.loads(view[4:base])
    except (ValueError, EOFError, TypeError):
        return {}, ()
    if (
        type(stored) is not tuple
        or len(stored) != 4
        or stored[:2] != (FORMAT, _TAG)
        or type(stored[2]) is not dict
        or type(stored[3]) is not tuple
    ):
        return {}, ()
    entries: dict[str, Entry] = {}
    for name, entry in stored[2].items():
        if (
            type(name) is str
            and type(entry) is tuple
            and len(entry) == 6
            and [type(v) for v in entry] == [bool, str, int, int, int, int]
            and 0 <= entry[4] <= entry[5] <= len(data) - base
        ):
            entries[name] = (*entry[:4], view[base + entry[4] : base + entry[5]])
    return entries, tuple(name for name in stored[3] if type(name) is str and name in entries)


def encode(entries: "dict[str, Entry]", eager: tuple[str, ...] = ()) -> bytes:
    """A bundle's bytes: the length of its table, the table, the modules' code (`_contents`)."""
    table: dict[str, tuple[bool, str, int, int, int, int]] = {}
    at = 0
    for name, (is_package, origin, size, mtime_ns, code) in entries.items():
        table[name] = (is_package, origin, size, mtime_ns, at, at + len(code))
        at += len(code)
    header = marshal.dumps((FORMAT, _TAG, table, eager))
    return b"".join(
        [len(header).to_bytes(4, "little"), header, *(entry[4] for entry in entries.values())]
    )


def _current(entry: "Entry") -> bool:
    try:
        st = os.stat(entry[1])
    except (OSError, ValueError):
        return False
    return st.st_size == entry[2] and st.st_mtime_ns == entry[3]


def _entry(module: "ModuleType") -> "Entry | None":
    """A loaded module's entry: its code compiled from its source as read now (`_compiled`),
    `None` for a module without a source file."""
    origin = getattr(module, "__file__", None)
    if not isinstance(origin, str) or not origin.endswith(".py"):
        return None
    with open(origin, "rb") as source:
        st = os.fstat(source.fileno())
        text = source.read()
    is_package = hasattr(module, "__path__")
    return is_package, origin, st.st_size, st.st_mtime_ns, marshal.dumps(_compiled(text, origin))


def _compiled(text: bytes, origin: str) -> "CodeType":
    """A module's code as the import system compiles it, but for `from __future__ import
    annotations`: the statement is left out and its effect given as a compiler flag, so running
    the code never imports the `__future__` module (a fresh process finds, reads and runs it for
    ~0.15 ms, and nothing else a lean command loads needs it). Any other future statement stays."""
    import __future__

    import ast

    tree = ast.parse(text, origin)
    flags = 0
    for statement in tree.body:
        if (
            isinstance(statement, ast.ImportFrom)
            and statement.module == "__future__"
            and [(a.name, a.asname) for a in statement.names] == [("annotations", None)]
        ):
            tree.body.remove(statement)
            flags = __future__.annotations.compiler_flag
            break
    code: CodeType = compile(tree, origin, "exec", flags=flags, dont_inherit=True)
    return code


def _write(path: str, entries: "dict[str, Entry]", eager: tuple[str, ...]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(encode(entries, eager))
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
