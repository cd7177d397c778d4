"""Endpoint URLs, checked once where they enter: a command's options, a config, set or suite file,
an environment variable. What passes is an http(s) URL with a host and, if it names a port, one
from 1 to 65535. A user name or password in the URL is refused: no provider proseval speaks to
documents one there (each takes its key in a header, from the key's environment variable), and a
request that carried both would fail. A refusal never shows what stood before the `@`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..errors import UsageError

REDACTED = "[redacted]"  # as `runtime.secrets` writes it
SCHEMES = ("http", "https")
PORTS = range(1, 65536)
KEY_ADVICE = (
    "give the URL without it and put the key in the environment variable the provider reads "
    "(OPENAI_API_KEY, PROSEVAL_API_KEY, ANTHROPIC_API_KEY or a named service's own; proseval docs models)"
)
_USERINFO = re.compile(r"^([^:/?#]*://)?[^?#]*@")
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")


class EndpointError(UsageError, ValueError):
    """An endpoint URL that no request could be sent to as written."""


def shown(url: str) -> str:
    """`url` as a message may show it: what stands before its last `@` (a user name or password)
    and its query (where keys are sometimes put) redacted."""
    visible = _USERINFO.sub(lambda found: (found.group(1) or "") + REDACTED + "@", url, count=1)
    return visible.split("?", 1)[0] + (f"?{REDACTED}" if "?" in visible else "")


def _port_problem(netloc: str) -> str | None:
    """What is wrong with the port of an authority without user info (`host`, `host:port`, `[v6]:port`)."""
    after_host = netloc.rsplit("]", 1)[1] if netloc.startswith("[") and "]" in netloc else netloc
    if ":" not in after_host:
        return None
    text = after_host.partition(":")[2]
    if not text:
        return None  # `host:` means the scheme's own port
    if not (text.isascii() and text.isdigit()):
        return f"has a port that is not a number ({text!r}); a port is a whole number from 1 to 65535"
    if int(text) not in PORTS:
        return f"has port {int(text)}, out of range: a port is a whole number from 1 to 65535"
    return None


def _problem(url: str) -> str | None:
    """Why `url` cannot be an endpoint, or None."""
    if "@" in url.split("#", 1)[0].split("?", 1)[0]:
        return f"holds a user name or password, which proseval does not send; {KEY_ADVICE}"
    if _SPACE_OR_CONTROL.search(url):
        return "has a space or a control character in it"
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed `[` of an IPv6 address
        return "is not a URL, e.g. http://localhost:8000/v1"
    if parts.scheme.lower() not in SCHEMES or not parts.hostname:
        return "is not an http(s) URL with a host, e.g. http://localhost:8000/v1"
    return _port_problem(parts.netloc)


def check_url(url: str, where: str = "") -> str:
    """`url` if requests can be sent to it; else an `EndpointError` saying why, after `where` (the
    option, file and line, or variable it came from; nothing when the caller adds its own)."""
    problem = _problem(url)
    if problem is None:
        return url
    prefix = f"{where} " if where else ""
    raise EndpointError(f"{prefix}{shown(url)!r} {problem}")
