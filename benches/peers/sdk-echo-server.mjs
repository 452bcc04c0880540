// The TypeScript MCP SDK's server in stateless JSON mode (as its README shows:
// a server and a transport per request), with one tool `echo(text) -> text`, for
// benches/peers/compare-http.sh. Run as `node sdk-echo-server.mjs NODE_MODULES PORT`.
import http from "node:http";

const [modules, port] = process.argv.slice(2);
const sdk = `${modules}/@modelcontextprotocol/sdk/dist/esm/server`;
const { McpServer } = await import(`${sdk}/mcp.js`);
const { StreamableHTTPServerTransport } = await import(`${sdk}/streamableHttp.js`);
const { z } = await import(`${modules}/zod/index.js`);

function echoServer() {
    const server = new McpServer({ name: "echo", version: "1.0.0" });
    server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: "text", text }],
    }));
    return server;
}

http.createServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const server = echoServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on("close", () => {
        transport.close();
        server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, JSON.parse(Buffer.concat(chunks).toString()));
}).listen(Number(port), "127.0.0.1");
