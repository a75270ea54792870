"""Which Bash commands write one abcd note: a strict reader of the few shapes `/abcd:memory` teaches.

The PreToolUse hook (`abcd.host.pretool`) lets the agent's command run
without the person's yes only when `read_note_command` recognises it, and
it recognises exactly these (OPTION is one of `abcd memory add`'s own):

    abcd memory add OPTION... <<'EOF'          the body in a heredoc whose
    the body, any text, taken literally        delimiter is quoted ('EOF' or
    EOF                                        "EOF"), so nothing in it expands

    printf 'LITERAL'... | abcd memory add OPTION...
    echo 'LITERAL'... | abcd memory add OPTION...

(`printf` with arguments after its format only when the format converts
them as text: `%s`, `%b`, `%%`; zsh reads a numeric conversion's argument as
arithmetic, which can run a command.)

The text is read the way bash (and zsh) read it: blanks separate words;
single-quoted text is literal; double-quoted text is taken only when it holds
no `$`, backquote, backslash or `!`, so nothing in it expands; a backslash
before a newline joins the lines; an unquoted word uses only ASCII letters,
digits and `_ - . , : / @ + =` (never `=` first), so nothing in it globs or
expands a tilde, a brace or a parameter. The command names are the bare
words `abcd`, `printf` and `echo`: the `abcd` the person's own shell finds,
as when they type it, and the two shell builtins that only print.

It is a whitelist. Everything not named above means "not understood"
(`None`): a `;`, `&`, `&&`, `||`, a second `|`, any `>` or `<` but the one
heredoc, `$`, a backquote, `(`, `{`, `#`, a glob, a tilde, an environment
assignment, a path to some other `abcd`, `printf -v`, a second line that is
not the heredoc's body, a body that does not end at its delimiter, another
`abcd` command, an option `abcd memory add` does not have, a command longer
than `COMMAND_MAX_CHARS`. Nothing here runs or expands anything.

Non-ASCII text is taken only inside quotes or the heredoc's body, and its
UTF-8 bytes are all >= 0x80, so no multi-byte locale can read a quote, a
newline or a delimiter differently from here.
"""

from __future__ import annotations

from abcd.value import Value

# The longest command read: a note is a title of 120 characters, up to 12 recall words and a
# 2 KiB body, so a note-writing command is a few KiB even with every character escaped.
COMMAND_MAX_CHARS = 16 * 1024
# `abcd memory add`'s options (tests/test_plugin.py holds this to the command's real ones).
ADD_VALUE_OPTIONS = frozenset({"--title", "--recall", "--by", "--session"})
PERSON = "person"  # `--by person`: the note is stamped as the person's own
ADD_FLAGS = frozenset({"--everywhere", "--moved-from-host"})
# The programs that may feed the body through the one pipe: shell builtins that only print.
FEEDERS = frozenset({"printf", "echo"})

_BLANKS = " \t"
_UNQUOTED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:/@+=")
# Inside double quotes bash still expands `$...` and backquotes, unescapes `\`, and an
# interactive shell expands history (`!`); text holding none of them is literal.
_EXPANDS_IN_DOUBLE_QUOTES = frozenset("$`\\!")
_DELIMITER_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_DELIMITER_REST = _DELIMITER_FIRST | frozenset("0123456789")
_CONTINUATION = "\\\n"


class NotUnderstood(Exception):
    """The command falls outside the shapes this module reads (internal: callers get `None`)."""


class Word(Value):
    """One shell word after quote removal, and whether any of it was quoted."""

    __slots__ = ("quoted", "text")
    __match_args__ = ("text", "quoted")
    text: str
    quoted: bool

    def __init__(self, text: str, quoted: bool) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "quoted", quoted)


class Heredoc(Value):
    """A `<<'DELIM'` redirection: the body comes from the lines after the command's own."""

    __slots__ = ("delimiter",)
    __match_args__ = ("delimiter",)
    delimiter: str

    def __init__(self, delimiter: str) -> None:
        object.__setattr__(self, "delimiter", delimiter)


PIPE = "|"
Token = Word | Heredoc | str


class NoteCommand(Value):
    """A recognised note-writing command: the words after `abcd`, and where the body comes from.

    `feeder` is the `printf`/`echo` stage's words (name first), `body` the
    heredoc's text (its last newline included, as the shell passes it); one
    of them is set.
    """

    __slots__ = ("args", "body", "feeder")
    __match_args__ = ("args", "feeder", "body")
    args: tuple[str, ...]
    feeder: tuple[str, ...] | None
    body: str | None

    def __init__(
        self, args: tuple[str, ...], feeder: tuple[str, ...] | None, body: str | None
    ) -> None:
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "feeder", feeder)
        object.__setattr__(self, "body", body)


def read_note_command(command: str) -> NoteCommand | None:
    """The note-writing command `command` is, or `None` for anything else (see the module)."""
    try:
        return _read(command)
    except NotUnderstood:
        return None


def _read(command: str) -> NoteCommand:
    if len(command) > COMMAND_MAX_CHARS or "\0" in command:
        raise NotUnderstood
    tokens, after = _first_line(command)
    last = tokens[-1] if tokens else None
    if isinstance(last, Heredoc):
        tokens.pop()
        body: str | None = _heredoc_body(command, after, last.delimiter)
    elif command[after:]:
        raise NotUnderstood  # a second line is a second command
    else:
        body = None
    feeder: tuple[str, ...] | None = None
    if PIPE in tokens:
        cut = tokens.index(PIPE)
        feeder = _feeder(tokens[:cut])
        tokens = tokens[cut + 1 :]
    if (feeder is None) == (body is None):
        raise NotUnderstood  # the body comes from exactly one place
    return NoteCommand(_add_args(tokens), feeder, body)


def _words(tokens: list[Token]) -> list[Word]:
    words = [t for t in tokens if isinstance(t, Word)]
    if len(words) != len(tokens):
        raise NotUnderstood  # a second pipe, or a heredoc that is not the last word
    return words


def _is_name(word: Word, names: frozenset[str]) -> bool:
    """An unquoted command name (a quoted one would skip the person's aliases)."""
    return not word.quoted and word.text in names


def _feeder(tokens: list[Token]) -> tuple[str, ...]:
    words = _words(tokens)
    if len(words) < 2 or not _is_name(words[0], FEEDERS):
        raise NotUnderstood
    if words[0].text == "printf":
        if words[1].text.startswith("-"):
            raise NotUnderstood  # `printf -v NAME` assigns a variable
        if len(words) > 2 and not _text_only_format(words[1].text):
            # zsh's printf reads the argument of a numeric conversion (`%d`, `%x`, `%c`, a `*`
            # width) as arithmetic, and a subscript in it (`path[$(...)]`) runs a command: with
            # arguments, the format may convert them only as text.
            raise NotUnderstood
    return tuple(w.text for w in words)


def _text_only_format(text: str) -> bool:
    """Whether every conversion in the printf format `text` is `%s`, `%b` or `%%`."""
    at = text.find("%")
    while at >= 0:
        if text[at + 1 : at + 2] not in ("s", "b", "%"):
            return False
        at = text.find("%", at + 2)
    return True


def _add_args(tokens: list[Token]) -> tuple[str, ...]:
    words = _words(tokens)
    if len(words) < 3 or not _is_name(words[0], frozenset({"abcd"})):
        raise NotUnderstood
    args = [w.text for w in words[1:]]
    if args[:2] != ["memory", "add"]:
        raise NotUnderstood
    at = 2
    while at < len(args):
        arg = args[at]
        name, equals, value = arg.partition("=")
        if arg in ADD_FLAGS or (equals and name in ADD_VALUE_OPTIONS):
            at += 1
        elif arg in ADD_VALUE_OPTIONS and at + 1 < len(args):
            name, value = arg, args[at + 1]
            at += 2
        else:
            raise NotUnderstood
        if name == "--by" and value == PERSON:
            raise NotUnderstood  # a note in the person's name is theirs to allow
    return tuple(args)


# --- the lexer -------------------------------------------------------------------


def _first_line(text: str) -> tuple[list[Token], int]:
    """The tokens up to the first newline (backslash-newlines joined) and where the next line starts."""
    tokens: list[Token] = []
    at, end = 0, len(text)
    while at < end:
        char = text[at]
        if char in _BLANKS:
            at += 1
        elif text.startswith(_CONTINUATION, at):
            at += 2
        elif char == "\n":
            return tokens, at + 1
        elif char == "|":
            if text[at + 1 : at + 2] in ("|", "&"):
                raise NotUnderstood
            tokens.append(PIPE)
            at += 1
        elif text.startswith("<<", at):
            delimiter, at = _delimiter(text, at + 2)
            tokens.append(Heredoc(delimiter))
        else:
            word, at = _word(text, at)
            tokens.append(word)
    return tokens, end


def _word(text: str, at: int) -> tuple[Word, int]:
    parts: list[str] = []
    quoted = False
    if text[at] == "=":
        raise NotUnderstood  # zsh reads `=name` as the path of the command `name`
    end = len(text)
    while at < end:
        char = text[at]
        if char in _UNQUOTED:
            parts.append(char)
            at += 1
        elif char == "'":
            close = text.find("'", at + 1)
            if close < 0:
                raise NotUnderstood
            parts.append(text[at + 1 : close])
            quoted, at = True, close + 1
        elif char == '"':
            close = text.find('"', at + 1)
            inner = text[at + 1 : close]
            if close < 0 or not _EXPANDS_IN_DOUBLE_QUOTES.isdisjoint(inner):
                raise NotUnderstood
            parts.append(inner)
            quoted, at = True, close + 1
        elif text.startswith(_CONTINUATION, at):
            at += 2  # bash drops a backslash-newline even inside a word
        elif char in _BLANKS or char in "\n|<":
            break
        else:
            raise NotUnderstood
    if not parts and not quoted:
        raise NotUnderstood  # a lone `<`: a redirection of input
    return Word("".join(parts), quoted), at


def _delimiter(text: str, at: int) -> tuple[str, int]:
    """The delimiter of `<<` at `at`: one whole quoted name, `'EOF'` or `"EOF"`, after any blanks."""
    while text[at : at + 1] in (" ", "\t"):
        at += 1
    quote = text[at : at + 1]
    if quote not in ("'", '"'):
        raise NotUnderstood  # `<<EOF` expands its body, `<<-` and `<<<` are other redirections
    close = text.find(quote, at + 1)
    name = text[at + 1 : close] if close > 0 else ""
    if not name or name[0] not in _DELIMITER_FIRST or not _DELIMITER_REST.issuperset(name):
        raise NotUnderstood
    after = close + 1
    if after < len(text) and text[after] not in " \t\n":
        raise NotUnderstood  # `'EOF'x` would make the delimiter `EOFx`
    return name, after


def _heredoc_body(text: str, start: int, delimiter: str) -> str:
    """The body from `start` to the line that is exactly `delimiter`, which must end the command."""
    at = start
    while True:
        newline = text.find("\n", at)
        line = text[at:] if newline < 0 else text[at:newline]
        if line == delimiter:
            if newline >= 0 and text[newline + 1 :]:
                raise NotUnderstood  # a command after the heredoc
            return text[start:at]
        if newline < 0:
            raise NotUnderstood  # the body runs to the end without its delimiter
        at = newline + 1
