"""Guarded file access: every read and write under the home, and every read of a checkout's layer.

The invariant: nothing under the home or a checkout's `.abcd/` is reached
through a symlink at any step, nothing is read unless it is a regular file
owned by this account that no one else can write and that is within its size
bound (a checkout's group may write, and its top folder and `.git` must be
this account's too), and every write of a whole file is atomic (temp, fsync,
rename, fsync the folder; a cache every reader checks skips the fsyncs).
"""

from abcd.trust.guarded import Checkout, CheckoutRefused, Home, locate_home, shown

__all__ = ["Checkout", "CheckoutRefused", "Home", "locate_home", "shown"]
