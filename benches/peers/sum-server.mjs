// One operation, adding two integers into `{sum}`, served two ways by one Node
// process, for benches/rest_apis.rs: as a REST API described by an OpenAPI 3.1
// document (`GET /openapi.json`, operation `add`: `GET /add?a=&b=`) and as an MCP
// server over streamable HTTP (`POST /mcp`, tool `sum`, the TypeScript MCP SDK in
// stateless JSON mode, as its README shows).
// Run as `node sum-server.mjs NODE_MODULES PORT`.
import http from "node:http";

const [modules, port] = process.argv.slice(2);
const sdk = `${modules}/@modelcontextprotocol/sdk/dist/esm/server`;
const { McpServer } = await import(`${sdk}/mcp.js`);
const { StreamableHTTPServerTransport } = await import(`${sdk}/streamableHttp.js`);
const { z } = await import(`${modules}/zod/index.js`);

const document = JSON.stringify({
    openapi: "3.1.0",
    info: { title: "Sum", version: "1.0.0" },
    paths: {
        "/add": {
            get: {
                operationId: "add",
                summary: "Add two integers",
                parameters: [
                    { name: "a", in: "query", required: true, schema: { type: "integer" } },
                    { name: "b", in: "query", required: true, schema: { type: "integer" } },
                ],
                responses: { 200: { description: "The sum", content: { "application/json": { schema: { type: "object" } } } } },
            },
        },
    },
});

function sumServer() {
    const server = new McpServer({ name: "sum", version: "1.0.0" });
    const shape = { a: z.number().int(), b: z.number().int() };
    server.registerTool("sum", { description: "Add two integers", inputSchema: shape }, async ({ a, b }) => ({
        content: [{ type: "text", text: JSON.stringify({ sum: a + b }) }],
        structuredContent: { sum: a + b },
    }));
    return server;
}

function json(response, status, body) {
    response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    response.end(body);
}

http.createServer(async (request, response) => {
    const url = new URL(request.url, "http://localhost");
    if (request.method === "GET" && url.pathname === "/openapi.json") {
        return json(response, 200, document);
    }
    if (request.method === "GET" && url.pathname === "/add") {
        const a = Number(url.searchParams.get("a"));
        const b = Number(url.searchParams.get("b"));
        return json(response, 200, JSON.stringify({ sum: a + b }));
    }
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const server = sumServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on("close", () => {
        transport.close();
        server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined);
}).listen(Number(port), "127.0.0.1");
