"""The guard's rules hold for any header a client can send (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from abcd.web.guard import Guard, cookie_value, same_token

GUARD = Guard("t0ken-of-this-run", 40917)
OWN_HOST = "127.0.0.1:40917"
header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)


@given(host=header_text)
def test_any_host_but_the_desks_two_names_is_refused(host: str) -> None:
    why = GUARD.foreign([("Host", host)])
    if host.strip().lower() in ("127.0.0.1:40917", "localhost:40917"):
        assert why is None
    else:
        assert why == "the Host header does not name this desk"


@given(origin=header_text, name=st.sampled_from(["Origin", "origin", "ORIGIN"]))
def test_any_origin_but_the_desks_own_is_refused(origin: str, name: str) -> None:
    why = GUARD.foreign([("Host", OWN_HOST), (name, origin)])
    own = origin.strip().lower() in ("http://127.0.0.1:40917", "http://localhost:40917")
    assert (why is None) == own


@given(given_token=st.one_of(st.none(), st.text(max_size=40)))
def test_only_the_token_itself_is_the_token(given_token: str | None) -> None:
    assert same_token(given_token, GUARD.token) == (given_token == GUARD.token)


@given(
    others=st.lists(
        st.tuples(st.text("abcdefgh_", min_size=1, max_size=8), st.text("xyz0123", max_size=8)),
        max_size=4,
    ),
    at=st.integers(min_value=0, max_value=4),
)
def test_the_desks_cookie_is_found_among_any_others(others: list[tuple[str, str]], at: int) -> None:
    pairs = [(name, value) for name, value in others if name != "abcd_desk_40917"]
    pairs.insert(min(at, len(pairs)), ("abcd_desk_40917", GUARD.token))
    header = "; ".join(f"{name}={value}" for name, value in pairs)
    assert cookie_value(header, "abcd_desk_40917") == GUARD.token
