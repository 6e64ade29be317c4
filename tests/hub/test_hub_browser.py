"""The web page in Debian's headless chromium: run the fake Codex agent, watch, kill, reconnect."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hubkit import TOKEN, running_hub
from playwright.async_api import Page, async_playwright

from scenarist.hub.config import AgentSpec, HubConfig, Limits, default_agents

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
ANSI = ("import sys\nfor line in sys.stdin:\n"
        "    print('\\x1b[31mred\\x1b[0m plain \\x1b[1;32mbold green\\x1b[0m', flush=True)\n")

pytestmark = pytest.mark.browser


def config() -> HubConfig:
    agents = default_agents()
    agents["ansi"] = AgentSpec("ansi", (sys.executable, "-u", "-c", ANSI))
    return HubConfig(agents=agents, token=TOKEN, limits=Limits(kill_grace_s=2.0))


async def status(page: Page, state: str) -> None:
    await page.wait_for_function(
        "s => document.getElementById('status').textContent === s", arg=state, timeout=20_000)


async def test_page_runs_fake_codex_shows_output_kills_it_and_reconnects(tmp_path: Path) -> None:
    problems: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1100, "height": 700})
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            async with running_hub(config()) as hub:
                await run_fake_codex_and_ansi(page, hub.http(f"/?token={TOKEN}"), tmp_path)
            # The hub went away: the page says so and retries with backoff; when the hub is
            # back on the same port, the page reconnects by itself.
            await page.wait_for_function(
                "() => document.getElementById('conn').textContent.startsWith('disconnected')",
                timeout=20_000)
            await status(page, "error")
            async with running_hub(config(), port=hub.port):
                await status(page, "connected")
                await page.screenshot(path=str(tmp_path / "hub-reconnected.png"))
        finally:
            await browser.close()
    # Failed reconnect attempts log a console error in Chromium; nothing else may.
    assert [p for p in problems if "WebSocket connection to" not in p] == []


async def run_fake_codex_and_ansi(page: Page, url: str, tmp_path: Path) -> None:
    await page.goto(url)
    await status(page, "connected")
    assert await page.input_value("#agent") == "fake-codex"
    assert await page.is_disabled("#kill")

    await page.fill("#command", "hello from the browser")
    await page.press("#command", "Enter")
    pane = page.locator('pre[data-agent="fake-codex"]')
    await pane.get_by_text('"task_complete"', exact=False).wait_for(timeout=20_000)
    await status(page, "running")
    assert "hello from the browser" in await pane.inner_text()

    await page.click("#kill")
    await status(page, "exited")
    assert await page.text_content("#exit-code") == "exit: SIGTERM"
    assert "[killed]" in await pane.inner_text()
    await page.click("#restart")  # a new process, without a command
    await status(page, "running")
    assert await page.text_content("#exit-code") == ""
    await page.click("#kill")
    await status(page, "exited")
    shot = tmp_path / "hub-page.png"
    await page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000

    # ANSI colours become styled spans; escapes never show as text.
    await page.select_option("#agent", "ansi")
    await page.fill("#command", "go")
    await page.press("#command", "Enter")
    ansi = page.locator('pre[data-agent="ansi"]')
    red = ansi.get_by_text("red", exact=True)
    await red.wait_for(timeout=20_000)
    assert await red.evaluate("e => getComputedStyle(e).color") == "rgb(240, 112, 122)"
    bold = ansi.get_by_text("bold green", exact=True)
    assert await bold.evaluate("e => getComputedStyle(e).fontWeight") == "700"
    text = await ansi.inner_text()
    assert "\x1b" not in text and "[31m" not in text
