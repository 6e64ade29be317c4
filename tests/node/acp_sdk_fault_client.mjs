// What the official TypeScript SDK's client side does with a faulty ACP agent: it sends one
// prompt (and, with CANCEL=1, session/cancel after the first update), waits at most WAIT_MS
// for the answer and prints one JSON line: how the prompt ended ("answered", "rejected" with
// the error, or "pending" when no answer came), the agent text it was handed, and what the
// SDK wrote to the console meanwhile. The agent is stopped before it exits.
//
//   node acp_sdk_fault_client.mjs CWD WAIT_MS CANCEL -- AGENT_COMMAND [ARGS...]
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const [cwd, waitMs, cancel] = argv.slice(0, split);
const [command, ...args] = argv.slice(split + 1);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"], cwd });
child.stdin.on("error", () => {});  // the agent may be gone when the client writes
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const logged = [];
for (const level of ["error", "warn"]) {
  console[level] = (...parts) => logged.push(parts.map((p) => (p instanceof Error ? p.message : String(p))).join(" "));
}
const seen = { texts: [], logged };
let firstUpdate;
const updated = new Promise((resolve) => { firstUpdate = resolve; });
const timeout = (ms) => new Promise((resolve) => setTimeout(() => resolve({ outcome: "pending" }), ms));

try {
  await acp.client({ name: "scenarist-fault-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const u = params.update;
      if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") seen.texts.push(u.content.text);
      firstUpdate();
    })
    .connectWith(stream, async (agent) => {
      await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {},
        clientInfo: { name: "scenarist-fault-client", version: "1.0.0" },
      });
      const session = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
      const prompt = agent.request(acp.methods.agent.session.prompt, {
        sessionId: session.sessionId, prompt: [{ type: "text", text: "go" }] })
        .then((answer) => ({ outcome: "answered", stopReason: answer.stopReason }),
              (error) => ({ outcome: "rejected", error: String(error?.message ?? error) }));
      if (cancel === "1") {
        await Promise.race([updated, prompt]);
        agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
      }
      Object.assign(seen, await Promise.race([prompt, timeout(Number(waitMs))]));
      await new Promise((resolve) => setTimeout(resolve, 200));  // anything still on its way
    });
} catch (error) {
  seen.outcome ??= "rejected";
  seen.error ??= String(error?.message ?? error);
}
child.kill("SIGKILL");
process.stdout.write(JSON.stringify(seen) + "\n");
process.exit(0);
