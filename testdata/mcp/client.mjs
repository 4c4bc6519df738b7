// Drives mcode mcp serve with the official TypeScript SDK client, over
// stdio (node client.mjs stdio MCODE [ARGS…]) or streamable HTTP
// (node client.mjs http URL TOKEN). MCODE_NPM_PEERS_DIR is the folder the
// SDK is installed in. Prints one JSON object with what it saw.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(join(process.env.MCODE_NPM_PEERS_DIR, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");

const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  const { StdioClientTransport } = await sdk("client/stdio.js");
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "inherit" });
} else {
  const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(rest[0]), {
    requestInit: { headers: { Authorization: `Bearer ${rest[1]}` } },
  });
}
const client = new Client({ name: "mcode-ts-test", version: "1.0.0" });
await client.connect(transport);

const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
const out = { server: client.getServerVersion() };
const { tools } = await client.listTools();
out.tools = tools.map((t) => ({ name: t.name, annotations: t.annotations, required: t.inputSchema.required ?? [] }));

const read = await client.callTool({ name: "read", arguments: { path: "hello.txt" } });
out.read = { isError: read.isError ?? false, text: text(read), kind: read.structuredContent?.kind };

const image = await client.callTool({ name: "read", arguments: { path: "dot.png" } });
out.image = image.content.map((c) => ({ type: c.type, mimeType: c.mimeType, bytes: c.data ? Buffer.from(c.data, "base64").length : 0 }));

const bad = await client.callTool({ name: "read", arguments: { path: 42 } });
out.bad = { isError: bad.isError ?? false, text: text(bad) };

const missing = await client.callTool({ name: "read", arguments: { path: "nope.txt" } });
out.missing = { isError: missing.isError ?? false, text: text(missing) };

// Cancel a bash call: the SDK sends notifications/cancelled.
const ac = new AbortController();
const started = Date.now();
const pending = client.callTool({ name: "bash", arguments: { command: `export MCODE_TEST_MARK=${process.env.MCODE_TEST_MARK}; sleep 303 & sleep 304; wait` } }, undefined, { signal: ac.signal });
setTimeout(() => ac.abort(), 1000);
try {
  await pending;
  out.cancel = { aborted: false };
} catch (e) {
  out.cancel = { aborted: true, error: String(e), ms: Date.now() - started };
}
// Let the server see the cancellation, then say the call ended.
await new Promise((r) => setTimeout(r, 1500));
const after = await client.callTool({ name: "datetime", arguments: {} });
out.after = { isError: after.isError ?? false };

await client.close();
console.log(JSON.stringify(out));
