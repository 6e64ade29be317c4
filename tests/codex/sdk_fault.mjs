// Run one turn of the real @openai/codex-sdk against fake-codex (or the mock agent) and print
// what it saw: {ok, error, items, finalResponse}, the SDK's own outcome of a faulted stream.
// usage: node sdk_fault.mjs CODEX_PATH SDK_DIR PROMPT   (settings come from the environment)
import path from "node:path";
import { pathToFileURL } from "node:url";

const [codexPath, sdkDir, prompt] = process.argv.slice(2);
const sdk = await import(pathToFileURL(path.join(sdkDir, "dist", "index.js")).href);
const codex = new sdk.Codex({ codexPathOverride: codexPath, env: { ...process.env } });
const thread = codex.startThread({ workingDirectory: "/repo", skipGitRepoCheck: true });
try {
  const turn = await thread.run(prompt);
  console.log(JSON.stringify({ ok: true, items: turn.items.map((i) => i.type),
                               finalResponse: turn.finalResponse }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error && error.message || error) }));
}
