"""The hub is a remote shell: one test for each guard the issue names."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest
from hubkit import TOKEN, agent, client, make_config, running_hub, text_of
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from scenarist.hub.config import Limits


async def test_page_needs_the_token() -> None:
    async with running_hub(make_config(agent("echo"))) as hub, httpx.AsyncClient() as http:
        assert (await http.get(hub.http("/"))).status_code == 401
        wrong = await http.get(hub.http("/?token=nope"))
        assert wrong.status_code == 401 and "?token=" in wrong.text
        ok = await http.get(hub.http(f"/?token={TOKEN}"))
        assert ok.status_code == 200 and "<title>scenarist hub</title>" in ok.text
        assert "script-src 'sha256-" in ok.headers["content-security-policy"]
        assert ok.headers["referrer-policy"] == "no-referrer"
        bearer = await http.get(hub.http("/"), headers={"Authorization": f"Bearer {TOKEN}"})
        assert bearer.status_code == 200


@pytest.mark.parametrize("token", [None, "wrong-token"])
async def test_websocket_needs_the_token(token: str | None) -> None:
    async with running_hub(make_config(agent("echo"))) as hub:
        with pytest.raises(InvalidStatus) as err:
            async with connect(hub.ws_url(token)):
                pass
        assert err.value.response.status_code == 401
        assert b"token" in err.value.response.body


async def test_origin_check_defeats_cross_site_websocket_hijacking() -> None:
    config = make_config(agent("echo"), allow_origins=frozenset({"https://ide.example"}))
    async with running_hub(config) as hub:
        with pytest.raises(InvalidStatus) as err:  # a page on another site, with the token
            async with connect(hub.ws_url(), origin="http://evil.example"):  # type: ignore[arg-type]
                pass
        assert err.value.response.status_code == 403
        assert b"--allow-origin" in err.value.response.body
        with pytest.raises(InvalidStatus):  # another port on localhost is another origin
            async with connect(hub.ws_url(), origin="http://127.0.0.1:1"):  # type: ignore[arg-type]
                pass
        for origin in (f"http://127.0.0.1:{hub.port}", "https://ide.example"):
            async with connect(hub.ws_url(), origin=origin) as ws:  # type: ignore[arg-type]
                assert "hello" in await ws.recv()


async def test_host_check_defeats_dns_rebinding() -> None:
    """A hostile name resolved to 127.0.0.1: Host and Origin agree, the token is known."""
    config = make_config(agent("echo"), allow_origins=frozenset({"https://ide.example"}))
    async with running_hub(config) as hub, httpx.AsyncClient() as http:
        rebound = f"evil.example:{hub.port}"
        page = await http.get(hub.http(f"/?token={TOKEN}"), headers={"Host": rebound})
        assert page.status_code == 421 and "DNS rebinding" in page.text
        sock = socket.create_connection(("127.0.0.1", hub.port))
        with pytest.raises(InvalidStatus) as err:
            async with connect(f"ws://{rebound}/ws?token={TOKEN}", sock=sock,
                               origin=f"http://{rebound}"):  # type: ignore[arg-type]
                pass
        assert err.value.response.status_code == 421
        for host in (f"localhost:{hub.port}", f"127.0.0.1:{hub.port}", "ide.example"):
            ok = await http.get(hub.http(f"/?token={TOKEN}"), headers={"Host": host})
            assert ok.status_code == 200, host


async def test_clients_can_only_start_configured_agents() -> None:
    async with running_hub(make_config(agent("echo"))) as hub, client(hub) as c:
        for name in ("/bin/sh", "bash", "fake-codex"):  # fake-codex: not in this config
            await c.send(type="command", agent=name, text="id")
            err = (await c.until_type("error"))[-1]
            assert f"unknown agent {name!r}" in err["message"]
        assert all(s.process is None for s in hub.hub.sessions.values())
        assert list(hub.hub.sessions) == ["echo"]


async def test_argv_and_command_text_never_reach_a_shell(tmp_path: Path) -> None:
    spec = agent("argv", "$(touch pwned-argv)", "; touch pwned-semicolon", "`touch pwned-tick`",
                 cwd=str(tmp_path))
    async with running_hub(make_config(spec)) as hub, client(hub) as c:
        await c.send(type="command", agent="argv", text="$(touch pwned-stdin) && rm -rf ~")
        await c.until(lambda m: "stdin " in text_of(c.seen))
        out = text_of(c.seen)
    assert "argv '$(touch pwned-argv)'" in out
    assert "argv '; touch pwned-semicolon'" in out
    assert "stdin '$(touch pwned-stdin) && rm -rf ~\\n'" in out
    assert list(tmp_path.iterdir()) == []


async def test_frames_larger_than_the_limit_close_the_connection_1009() -> None:
    limits = Limits(max_frame_bytes=1024, kill_grace_s=1.0)
    async with running_hub(make_config(agent("echo"), limits=limits)) as hub, client(hub) as c:
        await c.send(type="command", agent="echo", text="x" * 2000)
        with pytest.raises(ConnectionClosed) as err:
            for _ in range(5):
                await c.recv()
        assert err.value.rcvd is not None and err.value.rcvd.code == 1009
        assert hub.hub.sessions["echo"].process is None  # nothing was started


async def test_message_rate_is_limited_then_the_connection_is_closed_1008() -> None:
    limits = Limits(rate_per_s=0.01, rate_burst=3, rate_strikes=5, kill_grace_s=1.0)
    async with running_hub(make_config(agent("echo"), limits=limits)) as hub, client(hub) as c:
        for _ in range(3 + 5):
            await c.send(type="subscribe", agent="echo")
        with pytest.raises(ConnectionClosed) as err:
            while True:
                await c.recv()
        assert err.value.rcvd is not None and err.value.rcvd.code == 1008
        errors = [m["message"] for m in c.seen if m["type"] == "error"]
        assert len(errors) == 4 and all("rate limit" in e for e in errors)
        assert [m["type"] for m in c.seen].count("status") == 3  # the burst was served


def test_listening_socket_is_tcp_so_asyncio_disables_nagle() -> None:
    # With proto 0 asyncio skips TCP_NODELAY and small frames wait ~40 ms for delayed ACKs.
    import socket

    from scenarist.serving import bind

    sock = bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()
