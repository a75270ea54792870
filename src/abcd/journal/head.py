"""`<home>/memory.head`: the witness of the journal's end while the caches trail it.

The view (`memory.json`) and the recall index (`memory.idx`) are rewritten
whole only when they trail the journal by `COMPACT_AFTER` events, and then
off the writer's path (`abcd.journal.compact`). Every append rewrites this
one small line instead:

    ABCDHEAD1 <segment> <offset> <seq> <head> <segments> <view> <index> <digest>

- `segment offset seq head`: the journal's end as the writer left it, a
  checkpoint like the view's. The journal must still hold it (the line ending
  at `offset` hashes to `head`): it witnesses the lines past the view's
  checkpoint, the last of which no later line vouches for;
- `segments`: the stamp of every segment after the append
  (`Segments.stamp`), in place of the view's, which was taken when the view
  was written and no longer matches after an append;
- `view`: the stamp (inode, size, change time: `abcd.digest.file_stamp`) of
  the `memory.json` this line goes with. The line is believed only beside
  that very file; a view replaced or edited since has another change time,
  and the view's own stamps serve (a reader then walks the chain once);
- `index`: the stamp of the `memory.idx` the hook may read beside that view;
- `digest`: the SHA-256 of the line before it, so a line torn by a crash is
  not believed.

The fields have fixed widths, so the line is rewritten in place in one
`pwrite` without `fsync`: it is a cache like the view. Lost or torn, it is
simply not believed: readers fall back to the view's stamps (and walk the
chain once, since the segments grew), and the next writer or compaction
writes it again. This module is on the hook's path: standard library only.
"""

from __future__ import annotations

import errno

from abcd import fastjson
from abcd import leanos as os
from abcd.constants import FILE_MODE
from abcd.digest import DIGEST_LEN, STAMP_LEN, sha256_hex
from abcd.leanos import S_ISREG
from abcd.trust.guarded import open_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from abcd.trust.guarded import Home

HEAD_FILE = "memory.head"
_MAGIC = "ABCDHEAD1"
# A trailing view or index is rewritten (compacted) once it trails the journal by this many
# events; until then readers fold the lines past its checkpoint, as they do for the index.
COMPACT_AFTER = 64
_WIDTHS = (6, 12, 12)  # segment, offset, seq: zero-padded so the line keeps its length
_LINE_LEN = len(_MAGIC) + sum(w + 1 for w in _WIDTHS) + 4 * (DIGEST_LEN + 1) + 1 + DIGEST_LEN + 1
NO_STAMP = "0" * STAMP_LEN


class Head:
    """The journal's end and the stamps a writer left beside the view it goes with."""

    __slots__ = ("checkpoint", "index", "segments", "view")

    def __init__(
        self, checkpoint: tuple[int, int, int, str], segments: str, view: str, index: str
    ) -> None:
        self.checkpoint = checkpoint
        self.segments = segments
        self.view = view
        self.index = index

    def encode(self) -> bytes:
        segment, offset, seq, head = self.checkpoint
        body = (
            f"{_MAGIC} {segment:0{_WIDTHS[0]}d} {offset:0{_WIDTHS[1]}d} {seq:0{_WIDTHS[2]}d} "
            f"{head} {self.segments} {self.view} {self.index}"
        )
        line = f"{body} {sha256_hex(body.encode('ascii'))}\n".encode("ascii")
        assert len(line) == _LINE_LEN
        return line


def decode_head(data: bytes) -> Head | None:
    """The head line, or `None` when it is torn, damaged or of another version."""
    if len(data) != _LINE_LEN or not data.endswith(b"\n"):
        return None
    try:
        text = data[:-1].decode("ascii")
    except UnicodeDecodeError:
        return None
    body, _, digest = text.rpartition(" ")
    if sha256_hex(body.encode("ascii")) != digest:
        return None
    fields = body.split(" ")
    if len(fields) != 8 or fields[0] != _MAGIC:
        return None
    try:
        checkpoint = (int(fields[1]), int(fields[2]), int(fields[3]), fields[4])
    except ValueError:
        return None
    return Head(checkpoint, fields[5], fields[6], fields[7])


def read_head(home: Home) -> Head | None:
    """The head line beside the view, or `None` (absent, torn, or refused by a trust check)."""
    from abcd.errors import AbcdError

    try:
        data = home.read(HEAD_FILE, _LINE_LEN + 1)
    except (AbcdError, OSError):
        return None
    return None if data is None else decode_head(data)


def head_beside(home: Home, view_stamp: str, view_seq: int) -> Head | None:
    """The head line when it goes with the view whose stamp is `view_stamp` and is at or past its
    checkpoint (`view_seq`); else `None`, and the view's own stamps serve."""
    return beside(read_head(home), view_stamp, view_seq)


def beside(head: Head | None, view_stamp: str, view_seq: int) -> Head | None:
    """`head` when it goes with the view whose stamp is `view_stamp` (see `head_beside`)."""
    if head is None or head.view != view_stamp or head.checkpoint[2] < view_seq:
        return None
    return head


def write_head(home: Home, head: Head) -> None:
    """Rewrite the head line in place (one `pwrite`, no `fsync`: a cache; see the module)."""
    # O_NONBLOCK: a FIFO planted in its place fails to open, or is refused below, never waited on.
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = open_at(HEAD_FILE, flags, FILE_MODE, home.fd)
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        data = head.encode()
        os.pwrite(fd, data, 0)
        if os.fstat(fd).st_size != len(data):
            os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def view_checkpoint(view_head: bytes) -> tuple[int, int, int, str] | None:
    """The checkpoint at the head of a view's bytes (it holds no nested object), or `None`."""
    start = view_head.find(b'"journal":{')
    end = view_head.find(b"}", start)
    if start < 0 or end < 0:
        return None
    try:
        cp = fastjson.loads(view_head[start + len(b'"journal":') : end + 1])
        return (int(cp["segment"]), int(cp["offset"]), int(cp["seq"]), str(cp["head"]))
    except (ValueError, KeyError, TypeError):
        return None
