"""A real browser: headless chromium opens a page whose EventSource follows a session in the
web UI's dialect, renders every event, and the test reads what it rendered."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Route, async_playwright
from restkit import SCENARIOS, rest_server
from sse import create, read_stream

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
PAGE = """<!doctype html><meta charset=utf-8><title>session</title><ol id=events></ol>
<script>
const sid = new URLSearchParams(location.search).get("sid");
const list = document.getElementById("events");
const source = new EventSource(`/api/v1/sessions/${sid}/events?dialect=webui`);
function show(name, d) {
  const text = {status: () => d.status, thinking: () => d.thought,
    tool_execution: () => d.last_line ?? d.tool_output ?? d.tool_name,
    file_edit: () => `${d.file_path} +${d.lines_added} -${d.lines_removed}`,
    log: () => d.message}[name]();
  const item = document.createElement("li");
  item.dataset.id = d.id; item.textContent = `${name}: ${text}`;
  list.append(item);
  if (name === "status" && ["completed", "failed", "stopped", "cancelled"].includes(d.status)) {
    source.close(); document.body.dataset.done = "yes";
  }
}
for (const name of ["status", "thinking", "tool_execution", "file_edit", "log"]) {
  source.addEventListener(name, e => show(name, {...JSON.parse(e.data), id: e.lastEventId}));
}
</script>"""


async def test_event_source_in_chromium_renders_the_whole_session() -> None:
    with rest_server("--speed", "0.2", scenarios=[SCENARIOS]) as srv, \
            httpx.Client(base_url=srv.base_url) as client:
        sid = create(client)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = await browser.new_page()

                async def serve_page(route: Route) -> None:
                    await route.fulfill(body=PAGE, content_type="text/html")

                await page.route(f"{srv.base_url}/viewer*", serve_page)
                await page.goto(f"{srv.base_url}/viewer?sid={sid}")
                await page.wait_for_function("document.body.dataset.done === 'yes'",
                                             timeout=30_000)
                rendered = await page.eval_on_selector_all(
                    "#events li", "items => items.map(i => [i.dataset.id, i.textContent])")
            finally:
                await browser.close()
        frames = read_stream(client, sid, query="?dialect=webui")
    assert [int(i) for i, _ in rendered] == [f.id for f in frames]
    texts = [t for _, t in rendered]
    assert texts[:2] == ["status: queued", "status: running"]
    assert "thinking: Look at the test first." in texts
    assert "tool_execution: 1 failed" in texts and "file_edit: src/app.py +1 -1" in texts
    assert texts[-1] == "status: completed"
