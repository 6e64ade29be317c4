"""Security rules as pure functions: token, Origin, loopback (message rate: tests/test_ratelimit.py)."""

from __future__ import annotations

from scenarist.hub.security import (
    host_allowed,
    is_loopback,
    new_token,
    origin_allowed,
    origin_problem,
    token_from,
    token_ok,
)


def test_token_from_query_or_bearer_header() -> None:
    assert token_from({"token": "q"}, {}) == "q"
    assert token_from({}, {"authorization": "Bearer  h "}) == "h"
    assert token_from({}, {"authorization": "Basic abc"}) is None
    assert token_from({}, {}) is None


def test_token_comparison() -> None:
    token = new_token()
    assert len(token) >= 24 and token != new_token()
    assert token_ok(token, token)
    assert not token_ok(None, token)
    assert not token_ok("", token)
    assert not token_ok(token + "x", token)


def test_origin_same_site_allowed_cross_site_refused() -> None:
    none: frozenset[str] = frozenset()
    assert origin_allowed("http://127.0.0.1:8080", "127.0.0.1:8080", False, none)
    assert not origin_allowed("https://127.0.0.1:8080", "127.0.0.1:8080", False, none)
    assert not origin_allowed("http://evil.example", "127.0.0.1:8080", False, none)
    assert not origin_allowed("http://127.0.0.1:9999", "127.0.0.1:8080", False, none)
    assert not origin_allowed("null", "127.0.0.1:8080", False, none)
    assert not origin_allowed("http://127.0.0.1:8080", None, False, none)
    assert origin_allowed(None, "127.0.0.1:8080", False, none)  # not a browser: token decides
    assert origin_allowed("https://ide.example/", "127.0.0.1:8080", False,
                          frozenset({"https://IDE.example"}))


def test_loopback_names() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.5.6.7", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "10.0.0.1", "::", "example.com"]))


def test_origin_problem_names_what_an_allow_origin_can_never_match() -> None:
    for good in ("http://localhost:5173", "https://Example.com", "http://a.b/",
                 "http://[::1]:8080", "chrome-extension://abcdef"):
        assert origin_problem(good) is None, good
    for bad in ("notaurl", "localhost:5173", "http://x/path", "http://x?q=1", "http://x:abc",
                "http://x:99999", "http://user@x", "http://"):
        problem = origin_problem(bad)
        assert problem is not None and repr(bad) in problem
        assert "scheme://host[:port]" in problem


def test_host_must_name_the_hub() -> None:
    allowed = frozenset({"https://ide.example:8443"})
    for host in ("127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "::1",
                 "10.0.0.5:8080", "ide.example:8443", "myhost:1", "localhost.:8080"):
        assert host_allowed(host, "myhost", allowed), host
    for host in ("evil.example:8080", "evil.example", "localhost.evil.example:8080", "", None,
                 "127.0.0.1.nip.io:8080"):
        assert not host_allowed(host, "127.0.0.1", allowed), host
