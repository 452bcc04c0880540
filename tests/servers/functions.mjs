// An MCP server, on the MCP project's TypeScript SDK, that lists the tools a JSON file
// describes (an array of {name, description, inputSchema}, names as they are: dotted,
// long, anything) and answers every call with what it received, as the JSON text
// {"tool": name, "arguments": arguments}. The SDK's low-level server is used so that
// names and schemas reach the client exactly as written. Run as
// `node functions.mjs NODE_MODULES TOOLS_JSON` (see changing.mjs for NODE_MODULES).
import { readFileSync } from "node:fs";

const [modules, file] = process.argv.slice(2);
const { Server } = await import(`${modules}/@modelcontextprotocol/sdk/dist/esm/server/index.js`);
const { StdioServerTransport } = await import(`${modules}/@modelcontextprotocol/sdk/dist/esm/server/stdio.js`);
const { ListToolsRequestSchema, CallToolRequestSchema } = await import(
    `${modules}/@modelcontextprotocol/sdk/dist/esm/types.js`
);

const tools = JSON.parse(readFileSync(file, "utf8"));
const server = new Server({ name: "functions", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (!tools.some((tool) => tool.name === name)) {
        return { isError: true, content: [{ type: "text", text: `no tool ${name}` }] };
    }
    return { content: [{ type: "text", text: JSON.stringify({ tool: name, arguments: args ?? {} }) }] };
});
await server.connect(new StdioServerTransport());
