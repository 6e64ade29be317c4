// The official Gemini SDK for JavaScript (`@google/genai`) against `scenarist llm`: one tool
// round run by hand (generateContent or generateContentStream), as an agent loop runs it.
//
//   node google_genai.mjs BASE_URL MODE PROMPT [RETRIES] [think]
//
// MODE: generate or stream. RETRIES: the SDK's retryOptions.attempts (0: no retry options,
// the SDK's default of not retrying). `think` asks for thought parts (includeThoughts).
// Prints one JSON line: the text, thoughts and calls per step, or the error (name, status,
// message). Packages load from SCENARIST_NODE_MODULES when set, else the node_modules next
// to this script.
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = process.env.SCENARIST_NODE_MODULES || join(here, "node_modules");
const require = createRequire(join(modules, "loader.js"));
const { GoogleGenAI, Type } = require("@google/genai");

const [baseUrl, mode, prompt, retries, think] = process.argv.slice(2);
const attempts = Number(retries ?? 0);
const ai = new GoogleGenAI({
  apiKey: "test-key",
  httpOptions: {
    baseUrl,
    ...(attempts > 0 ? { retryOptions: { attempts, initialDelay: 0.05, jitter: 0 } } : {}),
  },
});
const config = {
  tools: [
    {
      functionDeclarations: [
        {
          name: "get_weather",
          description: "The weather in a city",
          parameters: {
            type: Type.OBJECT,
            properties: { city: { type: Type.STRING } },
            required: ["city"],
          },
        },
      ],
    },
  ],
  ...(think === "think" ? { thinkingConfig: { includeThoughts: true } } : {}),
};

async function ask(contents) {
  const request = { model: "gemini-2.5-flash", contents, config };
  if (mode !== "stream") {
    const response = await ai.models.generateContent(request);
    return response.candidates[0].content.parts ?? [];
  }
  const parts = [];
  for await (const chunk of await ai.models.generateContentStream(request)) {
    parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
  }
  return parts;
}

try {
  const contents = [{ role: "user", parts: [{ text: prompt }] }];
  const said = [];
  const thoughts = [];
  const calls = [];
  for (let step = 0; step < 4; step++) {
    const parts = await ask(contents);
    said.push(parts.filter((p) => !p.thought).map((p) => p.text ?? "").join(""));
    thoughts.push(parts.filter((p) => p.thought).map((p) => p.text ?? "").join(""));
    const made = parts.filter((p) => p.functionCall).map((p) => p.functionCall);
    if (!made.length) break;
    contents.push({ role: "model", parts });
    contents.push({
      role: "user",
      parts: made.map((call) => ({
        functionResponse: { id: call.id, name: call.name, response: { result: `sunny in ${call.args.city}` } },
      })),
    });
    calls.push(...made.map((call) => ({ id: call.id, name: call.name, args: call.args })));
  }
  console.log(JSON.stringify({ ok: true, said, thoughts, calls }));
} catch (error) {
  console.log(
    JSON.stringify({ ok: false, name: error.name, status: error.status ?? null, message: String(error.message) }),
  );
}
