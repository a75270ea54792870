"""The git repository a command runs in: its top folder, its primary checkout, its root commit.

Finding the repository walks up from the working folder looking for `.git`
(no subprocess, so the prompt hook pays nothing); only the root commit asks
git, and only when a caller needs it.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

PRIVATE_NAMES_REL = ".abcd/.work.local/private-names.txt"
PROJECT_MEMORY_REL = ".abcd/memory.json"
PROJECT_RULES_REL = ".abcd/rules.json"
PROJECT_PAGES_REL = ".abcd/memory"


@dataclass(frozen=True)
class Repo:
    """A checkout: `top` is its work tree; `primary` is the main checkout of a linked worktree."""

    top: Path
    primary: Path | None = None

    @cached_property
    def root_commit(self) -> str | None:
        """The full hash of the repository's first root commit, `None` before the first commit."""
        try:
            out = subprocess.run(
                ["git", "rev-list", "--max-parents=0", "HEAD"],
                cwd=self.top,
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        roots = out.stdout.split() if out.returncode == 0 else []
        # rev-list lists newest first; the last is the history's original root.
        return roots[-1] if roots else None

    def private_names_files(self) -> list[Path]:
        """This checkout's banlist and, in a linked worktree, the primary checkout's."""
        files = [self.top / PRIVATE_NAMES_REL]
        if self.primary is not None and self.primary != self.top:
            files.append(self.primary / PRIVATE_NAMES_REL)
        return files


def _primary_of(dot_git_file: Path) -> Path | None:
    """For a linked worktree's `.git` file, the primary checkout's top folder."""
    try:
        text = dot_git_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    line = text.strip().splitlines()[0] if text.strip() else ""
    if not line.startswith("gitdir:"):
        return None
    gitdir = Path(line[len("gitdir:") :].strip())
    if not gitdir.is_absolute():
        gitdir = (dot_git_file.parent / gitdir).resolve()
    commondir_file = gitdir / "commondir"
    try:
        common = commondir_file.read_text(encoding="utf-8").strip()
    except OSError:
        return None  # a submodule's .git file, not a linked worktree
    common_dir = Path(common) if os.path.isabs(common) else (gitdir / common).resolve()
    return common_dir.parent if common_dir.name == ".git" else None


def find_repo(start: Path | str | None = None) -> Repo | None:
    """The checkout holding `start` (default: the working folder), or `None` outside one."""
    here = Path(os.path.abspath(start if start is not None else os.getcwd()))
    for folder in (here, *here.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return Repo(top=folder)
        if dot_git.is_file():
            return Repo(top=folder, primary=_primary_of(dot_git))
    return None
