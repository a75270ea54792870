"""Trust checks: links, owners, modes, sizes and file types are each refused and named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from abcd.errors import TrustError
from abcd.trust import Checkout, CheckoutRefused, Home, shown
from tests.conftest import BY, Run
from tests.journal.helpers import append_adds

OTHER_UID = 54321


def make_home(abcd_home: Path) -> Home:
    append_adds(1)
    home = Home.open(abcd_home)
    assert home is not None
    return home


def test_a_symlinked_home_is_refused(abcd_home: Path, tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir(mode=0o700)
    abcd_home.symlink_to(real)
    with pytest.raises(TrustError, match="symlink"):
        Home.open(abcd_home)


def test_a_symlinked_file_is_refused_and_named(abcd_home: Path, tmp_path: Path) -> None:
    home = make_home(abcd_home)
    target = tmp_path / "target.json"
    target.write_text("{}")
    (abcd_home / "rules.json").symlink_to(target)
    with home, pytest.raises(TrustError) as caught:
        home.read("rules.json", 1024)
    assert "rules.json" in str(caught.value) and "symlink" in str(caught.value)


def test_a_symlinked_folder_on_the_way_is_refused(abcd_home: Path, tmp_path: Path) -> None:
    home = make_home(abcd_home)
    real = tmp_path / "pages"
    real.mkdir(mode=0o700)
    (real / "a.md").write_text("x")
    (abcd_home / "memory").symlink_to(real)
    with home, pytest.raises(TrustError, match="symlink"):
        home.read("memory/a.md", 1024)


def test_a_file_owned_by_another_account_is_refused(abcd_home: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root; CI runs as root")
    home = make_home(abcd_home)
    (abcd_home / "rules.json").write_text("{}")
    os.chown(abcd_home / "rules.json", OTHER_UID, OTHER_UID)
    with home, pytest.raises(TrustError, match=f"owned by uid {OTHER_UID}, not you"):
        home.read("rules.json", 1024)


def test_a_group_writable_file_is_refused(abcd_home: Path) -> None:
    home = make_home(abcd_home)
    (abcd_home / "rules.json").write_text("{}")
    os.chmod(abcd_home / "rules.json", 0o620)
    with home, pytest.raises(TrustError, match="writable by group or others"):
        home.read("rules.json", 1024)


def test_a_world_writable_home_is_refused(abcd_home: Path) -> None:
    make_home(abcd_home).close()
    os.chmod(abcd_home, 0o777)
    with pytest.raises(TrustError, match="writable by group or others"):
        Home.open(abcd_home)


def test_an_oversize_file_is_refused_naming_the_bound(abcd_home: Path) -> None:
    home = make_home(abcd_home)
    (abcd_home / "rules.json").write_bytes(b" " * 2048)
    with home, pytest.raises(TrustError, match="bound of 1024 bytes"):
        home.read("rules.json", 1024)


def test_a_fifo_is_refused_without_hanging(abcd_home: Path) -> None:
    home = make_home(abcd_home)
    os.mkfifo(abcd_home / "rules.json", 0o600)
    with home, pytest.raises(TrustError, match="not a regular file"):
        home.read("rules.json", 1024)


def test_an_absent_file_is_none_and_creates_nothing(abcd_home: Path) -> None:
    home = make_home(abcd_home)
    before = sorted(p.name for p in abcd_home.iterdir())
    with home:
        assert home.read("rules.json", 1024) is None
        assert home.read("memory/nothing.md", 1024) is None
    assert sorted(p.name for p in abcd_home.iterdir()) == before


def test_a_repository_file_behind_a_symlink_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "t.json"
    target.write_text("{}")
    (tmp_path / ".abcd").mkdir()
    (tmp_path / ".abcd" / "memory.json").symlink_to(target)
    with Checkout.open(tmp_path) as checkout, pytest.raises(TrustError, match="symlink"):
        checkout.read("memory.json", 1024)


def _checkout(tmp_path: Path) -> Path:
    top = tmp_path / "clone"
    (top / ".git").mkdir(parents=True)
    (top / ".abcd" / "memory").mkdir(parents=True)
    (top / ".abcd" / "rules.json").write_text("{}")
    return top


def _refusal(top: Path) -> str:
    with Checkout.open(top) as checkout:
        assert checkout.refused is not None
        with pytest.raises(CheckoutRefused) as caught:
            checkout.read("rules.json", 1024)
        with pytest.raises(CheckoutRefused):
            checkout.open_dir("memory")
    return str(caught.value)


def as_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root; CI runs as root")


def test_a_checkout_whose_top_folder_another_account_owns_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    as_root()
    top = _checkout(tmp_path)
    os.chown(top, OTHER_UID, OTHER_UID)
    assert _refusal(top) == f"{top}: owned by uid {OTHER_UID}, not you"


def test_a_checkout_whose_git_another_account_owns_is_refused(tmp_path: Path) -> None:
    as_root()
    top = _checkout(tmp_path)
    os.chown(top / ".git", OTHER_UID, OTHER_UID)
    assert _refusal(top) == f"{top}/.git: owned by uid {OTHER_UID}, not you"


def test_a_linked_worktrees_git_file_another_account_owns_is_refused(tmp_path: Path) -> None:
    as_root()
    top = _checkout(tmp_path)
    (top / ".git").rmdir()
    (top / ".git").write_text("gitdir: /elsewhere/.git/worktrees/clone\n")
    os.chown(top / ".git", OTHER_UID, OTHER_UID)
    assert _refusal(top) == f"{top}/.git: owned by uid {OTHER_UID}, not you"


def test_an_abcd_folder_another_account_owns_is_refused(tmp_path: Path) -> None:
    as_root()
    top = _checkout(tmp_path)
    os.chown(top / ".abcd", OTHER_UID, OTHER_UID)
    assert _refusal(top) == f"{top}/.abcd: owned by uid {OTHER_UID}, not you"


def test_a_symlinked_abcd_folder_is_refused(tmp_path: Path) -> None:
    top = _checkout(tmp_path)
    (top / ".abcd").rename(tmp_path / "elsewhere")
    (top / ".abcd").symlink_to(tmp_path / "elsewhere")
    assert "symlink" in _refusal(top)


def test_a_world_writable_abcd_folder_is_refused_and_a_group_writable_one_read(
    tmp_path: Path,
) -> None:
    top = _checkout(tmp_path)
    os.chmod(top / ".abcd", 0o775)
    os.chmod(top / ".abcd" / "rules.json", 0o664)
    with Checkout.open(top) as checkout:
        assert checkout.read("rules.json", 1024) == b"{}"
    os.chmod(top / ".abcd", 0o777)
    assert _refusal(top) == f"{top}/.abcd: writable by others"


def test_a_file_another_account_owns_in_a_checkout_of_ones_own_is_refused(
    tmp_path: Path,
) -> None:
    as_root()
    top = _checkout(tmp_path)
    os.chown(top / ".abcd" / "rules.json", OTHER_UID, OTHER_UID)
    with Checkout.open(top) as checkout:
        assert checkout.refused is None
        with pytest.raises(TrustError, match=f"rules.json: owned by uid {OTHER_UID}, not you"):
            checkout.read("rules.json", 1024)


def test_a_foreign_checkout_without_an_abcd_folder_is_nothing_to_refuse(tmp_path: Path) -> None:
    as_root()
    top = tmp_path / "clone"
    (top / ".git").mkdir(parents=True)
    os.chown(top, OTHER_UID, OTHER_UID)
    with Checkout.open(top) as checkout:
        assert checkout.refused is None
        assert checkout.read("rules.json", 1024) is None
        assert checkout.open_dir("memory") is None


def test_paths_under_the_persons_home_are_shown_in_tilde_form(tmp_path: Path) -> None:
    assert (
        shown(Path(os.environ["HOME"]) / ".abcd.noindex" / "memory.json")
        == "~/.abcd.noindex/memory.json"
    )
    assert shown(tmp_path / "x") == str(tmp_path / "x")


def test_a_symlinked_view_is_a_loud_error_naming_it_in_tilde_form(
    abcd: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.environ["HOME"]) / ".abcd.noindex"
    monkeypatch.setenv("ABCD_HOME", str(home))
    added = abcd(
        "memory", "add", "--title", "t", "--recall", "w", "--by", BY, "--everywhere", stdin="body"
    )
    assert added.code == 0, added.err
    view = home / "memory.json"
    target = tmp_path / "elsewhere.json"
    target.write_bytes(view.read_bytes())
    view.unlink()
    view.symlink_to(target)
    listed = abcd("memory", "list")
    assert listed.code == 1
    assert "~/.abcd.noindex/memory.json: is a symlink" in listed.err
    refused = abcd(
        "memory", "add", "--title", "t2", "--recall", "w", "--by", BY, "--everywhere", stdin="b"
    )
    assert refused.code == 1 and "~/.abcd.noindex/memory.json" in refused.err
    rebuilt = abcd("journal", "rebuild")
    assert rebuilt.code == 0, rebuilt.err
    assert not view.is_symlink()
    assert abcd("memory", "list").code == 0


@pytest.mark.parametrize("durable", [True, False])
def test_a_whole_file_write_is_synced_unless_it_is_a_cache(
    abcd_home: Path, synced: list[int], durable: bool
) -> None:
    home = make_home(abcd_home)
    synced.clear()
    try:
        home.write_atomic("cache/probe.bin", b"whole", durable=durable)
    finally:
        home.close()
    assert (abcd_home / "cache" / "probe.bin").read_bytes() == b"whole"
    assert len(synced) == (2 if durable else 0)  # the file, then its folder
    assert not [p for p in (abcd_home / "cache").iterdir() if p.name.endswith(".tmp")]
