"""The reader of note-writing commands: the taught shapes pass, anything else is not understood.

Each accepted shape is also run through bash and zsh (the person's shell may be either) with a
stand-in `abcd` on PATH, so "what the reader says the command does" is checked against what the
shell really does: the same words reach `abcd`, the same body reaches its stdin.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abcd.cli.plugin_cmd import plugin_dir
from abcd.host.note_command import (
    ADD_FLAGS,
    ADD_VALUE_OPTIONS,
    COMMAND_MAX_CHARS,
    NoteCommand,
    read_note_command,
)
from tests.e2e.lesson import ADD_NOTE, BODY, RECALL, TITLE, WRITER

DATA = Path(__file__).parent / "data"
# Each shell a person's commands may run in, with the flags that keep their own files out.
SHELLS = {"bash": ["--norc", "--noprofile", "-c"], "zsh": ["-f", "-c"]}
# A shell that is not installed is skipped by name (`.ci/run` installs zsh when it can).
shells = pytest.mark.parametrize(
    "shell",
    [
        pytest.param(name, marks=pytest.mark.skipif(not shutil.which(name), reason=f"no {name}"))
        for name in SHELLS
    ],
)

CAPTURED = json.loads((DATA / "hook_PreToolUse_bash.json").read_text())["tool_input"]["command"]
PRINTED = f"printf 'Run the linter before pushing.' | abcd memory add --title 'Lint' --recall lint --by {WRITER}"


def page_examples() -> list[str]:
    page = (plugin_dir() / "commands" / "memory.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", page, flags=re.DOTALL)
    return [
        block.replace("<your model id>", "claude-opus-4-8")
        for block in blocks
        if "abcd memory add" in block
    ]


def host_doc_examples() -> list[str]:
    """The commands docs/host.md shows as running unasked (a heredoc block is one command)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "host.md").read_text()
    section = page.split("## Notes without a permission prompt")[1].split("\n## ")[0]
    commands: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL):
        commands += [block] if "<<" in block else block.splitlines()
    return commands


ACCEPTED = [
    CAPTURED,
    PRINTED,
    ADD_NOTE,
    *page_examples(),
    *host_doc_examples(),
    f'abcd memory add --title "{TITLE}" --recall {RECALL} --by {WRITER} <<"EOF"\n{BODY}\nEOF',
    f"abcd memory add --title='{TITLE}' --recall={RECALL} --by={WRITER} << 'EOF'\n{BODY}\nEOF\n",
    f"echo '{BODY}' | abcd memory add --title '{TITLE}' --recall {RECALL} --by {WRITER}",
    f"printf '%s\\n' '{BODY}' | abcd memory add --title '{TITLE}' --recall {RECALL} --by {WRITER}",
    f"printf '{BODY}' | abcd memory add --everywhere --title '{TITLE}' --recall {RECALL} --by {WRITER}",
    f"abcd memory add --moved-from-host --title 'x' --recall y --by {WRITER} <<'EOF'\nEOF",
    f"abcd memory add --title 'x' --recall y --by {WRITER} \\\n  --recall z <<'EOF'\n$HOME `id` $(id)\nEOF",
    f"printf 'x' | abcd memory add --title 'x' --recall y --by {WRITER} --session "
    "5d0c3f6e-2b1a-4c9d-8e7f-0a1b2c3d4e5f",
]


@pytest.mark.parametrize("command", ACCEPTED)
def test_the_taught_shapes_are_note_writing_commands(command: str) -> None:
    assert read_note_command(command) is not None


def test_the_page_teaches_two_shapes_and_both_are_read() -> None:
    assert len(page_examples()) == 2


def test_the_host_doc_shows_the_three_ways_a_note_runs_unasked() -> None:
    assert len(host_doc_examples()) == 3


def test_the_captured_command_reads_as_its_words_and_its_printf() -> None:
    assert read_note_command(CAPTURED) == NoteCommand(
        args=(
            "memory",
            "add",
            "--title",
            "Lint before push",
            "--recall",
            "lint",
            "--by",
            "Claude:claude-opus-4-8",
        ),
        feeder=("printf", "Run the linter before pushing."),
        body=None,
    )


def test_a_quoted_heredoc_body_is_read_literally_up_to_its_delimiter() -> None:
    read = read_note_command("abcd memory add --title t <<'END'\n$x `y`\n  END\nEND")

    assert read is not None
    assert read.body == "$x `y`\n  END\n"


# --- what is never a note-writing command (each built at run time) --------------


def attacks() -> list[str]:
    """Commands that must get no decision: each one does more than write one note, or may."""
    add = f"abcd memory add --title 'T' --recall r --by {WRITER}"
    fed = f"printf 'B' | {add}"
    heredoc = f"{add} <<'EOF'\nB\nEOF"
    home = "~"
    secret_file = f"{home}/.ssh/id_" + "rsa"
    out = [
        # a second command, however joined
        f"{fed}; rm -rf x",
        f"{fed} && touch y",
        f"{fed} || touch y",
        f"{fed} & touch y",
        f"{fed} &",
        f"{fed}\ntouch y",
        f"{fed}\n\ntouch y",
        f"{heredoc}\ntouch y",
        f"touch y; {fed}",
        f"touch y\n{fed}",
        f"{fed} | sh",
        f"{fed} |& sh",
        f"cat /etc/passwd | {add}",
        f"printf 'B' | tee f | {add}",
        f"{add} <<'EOF' | sh\nB\nEOF",
        f"{add} <<'EOF'; touch y\nB\nEOF",
        f"{add} <<'EOF' && touch y\nB\nEOF",
        # substitutions and expansions, quoted or not
        f"{add.replace(chr(39) + 'T' + chr(39), '$(touch y)')} <<'EOF'\nB\nEOF",
        f"printf 'B' | abcd memory add --title \"$(cat {secret_file})\" --recall r --by {WRITER}",
        f"printf 'B' | abcd memory add --title \"`id`\" --recall r --by {WRITER}",
        f"printf 'B' | abcd memory add --title `id` --recall r --by {WRITER}",
        f'printf "$HOME" | {add}',
        f'printf "${{HOME}}" | {add}',
        f"printf $HOME | {add}",
        f"printf $'\\x41' | {add}",
        f'printf $"B" | {add}',
        f'printf "B\\n" | {add}',
        f'printf "!!" | {add}',
        f"printf {home}/x | {add}",
        f"printf {secret_file} | {add}",
        f"printf B* | {add}",
        f"printf B? | {add}",
        f"printf [B] | {add}",
        f"printf {{a,b}} | {add}",
        f"printf 'B' | abcd memory add --title T --recall r --by {WRITER}[1m]",
        f"printf =ls | {add}",
        # zsh's printf reads a numeric conversion's argument as arithmetic, and a subscript in
        # it runs its command substitution; bash says "invalid number" and runs nothing
        f"printf '%d' 'path[$(touch y)]' | {add}",
        f"printf '%i' 'argv[`touch y`]' | {add}",
        f"printf '%x' 'PWD[$(touch y)]' | {add}",
        f"printf '%c' 'path[$(touch y)]' | {add}",
        f"printf '%*s' 'path[$(touch y)]' B | {add}",
        f"printf '%.*s' 'path[$(touch y)]' B | {add}",
        f"printf '%5d' 'path[$(touch y)]' | {add}",
        f"printf 'B%' 'path[$(touch y)]' | {add}",
        # redirections
        f"{fed} > out",
        f"{fed} >> out",
        f"{fed} 2>err",
        f"{fed} >| out",
        f"{add} < /etc/passwd",
        f"{add} <(cat f)",
        f"printf >(cat) | {add}",
        f"{add} <<EOF\nB\nEOF",
        f"{add} <<-'EOF'\n\tB\n\tEOF",
        f"{add} <<< 'B'",
        f"{add} <<'EOF'\nB\n",
        f"{add} <<'EOF'\nB\nEOF \n",
        f"{add} <<'EOF'\nB\nEOF\nmore",
        f"{add} <<'E-F'\nB\nE-F",
        f"{add} <<'EOF'x\nB\nEOFx",
        f"{add} <<'EOF' <<'END'\nB\nEOF\nC\nEND",
        f"printf 'B' | {add} <<'EOF'\nB\nEOF",
        # another program, or this one reached some other way
        f"/tmp/evil/abcd memory add --title T --recall r --by {WRITER} <<'EOF'\nB\nEOF",
        f"./abcd memory add --title T --recall r --by {WRITER} <<'EOF'\nB\nEOF",
        f"'abcd' memory add --title T --recall r --by {WRITER} <<'EOF'\nB\nEOF",
        f"\\abcd memory add --title T --recall r --by {WRITER} <<'EOF'\nB\nEOF",
        f"X=1 {heredoc}",
        f"PATH=/tmp/evil {heredoc}",
        f"env {heredoc}",
        f"command {heredoc}",
        f"exec {heredoc}",
        f"sudo {heredoc}",
        f"time {heredoc}",
        f"! {heredoc}",
        f"({fed})",
        f"{{ {fed}; }}",
        f"sh -c \"{add}\" <<'EOF'\nB\nEOF",
        f"cat <<'EOF' | {add}\nB\nEOF",
        f"/usr/bin/printf 'B' | {add}",
        f"'printf' 'B' | {add}",
        f"printf -v PATH 'B' | {add}",
        f"printf -- 'B' | {add}",
        f"true | {add}",
        f"echo | {add}",
        f"printf | {add}",
        # other abcd commands
        f"abcd memory remove mem-0000000000000000 --by {WRITER}",
        f"abcd memory import notes.jsonl --by {WRITER}",
        f"printf '{{}}' | abcd memory import - --by {WRITER}",
        "abcd memory list",
        "abcd memory promote mem-0000000000000000",
        "abcd journal rebuild",
        f"printf 'B' | abcd memory list --title T --recall r --by {WRITER}",
        f"printf 'B' | abcd --help memory add --title T --recall r --by {WRITER}",
        "printf 'B' | abcd memory add --help",
        "printf 'B' | abcd memory add -h",
        f"printf 'B' | {add} --unknown",
        f"printf 'B' | {add} extra",
        f"printf 'B' | {add} --",
        f"printf 'B' | {add} --title",
        f"printf 'B' | {add} --everywhere=yes",
        "printf 'B' | abcd memory",
        "abcd memory add",
        add,
        # comments, escapes, odd characters
        f"{fed} # and then",
        f"{fed} #\ntouch y",
        fed.replace("printf", "pr\\intf"),
        f"printf 'B' | abcd memory add --title T\\;x --recall r --by {WRITER}",
        f"printf 'B | {add}",
        f'printf "B | {add}',
        f"printf 'B' | {add}\0",
        f"printf 'B' | {add}\r",
        f"printf 'B' |\n{add}",
        "",
        " ",
        "\n",
        f"printf '{'B' * COMMAND_MAX_CHARS}' | {add}",
    ]
    return out


@pytest.mark.parametrize("command", attacks())
def test_anything_else_is_not_understood(command: str) -> None:
    assert read_note_command(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "printf 'B' | abcd memory add --title T --recall w --by person",
        "printf 'B' | abcd memory add --title T --recall w --by=person",
        "printf 'B' | abcd memory add --by 'person' --title T --recall w",
    ],
)
def test_a_note_in_the_persons_name_is_left_for_the_person_to_allow(command: str) -> None:
    assert read_note_command(command) is None


def test_the_reader_knows_exactly_the_options_of_abcd_memory_add() -> None:
    import typer

    from abcd.cli.memory_cmd import app

    (add,) = [c for name, c in typer.main.get_group(app).commands.items() if name == "add"]
    flags = {o for p in add.params if getattr(p, "is_flag", False) for o in p.opts}
    valued = {o for p in add.params if not getattr(p, "is_flag", False) for o in p.opts}

    assert flags - {"--help"} == ADD_FLAGS
    assert valued == ADD_VALUE_OPTIONS


SHELLISH = st.text(
    alphabet=st.sampled_from(list("abcd memory add printf|<>;&$`'\"\\\n\t #=-EOF()"))
)


@given(command=SHELLISH | st.text())
def test_any_text_at_all_is_read_or_refused_without_an_error(command: str) -> None:
    read = read_note_command(command)

    assert read is None or isinstance(read, NoteCommand)


@given(base=st.sampled_from(ACCEPTED), cut=st.integers(0, 400))
def test_every_beginning_of_a_taught_command_is_read_or_refused_without_an_error(
    base: str, cut: int
) -> None:
    read = read_note_command(base[:cut])

    assert read is None or read.args[:2] == ("memory", "add")


# --- checked against bash itself ---------------------------------------------------


def run_in_shell(shell: str, command: str, scratch: Path) -> tuple[list[list[str]], str, str]:
    """Run `command` in `shell` with only a stand-in `abcd` on PATH: its calls (argv), its
    stdin, stderr."""
    bin_dir = scratch / "bin"
    bin_dir.mkdir(exist_ok=True)
    calls = scratch / "calls"
    calls.mkdir(exist_ok=True)
    stand_in = bin_dir / "abcd"
    stand_in.write_text(
        "#!/bin/sh\n"
        'n=$(ls "$CALLS" | wc -l)\n'
        'for a in "$@"; do printf "%s\\0" "$a"; done > "$CALLS/$n.argv"\n'
        'cat > "$CALLS/$n.stdin"\n'
    )
    stand_in.chmod(0o755)
    for old in calls.iterdir():
        old.unlink()
    program = shutil.which(shell)
    assert program is not None
    done = subprocess.run(
        [program, *SHELLS[shell], command],
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "CALLS": str(calls), "HOME": str(scratch)},
        cwd=scratch,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=30,
        check=False,
    )
    argvs = sorted(calls.glob("*.argv"))
    seen = [p.read_bytes().decode().split("\0")[:-1] for p in argvs]
    stdin = (
        (calls / "0.stdin").read_bytes().decode(errors="surrogateescape")
        if (calls / "0.stdin").exists()
        else ""
    )
    return seen, stdin, done.stderr


@shells
@pytest.mark.parametrize("command", ACCEPTED)
def test_the_shell_runs_abcd_once_with_the_words_and_body_the_reader_read(
    shell: str, command: str, tmp_path: Path
) -> None:
    read = read_note_command(command)
    assert read is not None

    calls, stdin, stderr = run_in_shell(shell, command, tmp_path)

    assert stderr == ""
    assert calls == [list(read.args)]
    if read.body is not None:
        assert stdin == read.body


# Words as the agent might write them, quoted each way the reader accepts.
TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\0", exclude_categories=("Cs",)),
    min_size=1,
    max_size=30,
)


@st.composite
def quoted(draw: st.DrawFn, text: str) -> str:
    """`text` written as one shell word: single-quoted, else double-quoted or bare where it may be."""
    if "'" not in text and draw(st.booleans()):
        return f"'{text}'"
    if not set(text) & set('"$`\\!') and draw(st.booleans()):
        return f'"{text}"'
    if re.fullmatch(r"[A-Za-z0-9_.,:/@+-][A-Za-z0-9_.,:/@+=-]*", text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


@st.composite
def note_commands(draw: st.DrawFn) -> str:
    words = ["abcd", "memory", "add"]
    for option in draw(
        st.lists(st.sampled_from(sorted(ADD_VALUE_OPTIONS | ADD_FLAGS)), max_size=6)
    ):
        if option in ADD_FLAGS:
            words.append(option)
        elif draw(st.booleans()):
            words += [option, draw(quoted(draw(TEXT)))]
        else:
            words.append(f"{option}=" + draw(quoted(draw(TEXT))))
    joiner = draw(st.sampled_from([" ", "  ", "\t", " \\\n  "]))
    line = joiner.join(words)
    if draw(st.booleans()):
        body_lines = draw(st.lists(TEXT.filter(lambda t: "\n" not in t and t != "EOF"), max_size=4))
        return line + " <<'EOF'\n" + "".join(f"{b}\n" for b in body_lines) + "EOF"
    feeder = draw(st.sampled_from(["printf", "echo"]))
    return f"{feeder} {draw(quoted(draw(TEXT).lstrip('-') or 'x'))} | {line}"


@shells
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=note_commands())
def test_for_any_command_it_accepts_the_shell_passes_abcd_the_same_words_and_body(
    shell: str, command: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    read = read_note_command(command)
    assert read is not None, command

    calls, stdin, stderr = run_in_shell(shell, command, tmp_path_factory.mktemp(shell))

    assert calls == [list(read.args)], stderr
    if read.body is not None:
        assert stdin == read.body


# Each splice, where the shell reads it, would make `y`; inside quotes or a body it is text.
SPLICES = [
    ";touch y",
    "&touch y",
    "&&touch y",
    "||touch y",
    "|touch y",
    "\ntouch y",
    "$(touch y)",
    "`touch y`",
    ">y",
    " 2>y",
    "<(touch y)",
    "{ touch y; }",
    "#\ntouch y",
    "\\\ntouch y",
]


@shells
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(base=st.sampled_from(ACCEPTED), where=st.floats(0, 1), splice=st.sampled_from(SPLICES))
def test_a_command_spliced_in_anywhere_is_refused_or_is_only_text(
    shell: str, base: str, where: float, splice: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    at = int(where * len(base))
    command = base[:at] + splice + base[at:]
    read = read_note_command(command)
    if read is None:
        return  # not understood: the host asks the person
    scratch = tmp_path_factory.mktemp(shell)

    calls, stdin, _ = run_in_shell(shell, command, scratch)

    assert not (scratch / "y").exists(), command
    assert calls == [list(read.args)], command
    if read.body is not None:
        assert stdin == read.body
