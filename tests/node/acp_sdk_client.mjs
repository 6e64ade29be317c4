// Drive an ACP agent with the official TypeScript SDK's client side and print what it saw
// as one JSON line: the initialize answer, the session, every update, the permission
// requests, the files written and each prompt's answer.
//
//   node acp_sdk_client.mjs CWD PROMPT [PROMPT...] -- AGENT_COMMAND [ARGS...]
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const [cwd, ...prompts] = argv.slice(0, split);
const [command, ...args] = argv.slice(split + 1);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"], cwd });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const seen = { updates: [], permissions: [], written: {}, answers: [] };
const result = await acp.client({ name: "scenarist-test-sdk-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => { seen.updates.push(params.update); })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    seen.permissions.push(params);
    const allow = params.options.find((o) => o.kind.startsWith("allow"));
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: `contents of ${params.path}` }))
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => { seen.written[params.path] = params.content; return {}; })
  .connectWith(stream, async (agent) => {
    seen.initialize = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: { name: "scenarist-test-sdk-client", version: "1.0.0" },
    });
    const session = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    seen.sessionId = session.sessionId;
    for (const text of prompts) {
      seen.answers.push(await agent.request(acp.methods.agent.session.prompt, {
        sessionId: session.sessionId, prompt: [{ type: "text", text }] }));
    }
    return seen;
  });
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
seen.exitCode = child.exitCode;
process.stdout.write(JSON.stringify(result) + "\n");
