"""Secret-shaped samples, built at run time so that no secret-shaped literal sits in the repository.

Every generator takes a `random.Random` and returns a `Sample`: the `text` to
embed in a note and the `secret`, the part of it that must never be echoed
back (the random part, or the whole token when its prefix is part of it).
Prefixes are split across string concatenations (`"gh" + "p_"`) so that no
scanner finds a token shape in this file.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from typing import NamedTuple

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + DIGITS
B64URL = ALNUM + "_-"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


class Sample(NamedTuple):
    text: str
    secret: str


def rand(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def mixed(rng: random.Random, n: int) -> str:
    """`n` random alphanumerics holding at least one digit, one lower and one upper letter."""
    chars = [rng.choice(DIGITS), rng.choice(LOWER), rng.choice(UPPER)]
    chars += [rng.choice(ALNUM) for _ in range(n - 3)]
    rng.shuffle(chars)
    return "".join(chars)


def token(text: str) -> Sample:
    return Sample(text, text)


def prefixed(public: str, rest: str) -> Sample:
    """A token whose first part is a public marker; only `rest` is secret."""
    return Sample(public + rest, rest)


def _b64url(data: dict[str, object]) -> str:
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _jwt(rng: random.Random) -> Sample:
    header = _b64url({"alg": "HS256", "typ": "JWT"})
    payload = _b64url({"sub": rand(rng, 12), "iat": rng.randrange(10**9, 2 * 10**9)})
    value = f"{header}.{payload}.{rand(rng, 43, B64URL)}"
    return token(value)


def _openai(rng: random.Random) -> Sample:
    marker = "T3Blbk" + "FJ"
    shape = rng.randrange(3)
    if shape == 0:
        kind = rng.choice(["proj", "svcacct", "admin"])
        return token(
            "sk" + "-" + kind + "-" + rand(rng, 74, B64URL) + marker + rand(rng, 74, B64URL)
        )
    if shape == 1:
        return token("sk" + "-" + rand(rng, 20) + marker + rand(rng, 20))
    return token("sk" + "-" + mixed(rng, 48))


def _private_key(rng: random.Random) -> Sample:
    label = rng.choice(["RSA ", "EC ", "OPENSSH ", "DSA ", "ENCRYPTED ", ""])
    body = rand(rng, 64, ALNUM + "+/")
    return Sample("-----" + "BEGIN " + label + "PRIVATE" + " KEY-----\n" + body, body)


def _url_password(rng: random.Random) -> Sample:
    scheme = rng.choice(
        ["postgres", "postgresql", "mysql", "https", "redis", "mongodb+srv", "amqp"]
    )
    password = mixed(rng, 14)
    return Sample(f"{scheme}://{rand(rng, 6, LOWER)}:{password}@db.example.com/app", password)


def _authorization(rng: random.Random) -> Sample:
    scheme = rng.choice(["Bearer", "Basic", "Token", "bearer"])
    value = mixed(rng, 32)
    quote = rng.choice(["", '"'])
    return Sample(f"{quote}Authorization{quote}: {quote}{scheme} {value}{quote}", value)


def random_letters(rng: random.Random, n: int) -> str:
    """`n` random letters whose case no word has (a lower letter, then two capitals)."""
    return (
        rng.choice(LOWER) + rng.choice(UPPER) + rng.choice(UPPER) + rand(rng, n - 3, LOWER + UPPER)
    )


def _generic(rng: random.Random) -> Sample:
    name = rng.choice(
        [
            "password",
            "api_key",
            "SECRET_KEY",
            "client_secret",
            "access_token",
            "db_password",
            "apiKey",
            "AWS_SECRET_ACCESS_KEY",
            "auth_key",
            "passphrase",
            "credentials",
            "pwd",
            "DB_PASS",
            "smtp_pass",
            "signing_key",
            "private_key",
            "STRIPE_KEY",
        ]
    )
    size = rng.randrange(16, 41)
    value = random_letters(rng, size) if rng.randrange(3) == 0 else mixed(rng, size)
    said = rng.choice(
        ["API key", "access key", "secret key", "password", "token", "client secret", "passphrase"]
    )
    forms = (
        f"{name} = {value}",
        f"{name}: {value}",
        f'"{name}": "{value}"',
        f"export {name.upper()}={value}",
        f"{name} := '{value}'",
        # Notes are prose: the name as a person writes it, the operator a word or nothing.
        f"the {said} is {value}",
        f"the staging {said} for the deploy job was rotated to '{value}'",
        f"{said.capitalize()}: {value}",
        f"log in with the {said} {value}",
    )
    return Sample(rng.choice(forms), value)


def _slack_webhook(rng: random.Random) -> Sample:
    path = (
        "T"
        + rand(rng, 8, UPPER + DIGITS)
        + "/B"
        + rand(rng, 8, UPPER + DIGITS)
        + "/"
        + mixed(rng, 24)
    )
    return Sample("https://hooks." + "slack.com/services/" + path, path)


def _der_private_key(rng: random.Random) -> Sample:
    b64 = ALNUM + "+/"
    head = rng.choice(
        [
            "MI" + "I" + rand(rng, 2, b64) + rng.choice("AQgw") + "IBA" + rng.choice("AD"),
            "MI" + "G" + rand(rng, 1, b64) + "AgE" + rng.choice("AB"),
            "M" + rand(rng, 2, b64) + "CA" + "Q" + rng.choice("AE"),
        ]
    )
    body = rand(rng, 56, b64)
    return Sample(rng.choice(["PRIVATE_KEY=", "key: ", ""]) + head + body, body)


def _putty(rng: random.Random) -> Sample:
    private = rand(rng, 64, ALNUM + "+/")
    text = (
        "PuTTY-User-"
        + "Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\n"
        + rand(rng, 64, ALNUM + "+/")
        + "\nPrivate-Lines: 1\n"
        + private
    )
    return Sample(text, private)


def _sas(rng: random.Random) -> Sample:
    sig = rand(rng, 40, ALNUM + "+/").replace("+", "%2B").replace("/", "%2F") + "%3D"
    text = "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&sig=" + sig
    return Sample(text, sig)


def _curl_user(rng: random.Random) -> Sample:
    password = mixed(rng, 14)
    flag = rng.choice(["-u ", "--user ", "--user="])
    return Sample(
        f"curl -s {flag}{rand(rng, 5, LOWER)}:{password} https://api.example.com", password
    )


def _password_flag(rng: random.Random) -> Sample:
    password = mixed(rng, 14)
    flag = rng.choice(["--password ", "--password=", "--db-pass ", "-pass ", "--pwd "])
    return Sample(f"run deploy {flag}{password} --yes", password)


def _mysql(rng: random.Random) -> Sample:
    password = mixed(rng, 12)
    tool = rng.choice(["mysql", "mysqldump", "mariadb"])
    return Sample(f"{tool} -h db -u app -p{password} appdb", password)


def _session_cookie(rng: random.Random) -> Sample:
    value = rand(rng, 32, LOWER + DIGITS)
    name = rng.choice(["sessionid", "PHPSESS" + "ID", "_gitlab_" + "session", "connect.sid"])
    return Sample(f"Cookie: {name}={value}; theme=dark", value)


Generator = Callable[[random.Random], Sample]

# One generator per rule id in `abcd.gate.secrets.RULES` (a test checks the two agree).
TRUE_SECRETS: dict[str, Generator] = {
    "aws-access-token": lambda r: token(
        r.choice(["AK" + "IA", "AS" + "IA"]) + rand(r, 16, UPPER + "234567")
    ),
    "gcp-api-key": lambda r: token("AI" + "za" + rand(r, 35, B64URL)),
    "azure-ad-client-secret": lambda r: token(
        rand(r, 3) + r.choice(DIGITS) + "Q" + "~" + rand(r, 31, ALNUM + "_~.-") + rand(r, 1)
    ),
    "digitalocean-pat": lambda r: token("dop" + "_v1_" + rand(r, 64, HEX)),
    "digitalocean-access-token": lambda r: token("doo" + "_v1_" + rand(r, 64, HEX)),
    "databricks-api-token": lambda r: token("da" + "pi" + rand(r, 32, HEX)),
    "vault-service-token": lambda r: token("hv" + "s." + rand(r, 95, B64URL)),
    "doppler-api-token": lambda r: token("dp.p" + "t." + rand(r, 43, LOWER + DIGITS)),
    "github-pat": lambda r: token("gh" + "p_" + rand(r, 36)),
    "github-oauth": lambda r: token("gh" + "o_" + rand(r, 36)),
    "github-app-token": lambda r: token("gh" + r.choice("us") + "_" + rand(r, 36)),
    "github-refresh-token": lambda r: token("gh" + "r_" + rand(r, 36)),
    # The public `github` of the prefix is also in the kind's name; the rest is the secret.
    "github-fine-grained-pat": lambda r: prefixed(
        "github", "_pat_" + rand(r, 22) + "_" + rand(r, 59)
    ),
    "gitlab-pat": lambda r: token("gl" + "pat-" + rand(r, 20, B64URL)),
    "gitlab-ptt": lambda r: token("gl" + "ptt-" + rand(r, 40, HEX)),
    "gitlab-rrt": lambda r: token("GR13" + "48941" + rand(r, 20, B64URL)),
    "gitlab-deploy-token": lambda r: token("gl" + "dt-" + rand(r, 20, B64URL)),
    "gitlab-runner-authentication-token": lambda r: token("gl" + "rt-" + rand(r, 20, B64URL)),
    "gitlab-feed-token": lambda r: token("gl" + "ft-" + rand(r, 20, B64URL)),
    "gitlab-scim-token": lambda r: token("gl" + "soat-" + rand(r, 20, B64URL)),
    "gitlab-oauth-app-secret": lambda r: token("gl" + "oas-" + rand(r, 64, B64URL)),
    "gitlab-cicd-job-token": lambda r: token(
        "gl" + "cbt-" + rand(r, 3) + "_" + rand(r, 20, B64URL)
    ),
    "gitlab-incoming-mail-token": lambda r: token("gl" + "imt-" + rand(r, 25, B64URL)),
    "gitlab-kubernetes-agent-token": lambda r: token("gl" + "agent-" + rand(r, 50, B64URL)),
    "gitlab-feature-flag-client-token": lambda r: token("gl" + "ffct-" + rand(r, 20, B64URL)),
    "slack-bot-token": lambda r: token(
        "xo" + "xb-" + rand(r, 11, DIGITS) + "-" + rand(r, 12, DIGITS) + "-" + rand(r, 24)
    ),
    "slack-user-token": lambda r: token(
        "xo"
        + "x"
        + r.choice("pe")
        + "-"
        + rand(r, 11, DIGITS)
        + "-"
        + rand(r, 11, DIGITS)
        + "-"
        + rand(r, 12, DIGITS)
        + "-"
        + rand(r, 32, HEX)
    ),
    "slack-legacy-token": lambda r: token(
        "xo"
        + "x"
        + r.choice("os")
        + "-"
        + rand(r, 5, DIGITS)
        + "-"
        + rand(r, 6, DIGITS)
        + "-"
        + rand(r, 6, DIGITS)
        + "-"
        + rand(r, 20, HEX)
    ),
    "slack-legacy-workspace-token": lambda r: token(
        "xo" + "x" + r.choice("ar") + "-2-" + rand(r, 30)
    ),
    "slack-app-token": lambda r: token(
        "xa"
        + "pp-1-"
        + rand(r, 11, UPPER + DIGITS)
        + "-"
        + rand(r, 13, DIGITS)
        + "-"
        + rand(r, 64, LOWER + DIGITS)
    ),
    "slack-config-access-token": lambda r: token(
        "xo" + "xe.xox" + r.choice("bp") + "-1-" + rand(r, 164, UPPER + DIGITS)
    ),
    "slack-config-refresh-token": lambda r: token("xo" + "xe-1-" + rand(r, 146, UPPER + DIGITS)),
    "slack-webhook-url": _slack_webhook,
    "stripe-access-token": lambda r: token(
        r.choice(["sk", "rk"]) + "_" + r.choice(["live", "test", "prod"]) + "_" + rand(r, 24)
    ),
    "shopify-access-token": lambda r: token("shp" + "at_" + rand(r, 32, HEX)),
    "shopify-shared-secret": lambda r: token("shp" + "ss_" + rand(r, 32, HEX)),
    "sendgrid-api-token": lambda r: token(
        "SG" + "." + rand(r, 22, B64URL) + "." + rand(r, 43, B64URL)
    ),
    "anthropic-admin-api-key": lambda r: token("sk-" + "ant-admin01-" + rand(r, 93, B64URL) + "AA"),
    "anthropic-api-key": lambda r: token("sk-" + "ant-api03-" + rand(r, 93, B64URL) + "AA"),
    "openai-api-key": _openai,
    "huggingface-access-token": lambda r: token("h" + "f_" + rand(r, 34, string.ascii_letters)),
    "huggingface-organization-api-token": lambda r: token(
        "api" + "_org_" + rand(r, 34, string.ascii_letters)
    ),
    "npm-access-token": lambda r: token("np" + "m_" + rand(r, 36)),
    "pypi-upload-token": lambda r: token("pypi-" + "AgEIcHlw" + "aS5vcmc" + rand(r, 150, B64URL)),
    "private-key": _private_key,
    "age-secret-key": lambda r: token("AGE-SECRET-" + "KEY-1" + rand(r, 58, BECH32)),
    "jwt": _jwt,
    "url-password": _url_password,
    "authorization-header": _authorization,
    "der-private-key": _der_private_key,
    "openssh-private-key-body": lambda r: prefixed(
        "b3Blbn" + "NzaC1rZXktdjE", rand(r, 60, ALNUM + "+/")
    ),
    "putty-private-key": _putty,
    "azure-storage-key": lambda r: prefixed(
        "DefaultEndpointsProtocol=https;AccountName=acct;Account" + "Key=",
        rand(r, 86, ALNUM + "+/") + "==",
    ),
    "azure-sas-token": _sas,
    "stripe-webhook-secret": lambda r: token("wh" + "sec_" + rand(r, 32)),
    "gcp-oauth-client-secret": lambda r: token("GOC" + "SPX-" + rand(r, 28, B64URL)),
    "twilio-api-key": lambda r: token("S" + "K" + rand(r, 32, HEX)),
    "twilio-account-sid": lambda r: token("A" + "C" + rand(r, 32, HEX)),
    "telegram-bot-api-token": lambda r: token(
        rand(r, 10, DIGITS) + ":" + "A" + "A" + rand(r, 33, B64URL)
    ),
    "mailgun-private-api-token": lambda r: token("ke" + "y-" + rand(r, 32, HEX)),
    "mailgun-signing-key": lambda r: prefixed(
        "MAILGUN_SIGNING_KEY=",
        rand(r, 32, "abcdefgh0123456789")
        + "-"
        + rand(r, 8, "abcdefgh0123456789")
        + "-"
        + rand(r, 8, "abcdefgh0123456789"),
    ),
    "curl-auth-user": _curl_user,
    "cli-password-flag": _password_flag,
    "mysql-password-flag": _mysql,
    "session-cookie": _session_cookie,
    "generic-api-key": _generic,
}


def _near(prefix_parts: tuple[str, ...], body: str) -> str:
    return "".join(prefix_parts) + body


# Near misses and prose per rule: none of these may be refused at all.
FALSE_SECRETS: dict[str, list[str]] = {
    "aws-access-token": [
        _near(("AK", "IA"), "ABCDEFGHIJKLMNO"),  # 15, one short
        _near(("AK", "IA"), "IOSFODNN7" + "EXAMPLE"),  # AWS's documentation key
        "the AWS access key id starts with AKIA",
    ],
    "gcp-api-key": [_near(("AI", "za"), "Sy-short-key"), "GCP keys start with AIza"],
    "azure-ad-client-secret": ["abc1Q~short", "the secret contains Q~ after four characters"],
    "digitalocean-pat": [_near(("dop", "_v1_"), "abc123"), "DigitalOcean tokens start dop_v1_"],
    "digitalocean-access-token": [_near(("doo", "_v1_"), "nothex" * 11)],
    "databricks-api-token": ["the dapi prefix", _near(("da", "pi"), "0123456789abcdef")],
    "vault-service-token": ["Vault tokens look like hvs.<random>", _near(("hv", "s."), "short")],
    "doppler-api-token": ["Doppler tokens start dp.pt.", _near(("dp.p", "t."), "tooshort")],
    "github-pat": [
        "PATs look like ghp_ followed by 36 characters",
        _near(("gh", "p_"), "abc123"),
        "export GITHUB_TOKEN before running gh",
    ],
    "github-oauth": [_near(("gh", "o_"), "x" * 20), "gho_ tokens come from OAuth apps"],
    "github-app-token": ["ghs_ tokens are app installation tokens", _near(("gh", "u_"), "short")],
    "github-refresh-token": ["ghr_ means refresh", _near(("gh", "r_"), "abc")],
    "github-fine-grained-pat": ["fine-grained tokens start github_pat_ then 82 characters"],
    "gitlab-pat": ["GitLab PATs start glpat-", _near(("gl", "pat-"), "short")],
    "gitlab-ptt": ["trigger tokens start glptt-", _near(("gl", "ptt-"), "nothex" * 7)],
    "gitlab-rrt": ["registration tokens start GR1348941"],
    "gitlab-deploy-token": ["deploy tokens start gldt-"],
    "gitlab-runner-authentication-token": [
        "runner tokens start glrt-",
        _near(("gl", "rt-"), "abc"),
    ],
    "gitlab-feed-token": ["feed tokens start glft-"],
    "gitlab-scim-token": ["SCIM tokens start glsoat-"],
    "gitlab-oauth-app-secret": ["OAuth app secrets start gloas-", _near(("gl", "oas-"), "x" * 30)],
    "gitlab-cicd-job-token": ["job tokens start glcbt-"],
    "gitlab-incoming-mail-token": ["mail tokens start glimt-"],
    "gitlab-kubernetes-agent-token": ["agent tokens start glagent-"],
    "gitlab-feature-flag-client-token": ["feature flag tokens start glffct-"],
    "slack-bot-token": [
        "bot tokens look like xoxb-...",
        "a xoxb- token for the bot",
        _near(("xo", "xb-"), "token-for-the-bot"),
    ],
    "slack-user-token": ["user tokens start xoxp-", _near(("xo", "xp-"), "user-token")],
    "slack-legacy-token": ["legacy xoxs- tokens", _near(("xo", "xo-"), "1-2-")],
    "slack-legacy-workspace-token": ["workspace tokens start xoxa-", _near(("xo", "xr-"), "short")],
    "slack-app-token": ["app-level tokens start xapp-"],
    "slack-config-access-token": ["config tokens start xoxe.xoxb-"],
    "slack-config-refresh-token": ["refresh tokens start xoxe-"],
    "slack-webhook-url": [
        "post to https://hooks.slack.com/services/... with curl",
        "see https://api.slack.com/messaging/webhooks",
    ],
    "stripe-access-token": [
        "Stripe secret keys start sk_live_ or sk_test_",
        _near(("sk", "_live_"), "short"),
        "the publishable key starts pk_live_",
    ],
    "shopify-access-token": ["Shopify admin tokens start shpat_"],
    "shopify-shared-secret": ["shared secrets start shpss_"],
    "sendgrid-api-token": ["SendGrid keys start SG. and have three parts", "e.g. SG.short.parts"],
    "anthropic-admin-api-key": ["admin keys start sk-ant-admin01-"],
    "anthropic-api-key": ["Anthropic keys start sk-ant-api03-", "set ANTHROPIC_API_KEY"],
    "openai-api-key": [
        "OpenAI keys start sk- or sk-proj-",
        "use sklearn, also called sk-learn or scikit-learn",
        _near(("sk", "-proj-"), "keys-are-scoped-to-projects"),
        "sk-" + "a" * 20,
    ],
    "huggingface-access-token": [
        "Hugging Face tokens start hf_",
        "call hf_hub_download(repo_id, filename)",
        "set HF_TOKEN in the environment",
    ],
    "huggingface-organization-api-token": ["org tokens start api_org_"],
    "npm-access-token": ["npm tokens start npm_", "npm_config_registry is an env var"],
    "pypi-upload-token": [
        "PyPI tokens start pypi-" + "AgEIcHlw" + "aS5vcmc and are long",
        "pypi-short",
    ],
    "private-key": [
        "a private key block starts with a BEGIN ... PRIVATE KEY header",
        "-----" + "BEGIN PUBLIC KEY-----",
        "-----" + "BEGIN CERTIFICATE-----",
    ],
    "age-secret-key": ["age identities start AGE-SECRET-" + "KEY-1"],
    "jwt": [
        "a JWT has three base64url parts separated by dots",
        "they obey the rules; the keys are eyes.only",
    ],
    "url-password": [
        "https://user:${TOKEN}@github.com/org/repo.git",
        "postgres://app:<password>@db.example.com/app",
        "https://oauth2:$GITLAB_TOKEN@gitlab.com/group/project.git",
        "ssh git@github.com:org/repo.git",
        "redis://:****@cache.example.com:6379",
        "http://localhost:8080/path@v2",
    ],
    "authorization-header": [
        "Authorization: Bearer <token>",
        "Authorization: Bearer $TOKEN",
        "Authorization: Bearer YOUR_API_TOKEN",
        "send an Authorization: Basic header",
        'headers={"Authorization": f"Bearer {token}"}',
    ],
    "der-private-key": [
        "-----"
        + "BEGIN PUBLIC KEY-----\nMIIBIj"
        + "ANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"
        + "x" * 40,
        "MIID" + "XTCCAkWgAwIBAgIJAJC1HiIAZAiIMA0GCSqGSIb3DQEBCwUAMEUxCzAJBgNV",
        "the DER body of a key starts with MII",
    ],
    "openssh-private-key-body": ["an OpenSSH key body begins b3Blbn... when base64-encoded"],
    "putty-private-key": ["convert the PuTTY key with puttygen", "a .ppk file is a PuTTY key"],
    "azure-storage-key": [
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=<key>",
        "AccountKey=${STORAGE_KEY}",
    ],
    "azure-sas-token": ["append the SAS token (sv=...&sig=...) to the blob URL", "?sig=short"],
    "stripe-webhook-secret": [
        "webhook secrets start whsec_",
        "STRIPE_WEBHOOK_SECRET=whsec_...",
        "whsec_" + "test_secret",
    ],
    "gcp-oauth-client-secret": ["client secrets start GOCSPX-", "GOCSPX-" + "test-secret"],
    "twilio-api-key": ["Twilio API keys start SK", "SKIP the flaky test", "ask for the SK value"],
    "twilio-account-sid": ["account SIDs start AC", "ACME Corp builds", "AC/DC"],
    "telegram-bot-api-token": ["bot tokens look like 123456:AA...", "at 12:30:AM we deploy"],
    "mailgun-private-api-token": ["Mailgun keys start key-", "primary key-value store"],
    "mailgun-signing-key": ["MAILGUN_SIGNING_KEY is read from the environment"],
    "curl-auth-user": [
        "curl -u $USER:$TOKEN https://api.example.com",
        "curl -u admin:changeme http://localhost:8080",
        "curl -u user:<password> https://api.example.com",
        "curl -u alice https://api.example.com",
        "curl --user-agent Mozilla https://example.com",
    ],
    "cli-password-flag": [
        "docker login --password-stdin < token.txt",
        "pass --password to set it",
        "run --password $DB_PASSWORD",
        "run --password=<password>",
        "git rebase --passes 3",
        "run --password DB_PASSWORD",
    ],
    "mysql-password-flag": [
        "mysql -u root -p appdb",
        "mysql -u root -p$MYSQL_PWD appdb",
        "mysqldump -P 3306 -h db appdb",
        "mysql --port 3306",
    ],
    "session-cookie": [
        "session = requests.Session()",
        "session_id = str(uuid4())",
        "the sessionid cookie is HttpOnly",
        "session_timeout=3600",
        "consider=this",
        "PHPSESSID=<session id>",
    ],
    "generic-api-key": [
        "input_tokens: 15873902",
        "token_sha: " + "3f2a9c1d" * 5,
        "secret_name: prod/db/credentials-2024",
        "password_hash = argon2id$v=19$m=65536,t=3,p=4$" + "c2FsdHNhbHQ$aGFzaGhhc2g",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        "ssh_key: ~/.ssh/id_ed25519",
        "sort_key = lambda item: item.name",
        "primary_key: true",
        "foreign_key = ForeignKey",
        "tokenizer_class: BertTokenizer",
        "password: correcthorsebatterystaple",
        "passwordHash: " + "9f86d081884c7d65" * 4,
        'password = os.environ["DB_PASSWORD"]',
        "token = <placeholder>",
        "password: changeme",
        "API_KEY and GITHUB_TOKEN are read from the environment",
        "token = os.getenv('GITHUB_TOKEN')",
        "secret_key = settings.SECRET_KEY",
        "api_key: ${API_KEY}",
        "token = get_token_v2",
        "max_tokens: 4096",
        "tokenizer: BertTokenizer",
        "secret: path/to/file.txt",
        "token: python3.11.7",
        "password: hunter22",
        "token = your-api-key-here",
        "the token: it expires after an hour",
        "password = xxxxxxxxxxxx",
        "token == expected_token",
        "secrets.token_hex(16)",
        # prose about credentials, with no credential in it
        "the token is passed in the Authorization header",
        "the API key is read from the environment, never from the repo",
        "the password is at least 12 characters long",
        "use the token bucket for rate limits; password reset emails go through the queue",
        "the secret manager is Vault and the token service is auth-svc-v2",
        "the access key for staging is AWS_ACCESS_KEY_ID in the CI settings",
        "tokens expire after 15m; the token count is 4096",
        "rotate the signing key every 90 days",
        "token isolation between tenants is enforced by the gateway",
        "the password was changed to the one in 1Password",
    ],
}
