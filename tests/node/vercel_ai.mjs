// The Vercel AI SDK (`ai` + `@ai-sdk/openai` + `@ai-sdk/anthropic` + `@ai-sdk/google`) against
// `scenarist llm`: generateText or streamText with one tool, run to the end (the tool round
// included).
//
//   node vercel_ai.mjs BASE_URL PROVIDER MODE PROMPT [MAX_RETRIES] [think]
//
// BASE_URL is the server's root. PROVIDER: openai (Responses), openai-chat (Chat Completions),
// anthropic (Messages), all three under /v1, or google (Gemini generateContent, /v1beta).
// MODE: generate or stream. `think` asks for thinking (Anthropic `thinking: enabled`, OpenAI
// Responses `reasoningSummary: auto`, Google `thinkingConfig.includeThoughts`). Prints one JSON
// line: the final text, the reasoning text, the tool calls made, the steps and their finish
// reasons, or the error (name, status, data).
// Packages load from SCENARIST_NODE_MODULES when set (a private install), else from the
// node_modules next to this script.
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = process.env.SCENARIST_NODE_MODULES || join(here, "node_modules");
const require = createRequire(join(modules, "loader.js"));
const { generateText, streamText, tool, jsonSchema, stepCountIs } = require("ai");
const { createOpenAI } = require("@ai-sdk/openai");
const { createAnthropic } = require("@ai-sdk/anthropic");
const { createGoogleGenerativeAI } = require("@ai-sdk/google");

const [baseUrl, provider, mode, prompt, maxRetries, think] = process.argv.slice(2);

function model() {
  if (provider === "anthropic") {
    return createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: "sk-test" })("claude-mock");
  }
  if (provider === "google") {
    return createGoogleGenerativeAI({ baseURL: `${baseUrl}/v1beta`, apiKey: "test-key" })("gemini-2.5-flash");
  }
  const openai = createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "sk-test" });
  if (provider === "openai-chat") return openai.chat("mock-model");
  // the SDK sends reasoning options to reasoning models only (it knows them by name)
  return openai(think === "think" ? "gpt-5-mini" : "mock-model");
}

const calls = [];
const tools = {
  get_weather: tool({
    description: "The weather in a city",
    inputSchema: jsonSchema({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    }),
    execute: async ({ city }) => {
      calls.push(city);
      return `sunny in ${city}`;
    },
  }),
};

const options = {
  model: model(),
  prompt,
  tools,
  stopWhen: stepCountIs(5),
  maxRetries: maxRetries === undefined ? 2 : Number(maxRetries),
};
if (think === "think") {
  options.providerOptions = {
    anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } },
    openai: { reasoningSummary: "auto" },
    google: { thinkingConfig: { includeThoughts: true } },
  };
}

try {
  let text, reasoning, steps;
  if (mode === "stream") {
    const errors = [];
    const result = streamText({ ...options, onError: ({ error }) => errors.push(error) });
    for await (const _ of result.textStream) {
      // drain
    }
    if (errors.length) throw errors[0];
    text = await result.text;
    steps = await result.steps;
  } else {
    const result = await generateText(options);
    text = result.text;
    steps = result.steps;
  }
  // every step's reasoning (the result's own reasoningText is the last step's only)
  reasoning = steps.map((step) => step.reasoningText ?? "").join("") || null;
  const finishes = steps.map((step) => step.finishReason);
  steps = steps.length;
  console.log(JSON.stringify({ ok: true, text, reasoning: reasoning ?? null, calls, steps, finishes }));
} catch (error) {
  const cause = error.lastError ?? error;
  console.log(
    JSON.stringify({
      ok: false,
      name: error.name,
      causeName: cause.name,
      status: cause.statusCode ?? null,
      data: cause.data ?? null,
      responseBody: cause.responseBody ?? null,
      retryable: cause.isRetryable ?? null,
      message: String(error.message),
    }),
  );
}
