"""The HTML report in Debian's headless chromium: self-contained, screens drawn in colour,
the timeline, the checks and the golden diff all there."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import async_playwright
from runnerkit import SCENARIOS, golden_copy

from scenarist.runner import html_report, run_scenario
from scenarist.runner.play import RunOptions

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


async def test_report_draws_every_screenshot_with_its_colours(tmp_path: Path) -> None:
    target = golden_copy(tmp_path)
    golden = target / "tmp/scenarist/todo_tui/100x30/screenshots/two_done.golden"
    golden.write_text(golden.read_text().replace("|  [ ] ship it", "|  [x] ship it"))
    result = run_scenario(SCENARIOS / "todo_tui.yaml", RunOptions(target=target))
    assert result.outcome == "failed"  # the edited golden no longer matches
    page_path = tmp_path / "report.html"
    page_path.write_text(html_report([result]), encoding="utf-8")
    requests: list[str] = []
    problems: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1300, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: problems.append(str(e)))
            await page.goto(page_path.as_uri())
            # three screenshots, the final screen, and the failure's screen (below)
            assert await page.locator("pre.screen").count() == 5
            screens = page.locator("table.timeline pre.screen")
            assert await screens.count() == 3
            # the failure is shown first, with the screen it happened on and its diff
            failure = page.locator("ol.failures")
            assert await failure.locator("pre.screen").count() == 1
            assert await failure.locator("pre.diff span.del").inner_text() == "-|  [x] ship it"
            first = await screens.nth(1).inner_text()
            assert "To-do (2/3 done)" in first and "[x] buy milk" in first
            assert len(first.splitlines()) == 30
            green = screens.nth(1).locator("span", has_text="[x] buy milk")
            assert await green.evaluate("e => getComputedStyle(e).color") == "rgb(0, 205, 0)"
            title = screens.nth(1).locator("span", has_text="To-do")
            # reverse video: the default foreground becomes the background
            assert await title.evaluate("e => getComputedStyle(e).backgroundColor") == \
                "rgb(212, 212, 212)"
            assert await title.evaluate("e => getComputedStyle(e).fontWeight") == "700"
            failed = page.locator("tr.failed")
            assert await failed.count() == 1
            assert "two_done" in await failed.inner_text()
            diff = page.locator("table.timeline pre.diff")
            assert await diff.locator("span.del").inner_text() == "-|  [x] ship it"
            assert await diff.locator("span.add").inner_text() == "+|  [ ] ship it"
            checks = page.locator("ul.checks li.passed")
            assert await checks.count() == 9 + 3  # the asserts and the expectations
            assert "json.file todo.json#/items/0/done: is true" in \
                await page.locator("ul.checks").first.inner_text() + \
                await page.locator("ul.checks").nth(1).inner_text()
            await page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            await browser.close()
    assert requests == [page_path.as_uri()]  # nothing fetched besides the page itself
    assert problems == []
