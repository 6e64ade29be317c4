// Run a thread of the real @openai/codex-sdk against fake-codex and print what it saw.
// usage: node sdk_thread.mjs FAKE_CODEX_PATH SDK_DIR PROMPT [SECOND_PROMPT]
// Prints one JSON object: {threadId, turns: [{items, finalResponse, usage}], streamed: [types]}.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [fakeCodex, sdkDir, prompt, secondPrompt] = process.argv.slice(2);
const sdk = await import(pathToFileURL(path.join(sdkDir, "dist", "index.js")).href);

const codex = new sdk.Codex({
  codexPathOverride: fakeCodex,
  env: { PATH: process.env.PATH ?? "", SCENARIST_CODEX_CONFIG: JSON.stringify({ seed: 21 }) },
});
const thread = codex.startThread({ workingDirectory: "/repo", skipGitRepoCheck: true });
const turns = [];
const first = await thread.run(prompt);
turns.push(first);
const threadId = thread.id;
const streamed = [];
if (secondPrompt) {
  const { events } = await thread.runStreamed(secondPrompt);
  const items = [];
  let usage = null;
  for await (const event of events) {
    streamed.push(event.type);
    if (event.type === "item.completed") items.push(event.item);
    if (event.type === "turn.completed") usage = event.usage;
  }
  turns.push({ items, usage });
}
console.log(JSON.stringify({ threadId, secondThreadId: thread.id, turns, streamed }));
