"""Guards for a server that starts programs: token, Origin. Pure functions (the message rate
is a :class:`scenarist.ratelimit.TokenBucket`).

- The token (random unless given) must accompany every page and WebSocket request, as
  ``?token=`` or ``Authorization: Bearer``; it is compared in constant time.
- Browsers attach ``Origin`` to every WebSocket handshake; a page on another site that tries to
  open ``ws://127.0.0.1:PORT/ws`` (cross-site WebSocket hijacking) is refused unless its origin is
  the hub's own or listed with ``--allow-origin``. Clients that send no Origin are not browsers
  and still need the token.
- DNS rebinding: a hostile site can make its own name resolve to 127.0.0.1, so that the browser
  treats the hub as same-origin with it (``Host`` and ``Origin`` both ``evil.example:PORT``). The
  ``Host`` header must therefore name the hub itself: an IP address, ``localhost``, the host the
  hub was bound to, or the host of an ``--allow-origin``; any other name is refused.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Mapping
from urllib.parse import urlsplit


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_from(query: Mapping[str, str], headers: Mapping[str, str]) -> str | None:
    """The token a request presents: query ``token`` first, else an ``Authorization: Bearer``."""
    token = query.get("token")
    if token:
        return token
    auth = headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def token_ok(given: str | None, expected: str) -> bool:
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def normalize_origin(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


def origin_problem(origin: str) -> str | None:
    """Why ``origin`` can never equal a browser's ``Origin`` header (``scheme://host[:port]``,
    nothing after), or None. An ``--allow-origin`` that cannot match would silently allow
    nothing."""
    parts = urlsplit(normalize_origin(origin))
    try:
        port = parts.port
    except ValueError:
        port = -1
    well_formed = bool(parts.scheme and parts.hostname) and port != -1
    if not well_formed or parts.path or parts.query or parts.fragment or "@" in parts.netloc:
        return (f"{origin!r} is not an origin; write it as a browser sends it: "
                "scheme://host[:port] with nothing after, e.g. http://localhost:5173")
    return None


def origin_allowed(origin: str | None, host: str | None, secure: bool,
                   allowed: frozenset[str]) -> bool:
    """Same origin as the hub (scheme + Host header) or explicitly allowed; no Origin → not a
    browser → allowed (the token still applies). ``null`` (sandboxed frames, files) is refused."""
    if origin is None:
        return True
    origin = normalize_origin(origin)
    if origin == "null":
        return False
    if origin in {normalize_origin(o) for o in allowed}:
        return True
    if not host:
        return False
    return origin == f"{'https' if secure else 'http'}://{host.strip().lower()}"


def host_name(host_header: str) -> str:
    """The host part of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lowercased."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        return host.partition(":")[0]
    return host  # a bare name, or a bare IPv6 address


def host_allowed(host_header: str | None, bound_host: str, allowed_origins: frozenset[str]) -> bool:
    """Whether a request's ``Host`` names this server (see the module docstring: DNS rebinding).

    IP literals cannot be rebound, so any address is accepted; names must be ``localhost``, the
    name the server was bound to, or the host of an explicitly allowed origin. HTTP/1.1 requires
    ``Host``: a request without one is refused."""
    if not host_header:
        return False
    name = host_name(host_header).rstrip(".")
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    names = {"localhost", bound_host.strip("[]").lower()}
    names.update((urlsplit(normalize_origin(o)).hostname or "") for o in allowed_origins)
    return name in names


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
