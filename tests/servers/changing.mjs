// A small MCP server, on the MCP project's TypeScript SDK, whose tool list changes:
// calling `add_tool` registers the tool `added`, and the SDK then sends
// notifications/tools/list_changed. Run as `node changing.mjs NODE_MODULES`, where
// NODE_MODULES holds @modelcontextprotocol/sdk and zod (scripts/install-mcp-servers.sh
// installs them, with the reference servers, in target/mcp-servers/node_modules).
const modules = process.argv[2];
const { McpServer } = await import(`${modules}/@modelcontextprotocol/sdk/dist/esm/server/mcp.js`);
const { StdioServerTransport } = await import(`${modules}/@modelcontextprotocol/sdk/dist/esm/server/stdio.js`);
const { z } = await import(`${modules}/zod/index.js`);

const server = new McpServer({ name: "changing", version: "1.0.0" });
server.registerTool("add_tool", { description: "Adds the tool `added`." }, async () => {
    server.registerTool(
        "added",
        { description: "Says hello.", inputSchema: { name: z.string() } },
        async ({ name }) => ({ content: [{ type: "text", text: `hello, ${name}` }] }),
    );
    return { content: [{ type: "text", text: "added" }] };
});
await server.connect(new StdioServerTransport());
