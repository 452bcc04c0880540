"""The Python MCP SDK's server (`MCPServer`) in stateless JSON mode with one tool,
`echo(text) -> text`, for benches/peers/compare-http.sh: `python sdk_echo_server.py PORT`."""

import sys

import uvicorn
from mcp.server import MCPServer

server = MCPServer("echo")


@server.tool()
def echo(text: str) -> str:
    """Returns the text."""
    return text


app = server.streamable_http_app(json_response=True, stateless_http=True)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
