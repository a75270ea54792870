"""The secret table: token shapes, each naming the public scanner rule its shape comes from.

The shapes are public facts catalogued by gitleaks (`config/gitleaks.toml`);
the expressions are our own. Each rule has:

- `id`: the gitleaks rule id where there is one (`source` is then
  `gitleaks:<id>`), else our own id and the other scanner's rule in `source`;
- `kind`: what a refusal names (`secret: github token`), never the match;
- `keywords`: lower-case strings, one of which must occur in the lower-cased
  text before the rule's expression runs (the prefilter: most notes hold none,
  so most rules are never compiled, let alone run);
- `pattern`: the expression, flags inline, every quantifier bounded;
- `cased`: the keywords are looked for in upper case in the text as written
  (`SK`, `AC`: two letters that, ignoring case, most prose holds);
- `confirm`: for rules that see a name and a value, a check that the value is
  a literal secret and not a placeholder, a lookup or a word;
- `named`: the rule's evidence is a name and the value after it (a password,
  an assignment, a header), not the token's own shape. Such a rule does not
  judge a text unwrapped (`find_secret(..., shapes_only=True)`): a line
  break after a value glues the next line's first word onto it.

Prefixed shapes (`ghp_`, `glpat-`, `xoxb-`, ...) need no entropy floor: the
prefix is the evidence, so `ghp_` and 36 of one letter is refused.

Invariant: `find_secret` answers with a rule or `None`; the matched text never
leaves this module.
"""

from __future__ import annotations

from abcd.gate.compiled import compiled
from abcd.gate.limits import BARE_VALUE_MIN_CHARS, GENERIC_VALUE_MIN_CHARS
from abcd.gate.literal import is_literal_secret, is_placeholder_password, looks_random_letters
from abcd.gate.shape import Chain, Either, Shape

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

    Confirm = Callable[[str, re.Match[str]], bool]


class SecretRule:
    """One row of the table (see the module docstring for the fields)."""

    __slots__ = (
        *("_pattern", "cased", "confirm", "id", "keywords", "kind", "named", "shape", "source"),
    )

    def __init__(
        self,
        id: str,
        kind: str,
        keywords: tuple[str, ...],
        pattern: str | Shape | Chain | Either,
        *,
        source: str = "",
        confirm: Confirm | None = None,
        cased: bool = False,
        named: bool = False,
    ) -> None:
        self.id = id
        self.cased = cased
        self.named = named
        self.kind = kind
        self.source = source or f"gitleaks:{id}"
        self.keywords = keywords
        self.shape = pattern if isinstance(pattern, (Shape, Chain, Either)) else None
        self._pattern = pattern if isinstance(pattern, str) else ""
        self.confirm = confirm

    @property
    def pattern(self) -> str:
        """The rule as a regular expression (for a `Shape`, `Chain` or `Either`, the same written as one)."""
        if self.shape is not None:
            return self.shape.regex()
        return self._pattern

    def __repr__(self) -> str:
        return f"SecretRule({self.id!r})"


def _shaped(
    id: str,
    kind: str,
    shape: Shape | Chain | Either,
    *,
    keywords: tuple[str, ...] = (),
    source: str = "",
    cased: bool = False,
) -> SecretRule:
    """A rule that is a `Shape`; its keywords are its prefixes, lower-cased, unless given
    (a stem the prefixes share keeps the list short)."""
    keywords = keywords or tuple(dict.fromkeys(p.lower() for p in shape.prefixes))
    return SecretRule(id, kind, keywords, shape, source=source, cased=cased)


def _not_aws_example(text: str, match: re.Match[str]) -> bool:
    # AWS's own documentation key ends in EXAMPLE (gitleaks allowlists it too).
    return not match.group(0).endswith("EXAMPLE")


def _literal_value(text: str, match: re.Match[str]) -> bool:
    return is_literal_secret(match.group(1), text[match.end(1) : match.end(1) + 1])


def _real_password(text: str, match: re.Match[str]) -> bool:
    value = match.group(1)
    if value.split("?", 1)[0].split("#", 1)[0].isdigit():
        return False  # `host:8080?q=a@b`: a port and a query, not a password
    return not is_placeholder_password(value)


def _flag_password(text: str, match: re.Match[str]) -> bool:
    # After a flag the value may be prose (`pass --password to set it`): a
    # plain word passes unless it reads as random letters.
    value = match.group(1)
    if value.isalpha() and not looks_random_letters(value):
        return False
    return _real_password(text, match)


def _literal_cookie(text: str, match: re.Match[str]) -> bool:
    return is_literal_secret(match.group(1), text[match.end(1) : match.end(1) + 1])


# The last word of a name that says what the value is when it is not the
# secret itself: a count, a digest, a name, a path, a time, or what holds it (`input_tokens`,
# `token_sha`, `secret_name`, `password_hash`, `key_file`, `token_ttl`).
_NOT_SECRET_WORDS = frozenset(
    (
        *("tokens", "count", "counts", "len", "length", "size", "limit", "max", "min", "budget"),
        *("hash", "hashes", "hashed", "digest", "sha", "sha1", "sha256", "md5", "checksum"),
        *("name", "names", "file", "path", "dir", "url", "uri", "id", "ids", "type", "kind"),
        *("env", "var", "ttl", "expiry", "expires", "at", "header", "field", "format", "prefix"),
        *("version", "rotation", "arn", "ref", "label", "policy", "algorithm", "alg", "usage"),
        # what holds, serves or owns the secret, not the secret
        *("service", "server", "manager", "store", "provider", "endpoint", "host", "user"),
        *("username", "account", "role", "scope", "scopes", "issuer", "audience"),
    )
)


# A value as the name-and-value rule reads one (`(?a)`: `\w` is ASCII), and the same as sets
# for prose, read by hand (`_leading_value`).
_VALUE = r"[\w+~!@#^&*-][\w+/=~.!@#$%^&*-]{0,199}"
_VALUE_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+~!@#^&*-")
_VALUE_REST = _VALUE_FIRST | frozenset("/=.$%")
_VALUE_MAX_CHARS = 200
# Prose joins a name to its value with a verb (`the token is ...`), after at most
# `_PROSE_WORDS_MAX` other words (`the API key for the staging cluster is ...`).
_SAID = frozenset(("is", "was", "are", "equals"))
_SAID_THEN = frozenset(("now", "still", "currently"))  # `is now ...`
_SET = frozenset(("set", "changed", "rotated"))  # `set to ...`, `was rotated to ...`
_PROSE_WORDS_MAX = 4
_PROSE_READ_CHARS = 200


def _assigned_secret(text: str, match: re.Match[str]) -> bool:
    last = last_word(match.group("name"))
    if last is not None and last.lower() in _NOT_SECRET_WORDS:
        return False
    value = match.group("value")
    if value is None:  # a name, a space, and prose after it
        return _said_secret(text[match.end() : match.end() + _PROSE_READ_CHARS])
    return _secret_value(value, text[match.end("value") : match.end("value") + 1])


def _secret_value(value: str, following: str, floor: int = GENERIC_VALUE_MIN_CHARS) -> bool:
    if "EXAMPLE" in value:
        return False  # AWS's documentation keys (`...EXAMPLE`, `...EXAMPLEKEY`)
    return len(value) >= floor and is_literal_secret(value, following)


def _value_in(word: str, floor: int) -> bool:
    """Whether the value that starts `word` (after an opening quote) is a literal secret."""
    word = word.lstrip("\"'`")
    value = _leading_value(word)
    return bool(value) and _secret_value(value, word[len(value) : len(value) + 1], floor)


def _leading_value(word: str) -> str:
    """The value `word` starts with, as `_VALUE` matches it there (`""` if none), without
    compiling it."""
    if not word or word[0] not in _VALUE_FIRST:
        return ""
    end, stop = 1, min(len(word), _VALUE_MAX_CHARS)
    while end < stop and word[end] in _VALUE_REST:
        end += 1
    return word[:end]


def _said_secret(after: str) -> bool:
    """Whether the prose `after` a name gives its value: right away (`use the token VALUE`,
    judged from `BARE_VALUE_MIN_CHARS` on, as prose names things that way too: `the token
    service auth-svc-v2`), or after a verb, the words before it plain words (`the token is
    VALUE`, `the API key for staging was rotated to: VALUE`), or after plain words the last
    of which ends in a colon (`the password for prod: VALUE`). A first word that says what the
    value is not reads as part of the name (`the token count is 4096`)."""
    words = after.split("\n", 1)[0].split(None, _PROSE_WORDS_MAX + 4)
    if not words:
        return False
    if _value_in(words[0], BARE_VALUE_MIN_CHARS):
        return True
    if words[0].lower() in _NOT_SECRET_WORDS:
        return False
    for at, word in enumerate(words[: _PROSE_WORDS_MAX + 1]):
        verb, rest = word.lower().rstrip(":"), words[at + 1 :]
        if verb in _SET and rest[:1] and rest[0].lower().rstrip(":") == "to":
            rest = rest[1:]
        elif verb in _SAID:
            if rest[:1] and rest[0].lower() in _SAID_THEN:
                rest = rest[1:]
            elif rest[1:2] and rest[0].lower() in _SET and rest[1].lower().rstrip(":") == "to":
                rest = rest[2:]
        elif word.replace("-", "").isalpha() and len(word) <= 16:
            continue  # a word between the name and its verb
        elif word[:-1].replace("-", "").isalpha() and word[-1] == ":" and len(word) <= 17:
            pass  # a colon ends the name's words as a verb does: `the password for prod: VALUE`
        else:
            return False  # the sentence went on without giving a value
        if rest[:1] == [":"]:
            rest = rest[1:]
        return bool(rest) and _value_in(rest[0], GENERIC_VALUE_MIN_CHARS)
    return False


# The last word of a snake, kebab, dotted or camelCase name; `last_word` finds
# what `re.search(_LAST_WORD, name)` finds, without compiling it.
_LAST_WORD = r"(?a)(?:[A-Z]?[a-z0-9]{1,40}|[A-Z0-9]{1,40})$"
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER_DIGITS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_UPPER_DIGITS = _UPPER | frozenset("0123456789")


def last_word(name: str) -> str | None:
    """The last word of `name` (which holds no newline), as `_LAST_WORD` finds it: the end of
    the name from the leftmost place where the rest is one word, else `None`."""
    for start in range(max(0, len(name) - 41), len(name)):
        tail = name[start:]
        if len(tail) <= 40 and (_LOWER_DIGITS.issuperset(tail) or _UPPER_DIGITS.issuperset(tail)):
            return tail
        if tail[0] in _UPPER and _LOWER_DIGITS.issuperset(tail[1:]):
            return tail
    return None


_B62 = "A-Za-z0-9"
_W = "A-Za-z0-9_"  # what `\b` calls a word character
_HEX = "a-f0-9"
_B64URL = "A-Za-z0-9_-"
_DIGITS = "0-9"  # `\d` under `(?a)`

GITHUB = "secret: github token"
GITLAB = "secret: gitlab token"
SLACK = "secret: slack token"

# Order matters only for the kind named when two rules could match the same
# text: specific shapes first, the name-and-value rules last.
RULES: tuple[SecretRule, ...] = (
    # --- cloud
    SecretRule(
        "aws-access-token",
        "secret: aws access key",
        ("a3t", "akia", "asia", "abia", "acca"),
        r"(?a)\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
        confirm=_not_aws_example,
    ),
    _shaped("gcp-api-key", "secret: gcp api key", Shape(("AIza",), _B64URL, 35, before=_B64URL)),
    SecretRule(
        "azure-ad-client-secret",
        "secret: azure client secret",
        ("q~",),
        Chain(
            ("Q~",),
            (_W + "~.-", 31, 34),
            lead=((_W + "~.", 3), (_DIGITS, 1)),
            before=_W + "~.-",
            after=_W + "~.-",
        ),
    ),
    _shaped("digitalocean-pat", "secret: digitalocean token", Shape(("dop_v1_",), _HEX, 64)),
    _shaped(
        "digitalocean-access-token", "secret: digitalocean token", Shape(("doo_v1_",), _HEX, 64)
    ),
    _shaped(
        "databricks-api-token", "secret: databricks token", Shape(("dapi",), _HEX, 32, before=_W)
    ),
    _shaped(
        "vault-service-token", "secret: vault token", Shape(("hvs.",), _B64URL, 90, 120, before=_W)
    ),
    _shaped(
        "doppler-api-token",
        "secret: doppler token",
        Shape(("dp.pt.",), "a-z0-9", 43, fold_case=True),
    ),
    # --- version control
    _shaped("github-pat", GITHUB, Shape(("ghp_",), _B62, 36)),
    _shaped("github-oauth", GITHUB, Shape(("gho_",), _B62, 36)),
    _shaped("github-app-token", GITHUB, Shape(("ghu_", "ghs_"), _B62, 36)),
    _shaped("github-refresh-token", GITHUB, Shape(("ghr_",), _B62, 36)),
    _shaped("github-fine-grained-pat", GITHUB, Shape(("github_pat_",), _W, 82)),
    _shaped("gitlab-pat", GITLAB, Shape(("glpat-",), _B64URL, 20)),
    _shaped("gitlab-ptt", GITLAB, Shape(("glptt-",), "0-9a-f", 40)),
    _shaped("gitlab-rrt", GITLAB, Shape(("GR1348941",), _B64URL, 20)),
    _shaped("gitlab-deploy-token", GITLAB, Shape(("gldt-",), _B64URL, 20)),
    _shaped("gitlab-runner-authentication-token", GITLAB, Shape(("glrt-",), _B64URL, 20)),
    _shaped("gitlab-feed-token", GITLAB, Shape(("glft-",), _B64URL, 20)),
    _shaped("gitlab-scim-token", GITLAB, Shape(("glsoat-",), _B64URL, 20)),
    _shaped("gitlab-oauth-app-secret", GITLAB, Shape(("gloas-",), _B64URL, 64)),
    _shaped(
        "gitlab-cicd-job-token",
        GITLAB,
        Chain(("glcbt-",), (_B62, 1, 5), "_", (_B64URL, 20, 20)),
    ),
    _shaped("gitlab-incoming-mail-token", GITLAB, Shape(("glimt-",), _B64URL, 25)),
    _shaped("gitlab-kubernetes-agent-token", GITLAB, Shape(("glagent-",), _B64URL, 50)),
    _shaped("gitlab-feature-flag-client-token", GITLAB, Shape(("glffct-",), _B64URL, 20)),
    # --- chat
    _shaped(
        "slack-bot-token",
        SLACK,
        Chain(("xoxb-",), (_DIGITS, 8, 14), "-", (_B62 + "-", 8, 100)),
    ),
    _shaped(
        "slack-user-token",
        SLACK,
        Chain(
            ("xoxp-", "xoxe-"),
            *((_DIGITS, 8, 14), "-", (_DIGITS, 8, 14), "-", (_B62 + "-", 8, 100)),
        ),
    ),
    _shaped(
        "slack-legacy-token",
        SLACK,
        Chain(
            ("xoxo-", "xoxs-"),
            *((_DIGITS, 1, 14), "-", (_DIGITS, 1, 14), "-", (_DIGITS, 1, 14), "-"),
            ("a-fA-F0-9", 8, 64),
        ),
    ),
    SecretRule(
        "slack-legacy-workspace-token",
        SLACK,
        ("xoxa-", "xoxr-"),
        Either(
            Chain(("xoxa-", "xoxr-"), (_DIGITS, 1, 1), "-", (_B62, 8, 48)),
            Chain(("xoxa-", "xoxr-"), (_B62, 8, 48)),
        ),
    ),
    _shaped(
        "slack-app-token",
        SLACK,
        Chain(
            ("xapp-",),
            *((_DIGITS, 1, 1), "-", ("A-Z0-9", 4, 32), "-", (_DIGITS, 4, 32), "-"),
            ("A-Z0-9", 8, 128),
            fold_case=True,
        ),
    ),
    _shaped(
        "slack-config-access-token",
        SLACK,
        Shape(
            tuple(f"xoxe.xox{t}-{d}-" for t in "bp" for d in "0123456789"),
            "A-Z0-9",
            150,
            170,
            fold_case=True,
        ),
        keywords=("xoxe.xoxb-", "xoxe.xoxp-"),
    ),
    _shaped(
        "slack-config-refresh-token",
        SLACK,
        Shape(tuple(f"xoxe-{d}-" for d in "0123456789"), "A-Z0-9", 140, 150, fold_case=True),
        keywords=("xoxe-",),
    ),
    _shaped(
        "slack-webhook-url",
        "secret: slack webhook url",
        Shape(
            tuple(f"hooks.slack.com/{p}/" for p in ("services", "workflows", "triggers")),
            "A-Za-z0-9+/_-",
            20,
            120,
            fold_case=True,
        ),
        keywords=("hooks.slack.com",),
    ),
    # --- payment and commerce
    _shaped(
        "stripe-access-token",
        "secret: stripe key",
        Shape(
            ("sk_test_", "sk_live_", "sk_prod_", "rk_test_", "rk_live_", "rk_prod_"),
            _B62,
            10,
            99,
            before=_B62,
        ),
        keywords=("sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod"),
    ),
    _shaped("shopify-access-token", "secret: shopify token", Shape(("shpat_",), "a-fA-F0-9", 32)),
    _shaped("shopify-shared-secret", "secret: shopify token", Shape(("shpss_",), "a-fA-F0-9", 32)),
    _shaped(
        "sendgrid-api-token",
        "secret: sendgrid api key",
        Chain(("SG.",), (_B64URL, 20, 24), ".", (_B64URL, 40, 45), before=_W),
    ),
    # --- AI providers
    _shaped(
        "anthropic-admin-api-key",
        "secret: anthropic api key",
        Chain(("sk-ant-admin",), (_DIGITS, 2, 2), "-", (_B64URL, 32, 200)),
    ),
    _shaped(
        "anthropic-api-key",
        "secret: anthropic api key",
        Chain(("sk-ant-",), ("a-z", 2, 8), (_DIGITS, 2, 2), "-", (_B64URL, 32, 200)),
    ),
    SecretRule(
        "openai-api-key",
        "secret: openai api key",
        ("sk-",),
        # project, service-account and admin keys; the legacy key with the
        # T3BlbkFJ marker; and the older legacy key, `sk-` and 32 to 64 alphanumerics.
        r"(?a)(?<![\w-])sk-(?:(?:proj|svcacct|admin)-[\w-]{40,300}"
        r"|[^\W_]{20}T3BlbkFJ[^\W_]{20}"
        r"|[^\W_]{32,64}(?![\w-]))",
    ),
    _shaped(
        "huggingface-access-token",
        "secret: hugging face token",
        Shape(("hf_",), _B62, 34, before=_W),
    ),
    _shaped(
        "huggingface-organization-api-token",
        "secret: hugging face token",
        Shape(("api_org_",), _B62, 34, before=_W),
    ),
    # --- package registries
    _shaped("npm-access-token", "secret: npm token", Shape(("npm_",), _B62, 36, before=_W)),
    _shaped(
        "pypi-upload-token",
        "secret: pypi token",
        # The macaroon's first bytes are base64 of its location: pypi.org or test.pypi.org.
        Shape(("pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"), _B64URL, 50, 1000),
        keywords=("pypi-age",),
    ),
    # --- keys and signed tokens
    SecretRule(
        "private-key",
        "secret: private key",
        ("---begin", "--- begin"),
        # The header alone is enough: a note has no reason to hold any part of a key.
        # Three to five dashes, a space or none (`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`).
        r"(?ai)-{3,5} ?BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)? ?-{3,5}",
    ),
    _shaped(
        "age-secret-key",
        "secret: age secret key",
        Shape(("AGE-SECRET-KEY-1",), "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
    ),
    SecretRule(
        "jwt",
        "secret: jwt",
        # The header ends where the payload begins: `.ey` (base64 of `{"`) is rare in prose.
        (".ey",),
        Chain(("ey",), (_B64URL, 17, 2000), ".ey", (_B64URL, 17, 4000), before=_B64URL),
    ),
    SecretRule(
        "der-private-key",
        "secret: private key",
        ("mii", "mig", "caq"),
        # A private key's DER body, base64 without its PEM header (`PRIVATE_KEY=MII...`):
        # a SEQUENCE whose first element is the version INTEGER 0 or 1 (PKCS#1,
        # PKCS#8, SEC1), in its long, 0x81 and short length forms. Public keys
        # and certificates start with a SEQUENCE instead (`MIIBIjAN`, `MIIDXTCC`).
        r"(?a)(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{2}[AQgw]IBA[AD]|MIG[A-Za-z0-9+/]AgE[AB]"
        r"|M[A-Za-z0-9+/]{2}CAQ[AE])[A-Za-z0-9+/]{40,4000}",
        source="abcd:der-private-key",
    ),
    _shaped(
        "openssh-private-key-body",
        "secret: private key",
        # An OpenSSH private key's body without its header: base64 of `openssh-key-v1` and a NUL.
        Shape(("b3BlbnNzaC1rZXktdjE",), "A-Za-z0-9+/=", 20, 4000),
        source="abcd:openssh-private-key-body",
    ),
    SecretRule(
        "putty-private-key",
        "secret: private key",
        ("putty-user-key-file-",),
        # A PuTTY key file's first line, like a PEM header, is enough.
        Chain(("PuTTY-User-Key-File-",), (_DIGITS, 1, 2), ":", fold_case=True),
        source="abcd:putty-private-key",
    ),
    SecretRule(
        "azure-storage-key",
        "secret: azure storage key",
        ("accountkey=", "sharedaccesskey="),
        Either(
            Chain(("AccountKey=",), ("A-Za-z0-9+/", 86, 86), "==", fold_case=True),
            Chain(("SharedAccessKey=",), ("A-Za-z0-9+/=", 40, 50), fold_case=True),
        ),
        source="detect-secrets:AzureStorageKeyDetector",
    ),
    _shaped(
        "azure-sas-token",
        "secret: azure sas signature",
        # A shared access signature's `sig=` parameter: base64 of an HMAC-SHA256,
        # percent-encoded or not, after `?`, `&` or `;`.
        Shape(("?sig=", "&sig=", ";sig="), "A-Za-z0-9%+/=", 40, 120),
        keywords=("sig=",),
        source="abcd:azure-sas-token",
    ),
    _shaped(
        "stripe-webhook-secret",
        "secret: stripe key",
        Shape(("whsec_",), "A-Za-z0-9+/=", 32, 88, before=_W),
        source="abcd:stripe-webhook-secret",
    ),
    _shaped(
        "gcp-oauth-client-secret",
        "secret: google oauth client secret",
        Shape(("GOCSPX-",), _B64URL, 28),
        source="abcd:gcp-oauth-client-secret",
    ),
    _shaped(
        "twilio-api-key",
        "secret: twilio key",
        Shape(("SK",), "0-9a-fA-F", 32, before=_B62, after=_B62),
        cased=True,
    ),
    _shaped(
        "twilio-account-sid",
        "secret: twilio key",
        Shape(("AC",), "0-9a-f", 32, before=_B62, after=_B62),
        source="detect-secrets:TwilioKeyDetector",
        cased=True,
    ),
    SecretRule(
        "telegram-bot-api-token",
        "secret: telegram bot token",
        (":a",),
        # gitleaks wants `telegr` nearby; the shape alone is specific enough.
        r"(?a)(?<!\d)\d{5,16}:A[\w-]{34}(?![\w-])",
        cased=True,
    ),
    _shaped(
        "mailgun-private-api-token",
        "secret: mailgun key",
        # gitleaks wants `mailgun` nearby; `key-` and 32 hex is specific enough.
        Shape(("key-",), "0-9a-f", 32, before=_B64URL, after=_B64URL),
    ),
    SecretRule(
        "mailgun-signing-key",
        "secret: mailgun key",
        ("mailgun",),
        r"(?ai)mailgun[\w.-]{0,40}[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?"
        r"[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}",
    ),
    # --- a name and a value
    SecretRule(
        "url-password",
        "secret: password in url",
        ("://",),
        # The password may hold `?`, `#` and `:` (written raw, as people do) or be
        # percent-encoded; it ends at the last `@` before the host.
        r"""(?ai)\b[a-z][a-z0-9+.-]{0,30}://[^\s:/?#@"'<>]{0,128}:([^\s/@"'<>]{1,256})@""",
        source="detect-secrets:BasicAuthDetector",
        confirm=_real_password,
        named=True,
    ),
    SecretRule(
        "authorization-header",
        "secret: authorization header",
        ("authorization",),
        r"""(?ai)\bauthorization["']?[ \t]{0,4}[:=][ \t]{0,4}["']?"""
        r"(?:bearer|basic|token|digest|apikey)[ \t]{1,4}([\w+/=~.-]{8,2000})",
        source="gitleaks:curl-auth-header",
        confirm=_literal_value,
        named=True,
    ),
    SecretRule(
        "curl-auth-user",
        "secret: password on a command line",
        ("curl",),
        # `curl -u user:password` / `--user=user:password`; `-u user` alone prompts.
        r"""(?a)\bcurl\b[^\n]{0,300}?[ \t](?:-u|--user)(?:=|[ \t]{1,5})["']?"""
        r"""[^\s:"']{1,128}:([^\s"']{1,256})""",
        confirm=_real_password,
        named=True,
    ),
    SecretRule(
        "cli-password-flag",
        "secret: password on a command line",
        ("-pass", "-pwd"),
        # `--password X`, `--password=X`, `-password X`, `--db-pass X`; never
        # `--password-stdin` (a flag of its own) or `--password` alone.
        r"""(?ai)(?<![\w-])--?(?:[a-z0-9]{1,20}-)?(?:pass(?:w(?:or)?d|phrase)?|pwd)"""
        r"""(?:=|[ \t]{1,4})["']?([^\s"'-][^\s"']{0,255})""",
        source="abcd:cli-password-flag",
        confirm=_flag_password,
        named=True,
    ),
    SecretRule(
        "mysql-password-flag",
        "secret: password on a command line",
        ("mysql", "mariadb"),
        # The MySQL clients take the password glued to `-p` (`-pS3cret`); `-p` alone prompts.
        r"""(?a)\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb)\b[^\n]{0,300}?"""
        r"""[ \t]-p["']?([^\s"'-][^\s"']{0,255})""",
        source="abcd:mysql-password-flag",
        confirm=_flag_password,
        named=True,
    ),
    SecretRule(
        "session-cookie",
        "secret: session cookie",
        ("sess", ".sid", "_sid", "sid=", "sid =", 'sid"', "sid'"),
        # `Cookie: sessionid=...`, `PHPSESSID=...`, `connect.sid=s%3A...`,
        # `_gitlab_session=...`, `next-auth.session-token=...`: a session
        # cookie is a bearer credential; the value must read as a literal. The
        # match starts at `sess`/`sid`: the name's first part changes nothing.
        r"""(?ai)(?:sess(?:ion)?|sid)"""
        r"""(?:[_.-]?(?:id|token|key|cookie))?["']?[ \t]{0,4}=[ \t]{0,4}["']?"""
        r"([\w%+/=.:~-]{16,512})",
        source="gitleaks:gitlab-session-cookie",
        confirm=_literal_cookie,
        named=True,
    ),
    SecretRule(
        "generic-api-key",
        "secret: credential assignment",
        (
            "passw",
            "passphrase",
            "pwd",
            "_pass",
            "-pass",
            ".pass",
            "secret",
            "token",
            "credential",
            "key",
        ),
        # name, up to 40 more name characters, an optional closing quote or
        # bracket, the operator, an optional opening quote, then the value.
        # `*_key`, `*_pass`, `private_key`, `pwd` are names too: `*_key` is
        # matched from its separator on (what comes before it changes nothing).
        # A name with no operator but a space after it is prose (`the API key
        # for staging is ...`), read on by `_said_secret`; the two-word names
        # come first, so `secret key: ...` is read whole.
        r"(?ai)(?P<name>(?:(?:api|access|auth|private|secret|signing|encryption|master)[ _.-]?key"
        r"|passw(?:or)?d|passphrase|pwd|secret|token|credentials?"
        r"|(?<=[^\W_])[_.-](?:key|pass))"
        r"""[\w.-]{0,40})["'\]]{0,2}(?:[ \t]{0,4}(?::=|=>|==|=|:)[ \t]{0,4}["'`]?"""
        rf"(?P<value>{_VALUE})|(?=[ \t]))",
        confirm=_assigned_secret,
        named=True,
    ),
)


def find_secret(text: str, lowered: str, *, shapes_only: bool = False) -> SecretRule | None:
    """The first rule whose shape occurs in `text` (`lowered` is `text.lower()`), else `None`;
    with `shapes_only`, of the rules whose evidence is the token's shape (not `named`)."""
    for rule in RULES:
        if shapes_only and rule.named:
            continue
        if rule.cased:
            if not any(k.upper() in text for k in rule.keywords):
                continue
        elif not any(k in lowered for k in rule.keywords):
            continue
        if rule.shape is not None and rule.confirm is None:
            if rule.shape.search(text, lowered):
                return rule
            continue
        pattern = compiled(rule.id, rule.pattern)
        if rule.confirm is None:
            if pattern.search(text) is not None:
                return rule
            continue
        for match in pattern.finditer(text):
            if rule.confirm(text, match):
                return rule
    return None
