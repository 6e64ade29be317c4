// A small ACP agent built on the official TypeScript SDK (@agentclientprotocol/sdk): a real
// peer for `scenarist acp-test` and the TypeScript side of bench/bench_acp.py.
//
// Each prompt: a thought, ACP_SDK_CHUNKS agent_message_chunks ("chunk 1 ", "chunk 2 ", ...),
// a tool call that asks for permission (allow/reject), writes notes.txt through the
// client when allowed, then "done." and end_turn. session/cancel answers `cancelled`.
import * as acp from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";

const chunks = Number(process.env.ACP_SDK_CHUNKS ?? "3");
const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const cancelled = new Set();
let sessions = 0;

async function turn({ params, client }) {
  const sessionId = params.sessionId;
  const update = (u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
  cancelled.delete(sessionId);
  await update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Thinking." } });
  for (let i = 1; i <= chunks; i++) {
    if (cancelled.has(sessionId)) return { stopReason: "cancelled" };
    await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${i} ` } });
  }
  await update({ sessionUpdate: "tool_call", toolCallId: "write-1", title: "Write notes.txt",
                 kind: "edit", status: "pending", locations: [{ path: `${cwd}/notes.txt` }] });
  const answer = await client.request(acp.methods.client.session.requestPermission, {
    sessionId, toolCall: { toolCallId: "write-1", title: "Write notes.txt", kind: "edit" },
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" },
              { optionId: "reject", name: "Reject", kind: "reject_once" }] });
  if (answer.outcome.outcome === "cancelled") return { stopReason: "cancelled" };
  if (answer.outcome.optionId === "allow") {
    await client.request(acp.methods.client.fs.writeTextFile,
                         { sessionId, path: `${cwd}/notes.txt`, content: "written by the TS agent\n" });
  }
  await update({ sessionUpdate: "tool_call_update", toolCallId: "write-1",
                 status: answer.outcome.optionId === "allow" ? "completed" : "failed" });
  await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "done." } });
  return { stopReason: cancelled.has(sessionId) ? "cancelled" : "end_turn" };
}

let cwd = process.cwd();
acp.agent({ name: "scenarist-test-sdk-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    authMethods: [],
    agentInfo: { name: "scenarist-test-sdk-agent", version: "1.0.0" },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    cwd = params.cwd;
    return { sessionId: `sdk-session-${++sessions}` };
  })
  .onRequest(acp.methods.agent.session.prompt, turn)
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => { cancelled.add(params.sessionId); })
  .connect(stream);
