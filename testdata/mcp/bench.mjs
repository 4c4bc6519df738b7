// P17's client: one MCP client (the TypeScript SDK) over stdio to
// `MCODE mcp serve`, calling read on FILE N times, one after another.
//   node bench.mjs MCODE FILE N
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(join(process.env.MCODE_NPM_PEERS_DIR, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const [mcode, file, n] = process.argv.slice(2);
const client = new Client({ name: "mcode-bench", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: mcode, args: ["mcp", "serve"], env: process.env, stderr: "inherit" }));
for (let i = 0; i < Number(n); i++) {
  const res = await client.callTool({ name: "read", arguments: { path: file } });
  if (res.isError) throw new Error(JSON.stringify(res.content));
}
await client.close();
