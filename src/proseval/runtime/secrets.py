"""Secrets never reach a file, a prompt or a log: scrubbing text and URLs before they are kept.

Two kinds of secrets are removed: the values of the process's own secret-looking environment
variables (API keys, tokens, passwords), wherever they appear — a server may echo a key back
in an error body — and credentials in well-known shapes (``Authorization`` headers, bearer
tokens, ``sk-…`` keys, ``user:password@`` in URLs, ``key=…``/``token=…`` query parameters).
"""

from __future__ import annotations

import os
import re
from urllib.parse import SplitResult, parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE)
_MIN_SECRET = 8
_PATTERNS = [
    (re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?)(bearer\s+|basic\s+)?[^\s\"',}]+"), r"\1\2" + REDACTED),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}"), r"\1 " + REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), REDACTED),
    (
        re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access[_-]?token|auth|signature|sig)=)[^&\s\"']+"),
        r"\1" + REDACTED,
    ),
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@"), r"\1" + REDACTED + "@"),
    (re.compile(r"(?i)([\"']?(?:api[_-]?key|x-api-key)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"), r"\1" + REDACTED),
]
_QUERY_SECRETS = {"api_key", "api-key", "apikey", "key", "token", "access_token", "auth", "signature", "sig"}


def secret_values(environ: dict[str, str] | None = None) -> list[str]:
    """Values of secret-looking environment variables, longest first (so overlaps redact fully)."""
    env = os.environ if environ is None else environ
    values = {value for name, value in env.items() if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET}
    return sorted(values, key=len, reverse=True)


def scrub(text: str, environ: dict[str, str] | None = None) -> str:
    """`text` with every known secret value and credential-shaped token replaced by [redacted]."""
    for value in secret_values(environ):
        if value in text:
            text = text.replace(value, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def scrub_url(url: str) -> str:
    """A URL without user:password and without secret-looking query parameters."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return scrub(url)
    netloc = parts.netloc.rpartition("@")[2] if "@" in parts.netloc else parts.netloc
    query = [
        (k, REDACTED if k.lower() in _QUERY_SECRETS else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    cleaned = SplitResult(parts.scheme, netloc, parts.path, urlencode(query, safe="[]"), parts.fragment)
    return scrub(urlunsplit(cleaned))
