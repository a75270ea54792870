"""Identity and network identifiers: refused when they identify someone, passed when they identify nobody."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abcd.gate import judge_note, network
from abcd.gate.network import EMAIL, IPV4, IPV6, MAC, PRIVATE_HOST, UUID, find_network


def kind_of(text: str) -> str | None:
    finding = judge_note("t", text, ["w"])
    return None if finding is None else finding.kind


def _ip(rng: random.Random, first: int) -> str:
    return ".".join(
        str(x) for x in (first, rng.randrange(256), rng.randrange(256), rng.randrange(1, 255))
    )


def _mac(rng: random.Random, sep: str) -> str:
    return sep.join(f"{rng.randrange(1, 256):02x}" for _ in range(6))


def _uuid(rng: random.Random) -> str:
    import uuid

    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


REFUSED = {
    EMAIL: [
        lambda r: (
            f"ask {r.choice(['alice', 'bob.smith', 'j_doe+ci'])}@{r.choice(['corp.com', 'mail.acme.io'])} first"
        ),
        lambda r: "mailto:" + "ops-team" + "@" + "company.co.uk",
    ],
    IPV4: [
        lambda r: f"the runner at {_ip(r, r.choice([10, 172, 192]))} timed out",
        lambda r: "DNS at 8.8.8.8 answered",  # public addresses are refused too
        lambda r: (
            "version 1.2.3.4 is a valid dotted quad"
        ),  # documented: four parts read as an address
        lambda r: f"http://{_ip(r, 10)}:8080/health",
        lambda r: f"169.254.{r.randrange(256)}.{r.randrange(1, 255)} is link-local",
        lambda r: "::ffff:10.0.0.1 is a mapped private address, named as IPv4",
    ],
    IPV6: [
        lambda r: f"fe80::{r.randrange(1, 0xFFFF):x}%eth0 on the LAN",
        lambda r: f"fd00:{r.randrange(1, 0xFFFF):x}::{r.randrange(1, 0xFFFF):x} is unique-local",
        lambda r: "2606:4700:4700::1111 is a public resolver",
        lambda r: "http://[fe80::1]:8080/ is the device",
    ],
    MAC: [
        lambda r: f"the NIC {_mac(r, ':')} flaps",
        lambda r: f"adapter {_mac(r, '-').upper()} on the dock",
    ],
    UUID: [
        lambda r: f"tenant {_uuid(r)} is the staging one",
        lambda r: f"session-{_uuid(r)} crashed",
    ],
    PRIVATE_HOST: [
        lambda r: f"curl http://{r.choice(['buildbox', 'jenkins', 'nas'])}/api",
        lambda r: "https://wiki.corp/pages/Runbook",
        lambda r: "ssh deploy.internal then restart",
        lambda r: "git.intranet hosts the mirror",
        lambda r: "printer.local:631 needs a driver",
        lambda r: "http://nas.local/share",
        lambda r: "postgres://db:5432/app",
        lambda r: "postgresql+psycopg2://app@db-primary:5432/app",  # a dialect and its driver
        lambda r: "router.lan answers DHCP",
        lambda r: "box.localdomain",
        lambda r: "https://grafana.home/d/abc",
        lambda r: "https://nas.home.arpa/",
    ],
}

PASSES = [
    # loopback, unspecified, localhost
    "127.0.0.1 and 127.1.2.3 and 0.0.0.0 and 0.1.2.3 and ::1 and ::",
    "http://localhost:8000/docs and http://127.0.0.1:5000 and http://[::1]:8080/",
    "dev.localhost and app.test and site.example and thing.invalid",
    # documentation values
    "192.0.2.10, 198.51.100.7, 203.0.113.254",
    "2001:db8::1 and 2001:db8:85a3::8a2e:370:7334",
    "alice@example.com, bob@sub.example.org, ci@build.test",
    "https://example.com/path and http://api.example.net/v1",
    "00-00-5E-00-53-01 is a documentation MAC",
    "00:00:00:00:00:00 and ff:ff:ff:ff:ff:ff",
    "00000000-0000-0000-0000-000000000000 is the nil UUID",
    # netmasks and multicast address no host
    "netmask 255.255.255.0 and 255.255.0.0",
    "mDNS uses 224.0.0.251 and ff02::fb",
    # developer prose
    "go test -race ./internal/...",
    "pytest -k name -x",
    "src/abcd/gate/network.py",
    "commit 3f2a9c1, digest sha256:" + "9f" * 32,
    "Python 3.11.7, v2.10.1, 1.2.3, 2024.10.1",
    "https://docs.python.org/3/library/re.html",
    "https://github.com/jcrist/msgspec/issues/12",
    "git@github.com:jcrist/msgspec.git",
    "std::vector<int> and foo::bar and a::b",
    "at 12:30:45 the job ran; 2024-01-01T12:30:45Z",
    "threading.local() and settings.local and user.home",
    "s3://bucket/key and file:///tmp/x and docker://image",
    "http://HOST:PORT/path and http://host:8080/",
    "@pytest.fixture and npm i lodash@4.17.21 and actions/checkout@v4",
    "the .internal suffix and the .local suffix",
    "https://user:${TOKEN}@github.com/org/repo.git",
    "range 1-2-3-4-5 and uuid-like a-b-c-d-e",
]


CASES = [(kind, i) for kind, gens in REFUSED.items() for i in range(len(gens))]


@pytest.mark.parametrize(("kind", "index"), CASES, ids=[f"{k}-{i}" for k, i in CASES])
def test_each_identifier_is_refused_with_its_kind(kind: str, index: int) -> None:
    rng = random.Random(f"{kind}-{index}")
    for _ in range(10):
        text = REFUSED[kind][index](rng)
        assert kind_of(text) == kind, text


@pytest.mark.parametrize("text", PASSES)
def test_values_that_identify_nobody_and_developer_prose_pass(text: str) -> None:
    assert find_network(text, text.lower()) is None
    assert judge_note("t", text, ["w"]) is None


def test_a_public_ipv4_address_is_refused_like_a_private_one() -> None:
    assert kind_of("resolver " + ".".join(["8"] * 4)) == IPV4
    assert kind_of("resolver " + ".".join(["1", "1", "1", "1"])) == IPV4


def test_a_three_part_version_passes_and_a_four_part_dotted_quad_is_refused() -> None:
    assert kind_of("upgrade to 1.2.3") is None
    assert kind_of("upgrade to 1.2.3.4") == IPV4
    assert kind_of("upgrade to 1.2.3.4.5") is None  # five parts is no address
    assert kind_of("upgrade to 300.2.3.4") is None  # not a valid octet


# An address a URL parser reads from a network URL's host, in the forms other than the dotted
# decimal quad: one number, fewer parts, octal and hexadecimal parts.
URL_ADDRESSES = [
    ("http://3232235777/admin", (192, 168, 1, 1)),
    ("curl https://167772161:8443/health", (10, 0, 0, 1)),
    ("http://10.1/", (10, 0, 0, 1)),
    ("http://192.168.257/", (192, 168, 1, 1)),
    ("http://0xc0a80101/", (192, 168, 1, 1)),
    ("http://0XC0.0xA8.1.1/", (192, 168, 1, 1)),
    ("http://012.0.0.1/", (10, 0, 0, 1)),  # a leading 0 is octal to a URL parser
    ("postgres://app@0x0a000005:5432/db", (10, 0, 0, 5)),
    ("ssh://134744072./", (8, 8, 8, 8)),  # a trailing dot is the same host
    ("pip install git+ssh://167772161/org/repo", (10, 0, 0, 1)),  # a scheme and its transport
    ("mysql+pymysql://app@10.1/db", (10, 0, 0, 1)),  # a dialect and its driver
    ("ALL_PROXY=socks5h://0xa000001:1080", (10, 0, 0, 1)),
]


@pytest.mark.parametrize(("text", "octets"), URL_ADDRESSES)
def test_a_network_urls_host_is_read_as_a_url_parser_reads_it(
    text: str, octets: tuple[int, int, int, int]
) -> None:
    host = re.search(r"//(?:[^@/]*@)?([^:/]+)", text)  # the host, as the URL's parser finds it
    assert host is not None
    assert network.url_ipv4(host.group(1)) == octets
    assert kind_of(text) == IPV4


@pytest.mark.parametrize(
    "text",
    [
        "http://2130706433/ and http://127.1:8080/ and http://0x7f000001/",  # loopback
        "http://0/ and https://123/",  # 0.0.0.0/8 names no host
        "http://4294967296/ and http://1.2.3.4.5/ and http://10.256.1/",  # no address: not valid
        "http://09.1.2/ and http://1.0x1g/",  # not a number in any base: not valid
        "s3://3232235777/key and docker://167772161/x",  # not a network scheme
        "http://v1.2/ and https://api.example.com:443/v2",
        "allow http://192.168.1.* and http://10.0.* in the proxy",  # patterns, not hosts
        "the VPC http://10.0.0.0/8 and http://192.168.1.0/24",  # CIDR ranges, as without a scheme
    ],
)
def test_url_hosts_that_address_nobody_pass(text: str) -> None:
    assert judge_note("t", text, ["w"]) is None


def _url_ipv4_part(draw: st.DrawFn, bits: int) -> str:
    value = draw(st.integers(0, (1 << bits) - 1))
    form = draw(st.sampled_from(("dec", "oct", "hex", "HEX")))
    if form == "oct":
        return "0" + format(value, "o")
    if form in ("hex", "HEX"):
        text = "0x" + format(value, "x")
        return text.upper() if form == "HEX" else text
    return str(value)


@st.composite
def _url_ipv4_hosts(draw: st.DrawFn) -> str:
    count = draw(st.integers(1, 4))
    parts = [_url_ipv4_part(draw, 8) for _ in range(count - 1)]
    last_bits = 8 * (5 - count) if draw(st.booleans()) else 8 * (5 - count) + 4  # some overflow
    return ".".join([*parts, _url_ipv4_part(draw, last_bits)])


@given(_url_ipv4_hosts())
@settings(max_examples=400, deadline=None)
def test_url_ipv4_reads_what_inet_aton_reads(host: str) -> None:
    # glibc's inet_aton reads the same four forms (decimal, octal, hex; 1 to 4 parts).
    import socket

    try:
        expected: tuple[int, ...] | None = tuple(socket.inet_aton(host))
    except OSError:
        expected = None
    assert network.url_ipv4(host) == expected


def test_an_address_in_a_recall_word_is_refused_naming_recall_1() -> None:
    finding = judge_note("t", "body", ["network", "10.1.2.3"])
    assert finding is not None
    assert (finding.kind, finding.field) == (IPV4, "recall[1]")


# `hex_groups` finds what the MAC and UUID expressions find, in the same order.
_HEX_SCANS = [
    (
        "uuid",
        network._UUID,
        lambda text: network.hex_groups(text, (8, 4, 4, 4, 12), "-", network._HEX),
    ),
    (
        "mac",
        network._MAC,
        lambda text: network.hex_groups(text, (2,) * 6, ":-", network._HEX | {":", "-"}),
    ),
]
_HEX_PIECES = ["a1", "F0", "0", "9b", "-", ":", "1234", "abcdef12", "x", " ", "_", "g", "0" * 12]


@pytest.mark.parametrize(("name", "expression", "scan"), _HEX_SCANS, ids=[s[0] for s in _HEX_SCANS])
def test_hex_groups_find_what_the_expression_finds_on_samples(
    name: str, expression: str, scan: Callable[[str], list[str]]
) -> None:
    uuid = "123e4567-e89b-12d3-a456-426614174000"
    mac = "3c:22:fb:1a:2b:3c"
    samples = [
        uuid,
        uuid.upper(),
        mac,
        mac.replace(":", "-"),
        "00:00:00:00:00:00",
        "3c:22-fb:1a:2b:3c",
    ]
    texts = [
        g + s + t
        for s in samples
        for g in ("", "a", "-", ":", " ")
        for t in ("", "f", "-", ":", " ")
    ]
    texts += [uuid + uuid, mac + " " + mac, uuid[:-1], mac[:-1], uuid + "-" + uuid]
    for text in texts:
        assert scan(text) == [m.group(0) for m in re.finditer(expression, text)], text


@settings(max_examples=1000, deadline=None)
@given(scan=st.sampled_from(_HEX_SCANS), pieces=st.lists(st.sampled_from(_HEX_PIECES), max_size=14))
def test_hex_groups_find_what_the_expression_finds_on_random_text(
    scan: tuple[str, str, Callable[[str], list[str]]], pieces: list[str]
) -> None:
    _, expression, find = scan
    text = "".join(pieces)
    assert find(text) == [m.group(0) for m in re.finditer(expression, text)], text
