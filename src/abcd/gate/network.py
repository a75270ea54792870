"""Identity and network identifiers: e-mail addresses, IP and MAC addresses, UUIDs, private hosts.

A regular expression finds candidates; a small classifier then decides, so
that values that identify nobody pass:

- loopback and unspecified addresses (`127.0.0.0/8`, `0.0.0.0/8`, `::1`, `::`)
  and `localhost`;
- documentation values: RFC 5737 (`192.0.2.0/24`, `198.51.100.0/24`,
  `203.0.113.0/24`), RFC 3849 (`2001:db8::/32`), RFC 7042 MAC addresses
  (`00-00-5E-00-53-xx`), RFC 2606 names (`example.com`/`.net`/`.org`,
  `.test`, `.example`, `.invalid`, `.localhost`);
- values that address no host: multicast and the reserved `240.0.0.0/4`
  (netmasks such as `255.255.255.0` fall there), the nil and max UUIDs and
  the all-zero and broadcast MAC addresses.

Every other IPv4 address is refused, public ones included (`8.8.8.8`), and so
is any four-part dotted quad that is a valid address (`1.2.3.4`): version
numbers have at most three parts. A network URL's host is read as a URL
parser reads it, so the other forms of an address are refused there too
(`http://3232235777/`, `http://10.1/`, `http://0xc0.0xa8.1.1/`). IPv6
candidates are parsed by the stdlib `ipaddress`, imported only when a
candidate appears.

Invariant: the functions here return a kind or `None`, never the candidate.
"""

from __future__ import annotations

from abcd.gate.compiled import compiled

EMAIL = "identity: e-mail address"
UUID = "identity: uuid"
IPV4 = "network: ipv4 address"
IPV6 = "network: ipv6 address"
MAC = "network: mac address"
PRIVATE_HOST = "network: private host"

# The local part is not glued to `$` (`$USER@host`, `:$TOKEN@host` are variables). The
# domain's labels and its top level may be written in any script (`bob@bücher.de`,
# `info@пример.рф`): an internationalised domain is a domain.
_EMAIL = (
    r"(?a)(?<![\w.%+$-])([\w.%+-]{1,64})@"
    r"((?:(?u:[^\W_]|-){1,63}\.){1,8}(?u:[^\W\d_]){2,63})(?!(?u:\w)|-)"
)
# An optional `/prefix` after the address: a network written in CIDR form. A part may be
# four digits: `0300` is an octal part (192) to `inet_aton`.
_IPV4 = (
    r"(?a)(?<![\w.])(\d{1,4})\.(\d{1,4})\.(\d{1,4})\.(\d{1,4})"
    r"(?:/(\d{1,2})(?!\d))?(?!\w|\.\d)"
)
# Runs of hex digits and colons holding `::` or eight groups, optionally ending
# in a dotted IPv4 part and a zone; not glued to a word (`std::vector` never starts one).
_IPV6 = (
    r"(?a)(?<![\w:.])"
    r"(?=[0-9A-Fa-f:]{0,39}::|(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f])"
    r"[0-9A-Fa-f:]{2,39}(?:(?<=:)\d{1,3}(?:\.\d{1,3}){3})?"
    r"(?:%[\w.-]{1,16})?(?![\w:]|\.\d)"
)
# `_MAC` and `_UUID` say what `hex_groups` finds (tests hold the two to the same answers).
_MAC = (
    r"(?a)(?<![0-9A-Fa-f:-])[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}"
    r"(?![0-9A-Fa-f:-])"
)
_UUID = (
    r"(?a)(?<![0-9A-Fa-f])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}"
    r"-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?![0-9A-Fa-f])"
)
# scheme://[userinfo@]host — the host is what is judged.
_URL = (
    r"(?ai)\b([a-z][a-z0-9+.-]{0,30})://(?:[^\s/?#@]{0,256}@)?"
    r"(\[[0-9a-z:.%]{2,64}\]|[a-z0-9_.-]{1,253})"
)
_PRIVATE_SUFFIXES = ("internal", "intranet", "localdomain", "corp", "lan", "local", "home")
# A bare name (outside a URL) under a private suffix. `.local` and `.home` also
# end Python names (`threading.local`, `settings.local`), so outside a URL
# those two are refused only with a port (`printer.local:631`).
# After `@` too: `git@gitlab.internal:team/repo.git` (an SSH remote, which the e-mail check
# lets pass) and `$USER@bastion.corp` (a variable, ditto) name the host.
_BARE_HOST = (
    r"(?ai)(?<![\w.-])(?:[a-z0-9-]{1,63}\.){1,8}"
    r"(internal|intranet|localdomain|corp|lan|local|home)"
    r"(?![\w-]|\.[^\W_])(:\d{1,5}(?!\d))?"
)
_PORT_ONLY_SUFFIXES = ("local", "home")

_DOC_DOMAINS = ("example.com", "example.net", "example.org")
_DOC_TLDS = ("test", "example", "invalid", "localhost")
# Schemes whose host is a machine on a network; for other schemes (`s3://bucket`,
# `file://`, `docker://image`) the part after `//` is not a host name.
_NETWORK_SCHEMES = frozenset(
    (
        *("http", "https", "ws", "wss", "ftp", "ftps", "sftp", "ssh", "git", "svn", "telnet"),
        *("ldap", "ldaps", "smb", "nfs", "rsync", "redis", "rediss", "postgres", "postgresql"),
        *("mysql", "mariadb", "mongodb", "mongodb+srv", "amqp", "amqps", "mqtt", "nats", "kafka"),
        *("grpc", "grpcs", "tcp", "udp", "imap", "imaps", "smtp", "smtps", "pop3", "rtsp", "vnc"),
        *("rdp", "jdbc", "memcached", "couchdb", "elasticsearch", "clickhouse"),
        *("socks4", "socks4a", "socks5", "socks5h"),
    )
)


def _network_scheme(scheme: str) -> bool:
    """Whether a URL of `scheme` names a machine: one of `_NETWORK_SCHEMES`, or a compound of
    one (`git+ssh`, `postgresql+psycopg2`, `mysql+pymysql`: a dialect and its driver)."""
    lowered = scheme.lower()
    return lowered in _NETWORK_SCHEMES or any(p in _NETWORK_SCHEMES for p in lowered.split("+"))


# What may follow a URL's host: its end, a port, a path, a query, a fragment, or the text's own
# punctuation. Anything else (`http://10.0.*`, `http://192.168.1.x`) is a pattern, not a host.
_HOST_ENDS = frozenset(":/?#\"'<>()[]{},;`") | frozenset(" \t\r\n")
# Lower-case words people write where a host goes; they name no machine.
_PLACEHOLDER_HOSTS = frozenset(
    ("host", "hostname", "your-host", "yourhost", "server-name", "domain", "your-domain", "example")
)


def _is_doc_domain(domain: str) -> bool:
    domain = domain.lower().rstrip(".")
    if domain.rsplit(".", 1)[-1] in _DOC_TLDS:
        return True
    return any(domain == d or domain.endswith("." + d) for d in _DOC_DOMAINS)


def _email(text: str) -> bool:
    for m in compiled("email", _EMAIL).finditer(text):
        local, domain = m.group(1), m.group(2)
        if local == "git":
            continue  # `git@github.com:owner/repo` is an SSH remote, not a person
        if not _is_doc_domain(domain):
            return True
    return False


def ipv4_identifies(octets: tuple[int, int, int, int]) -> bool:
    """False for loopback, "this network" (`0.0.0.0/8`, never a destination), documentation,
    multicast and reserved addresses."""
    a, b, c, _ = octets
    if a in (0, 127) or a >= 224:
        return False
    return (a, b, c) not in ((192, 0, 2), (198, 51, 100), (203, 0, 113))


def _readings(parts: tuple[str, ...]) -> list[tuple[int, int, int, int]]:
    """The addresses a dotted quad of decimal digits reads as: each part decimal, and, when a
    part has a leading zero, also that part octal, as `inet_aton` (`ping`, `ssh`, `curl`) reads
    it. A zero-padded quad (`192.168.001.010`, as some devices and spreadsheets print one) is
    one address or the other to whoever reads it, so either that identifies a host refuses."""
    readings: list[tuple[int, int, int, int]] = []
    a, b, c, d = (int(p) for p in parts)
    if max(a, b, c, d) <= 255:
        readings.append((a, b, c, d))
    padded = [p for p in parts if len(p) > 1 and p[0] == "0"]
    if padded and all(ch in "01234567" for p in padded for ch in p):
        a, b, c, d = (int(p, 8) if p[0] == "0" else int(p) for p in parts)
        if max(a, b, c, d) <= 255 and (a, b, c, d) not in readings:
            readings.append((a, b, c, d))
    return readings


def _is_network_range(octets: tuple[int, int, int, int], prefix: str | None) -> bool:
    """True for a CIDR range that names a network, not a host: `10.0.0.0/16` (host bits zero).

    A prefix of /31 or /32 names one or two hosts; an address with host bits
    set (`10.1.2.3/24`) is an interface's own address, so both stay refused.
    """
    if prefix is None or not 0 <= int(prefix) <= 30:
        return False
    a, b, c, d = octets
    value = (a << 24) | (b << 16) | (c << 8) | d
    return value & ((1 << (32 - int(prefix))) - 1) == 0


def _ipv4(text: str) -> bool:
    for m in compiled("ipv4", _IPV4).finditer(text):
        for octets in _readings(m.groups()[:4]):
            if not _is_network_range(octets, m.group(5)) and ipv4_identifies(octets):
                return True
    return False


def _ipv6(text: str) -> bool:
    for m in compiled("ipv6", _IPV6).finditer(text):
        candidate = m.group(0).split("%", 1)[0]
        # Hex-and-colon words without a digit (`dead::beef`, `Cafe::add`) are code, not addresses.
        if not any(ch.isdigit() for ch in candidate):
            continue
        import ipaddress

        try:
            addr = ipaddress.IPv6Address(candidate)
        except ValueError:
            continue
        if addr.is_loopback or addr.is_unspecified or addr.is_multicast:
            continue
        if addr.packed[:4] == b"\x20\x01\x0d\xb8":  # 2001:db8::/32, RFC 3849
            continue
        mapped = addr.ipv4_mapped
        if mapped is not None:
            a, b, c, d = mapped.packed
            if not ipv4_identifies((a, b, c, d)):
                continue
        return True
    return False


_HEX = frozenset("0123456789abcdefABCDEF")
_UUID_GROUPS = (8, 4, 4, 4, 12)
_MAC_GROUPS = (2, 2, 2, 2, 2, 2)


def hex_groups(text: str, sizes: tuple[int, ...], seps: str, glued: frozenset[str]) -> list[str]:
    """Each run of hex-digit groups of `sizes` joined by one of `seps` (the same one throughout)
    with no character of `glued` on either side, in the order of the text.

    What `re.finditer(_UUID)` (`sizes` 8-4-4-4-12, `-`, hex digits) and
    `re.finditer(_MAC)` (six of 2, `:` or `-`, hex digits and both separators)
    find, without compiling either: the runs are fixed in length and cannot
    overlap, since neither may be glued to a character it is made of.
    """
    length = sum(sizes) + len(sizes) - 1
    found: list[tuple[int, str]] = []
    for sep in seps:
        at = text.find(sep)
        while at != -1:
            start, end = at - sizes[0], at - sizes[0] + length
            if (
                start >= 0
                and end <= len(text)
                and (start == 0 or text[start - 1] not in glued)
                and (end == len(text) or text[end] not in glued)
                and _hex_groups_at(text, start, sizes, sep)
            ):
                found.append((start, text[start:end]))
            at = text.find(sep, at + 1)
    return [run for _, run in sorted(found)]


def _hex_groups_at(text: str, start: int, sizes: tuple[int, ...], sep: str) -> bool:
    at = start
    for i, size in enumerate(sizes):
        if i:
            if text[at] != sep:
                return False
            at += 1
        if not _HEX.issuperset(text[at : at + size]):
            return False
        at += size
    return True


def _mac(text: str) -> bool:
    for run in hex_groups(text, _MAC_GROUPS, ":-", _HEX | {":", "-"}):
        value = run.lower().replace("-", ":")
        if value in ("00:00:00:00:00:00", "ff:ff:ff:ff:ff:ff"):
            continue
        if value.startswith("00:00:5e:00:53:"):  # RFC 7042 documentation range
            continue
        return True
    return False


def _uuid(text: str) -> bool:
    for run in hex_groups(text, _UUID_GROUPS, "-", _HEX):
        digits = run.replace("-", "").lower()
        if digits not in ("0" * 32, "f" * 32):  # the nil and max UUIDs
            return True
    return False


def _ends_in_a_number(host: str) -> bool:
    """True when a URL parser reads `host` as an IPv4 address (or refuses it): its last label is
    digits, or `0x` and hex digits (the WHATWG URL standard's "ends in a number")."""
    labels = host.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1].lower()
    if last.isdigit() and last.isascii():
        return True
    return last[:2] == "0x" and _HEX.issuperset(last[2:])


def url_ipv4(host: str) -> tuple[int, int, int, int] | None:
    """The address a URL parser reads from `host`, else `None` (not an address, or not valid).

    The WHATWG URL standard's IPv4 parser, the one browsers, `curl` and
    `inet_aton` agree on: one to four parts, each decimal, octal (a leading
    `0`) or hexadecimal (`0x`); the last part fills the bytes the others left
    (`http://2130706433/`, `http://10.1/`, `http://0x7f.1/`, `http://012.0.0.1/`).
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    numbers = []
    for part in parts:
        lowered = part.lower()
        if lowered[:2] == "0x":
            digits, base = lowered[2:], 16
            valid = _HEX.issuperset(digits)
        elif len(lowered) > 1 and lowered[0] == "0":
            digits, base = lowered[1:], 8
            valid = all("0" <= ch <= "7" for ch in digits)
        else:
            digits, base = lowered, 10
            valid = digits.isdigit() and digits.isascii()
        if not valid or len(digits) > 32:
            return None
        numbers.append(int(digits, base) if digits else 0)
    *first, last = numbers
    if any(n > 255 for n in first) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last
    for i, n in enumerate(first):
        value += n << (8 * (3 - i))
    return (value >> 24, (value >> 16) & 255, (value >> 8) & 255, value & 255)


def _is_private_host(scheme: str, host: str) -> bool:
    if host.startswith("["):
        return False  # an IP literal: the address checks judge it
    name = host.rstrip(".")
    lowered = name.lower()
    if not lowered or _ends_in_a_number(lowered):
        return False  # empty, or an IPv4 address in one of its forms: the address checks judge it
    if lowered == "localhost" or _is_doc_domain(lowered):
        return False
    if "." not in lowered:
        if not _network_scheme(scheme) or lowered in _PLACEHOLDER_HOSTS:
            return False
        return not name.isupper()  # `http://HOST:PORT/` is a placeholder
    if lowered.endswith(".home.arpa"):  # RFC 8375, the home network's own domain
        return True
    return lowered.rsplit(".", 1)[-1] in _PRIVATE_SUFFIXES


def _dotted_decimal(host: str) -> bool:
    """Whether `host` is four decimal parts with no leading zero: the form `_ipv4` judges."""
    parts = host.split(".")
    return len(parts) == 4 and all(
        p.isascii() and p.isdigit() and len(p) <= 3 and (p == "0" or p[0] != "0") for p in parts
    )


def _url_ipv4(text: str) -> bool:
    """True when a network URL's host is an IPv4 address that identifies a host, in any form a URL
    parser reads (`_ipv4` finds the dotted decimal form anywhere; this, the rest)."""
    for m in compiled("url-host", _URL).finditer(text):
        host = m.group(2)
        if not _network_scheme(m.group(1)) or not _ends_in_a_number(host):
            continue
        if m.end(2) < len(text) and text[m.end(2)] not in _HOST_ENDS:
            continue
        if _dotted_decimal(host.rstrip(".")):
            continue  # `_ipv4` judged it, with its CIDR ranges (`http://10.0.0.0/8` passes)
        octets = url_ipv4(host)
        if octets is not None and ipv4_identifies(octets):
            return True
    return False


def _private_host(text: str, lowered: str) -> bool:
    if "://" in text:
        for m in compiled("url-host", _URL).finditer(text):
            if _is_private_host(m.group(1), m.group(2)):
                return True
    if any("." + s in lowered for s in _PRIVATE_SUFFIXES):
        for m in compiled("bare-host", _BARE_HOST).finditer(text):
            suffix, port = m.group(1).lower(), m.group(2)
            if suffix in _PORT_ONLY_SUFFIXES and port is None:
                continue
            if _is_doc_domain(m.group(0).split(":", 1)[0]):
                continue
            return True
    return False


def find_network(text: str, lowered: str) -> str | None:
    """The kind of the first identity or network identifier in `text`, else `None`."""
    if ("//" in text or "." in text) and _private_host(text, lowered):
        return PRIVATE_HOST
    if "@" in text and _email(text):
        return EMAIL
    if "." in text and _ipv4(text):
        return IPV4
    if "://" in text and _url_ipv4(text):
        return IPV4
    colons = text.count(":")
    if ("::" in text or colons >= 7) and _ipv6(text):
        return IPV6
    dashes = text.count("-")
    if (colons >= 5 or dashes >= 5) and _mac(text):
        return MAC
    if dashes >= 4 and _uuid(text):
        return UUID
    return None
