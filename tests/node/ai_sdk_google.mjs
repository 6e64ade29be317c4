// The Vercel AI SDK's Google provider (`@ai-sdk/google`) against `scenarist llm`: one tool
// round through the provider's language model (doGenerate or doStream), as `generateText`
// and `streamText` drive it. The pinned provider (4.x) implements the v4 model specification,
// which the pinned `ai` core (6.x) refuses ("only supports v2/v3"), so the round is driven here
// by the same calls the core makes: the provider's request building and response parsing are
// what meet the wire.
//
//   node ai_sdk_google.mjs BASE_URL MODE PROMPT [think]
//
// BASE_URL ends in /v1beta. MODE: generate or stream. `think` asks for thought parts.
// Prints one JSON line: text, reasoning and tool calls per step, finish reasons, or the error.
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = process.env.SCENARIST_NODE_MODULES || join(here, "node_modules");
const require = createRequire(join(modules, "loader.js"));
const { createGoogleGenerativeAI } = require("@ai-sdk/google");

const [baseUrl, mode, prompt, think] = process.argv.slice(2);
const model = createGoogleGenerativeAI({ baseURL: baseUrl, apiKey: "test-key" })("gemini-2.5-flash");
const tools = [
  {
    type: "function",
    name: "get_weather",
    description: "The weather in a city",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];
const providerOptions = think === "think" ? { google: { thinkingConfig: { includeThoughts: true } } } : {};

async function step(messages) {
  const options = { prompt: messages, tools, providerOptions };
  if (mode !== "stream") {
    const result = await model.doGenerate(options);
    return { content: result.content, finish: result.finishReason };
  }
  const { stream } = await model.doStream(options);
  const content = [];
  let finish = null;
  for await (const part of stream) {
    if (part.type === "text-delta") content.push({ type: "text", text: part.delta });
    else if (part.type === "reasoning-delta") content.push({ type: "reasoning", text: part.delta });
    else if (part.type === "tool-call") content.push(part);
    else if (part.type === "finish") finish = part.finishReason;
    else if (part.type === "error") throw part.error;
  }
  return { content, finish };
}

const unified = (finish) => (typeof finish === "object" && finish !== null ? finish.unified : finish);

try {
  const messages = [{ role: "user", content: [{ type: "text", text: prompt }] }];
  const said = [];
  const reasoning = [];
  const calls = [];
  const finishes = [];
  for (let i = 0; i < 4; i++) {
    const { content, finish } = await step(messages);
    finishes.push(unified(finish));
    said.push(content.filter((p) => p.type === "text").map((p) => p.text).join(""));
    reasoning.push(content.filter((p) => p.type === "reasoning").map((p) => p.text).join(""));
    const made = content.filter((p) => p.type === "tool-call");
    if (!made.length) break;
    const input = (call) => (typeof call.input === "string" ? JSON.parse(call.input) : call.input);
    messages.push({
      role: "assistant",
      content: made.map((call) => ({ type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName, input: input(call) })),
    });
    messages.push({
      role: "tool",
      content: made.map((call) => ({
        type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName,
        output: { type: "text", value: `sunny in ${input(call).city}` },
      })),
    });
    calls.push(...made.map((call) => input(call).city));
  }
  console.log(JSON.stringify({ ok: true, said, reasoning, calls, finishes }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, name: error.name, status: error.statusCode ?? null, message: String(error.message) }));
}
