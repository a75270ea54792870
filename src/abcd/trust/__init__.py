"""Guarded file access: every read and write under the home goes through here.

The invariant: nothing under the home is reached through a symlink at any
step, nothing is read unless it is a regular file owned by this account that
no one else can write and that is within its size bound, and every write of a
whole file is atomic (temp, fsync, rename, fsync the folder).
"""

from abcd.trust.guarded import Home, locate_home, read_repo_file, shown

__all__ = ["Home", "locate_home", "read_repo_file", "shown"]
