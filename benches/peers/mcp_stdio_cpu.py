"""Server CPU per MCP call over stdio: what `toolhost serve` itself spends on one call.

Starts the server on a plugin folder, initialises a session, makes 300 calls to warm
up, then CALLS sequential `tools/call` requests and prints the server's CPU time
(user + system, from /proc/PID/stat, so every thread of it counts) and the wall time
per call. The client is this script: its own time is not counted.

    python3 benches/peers/mcp_stdio_cpu.py [TOOLHOST] [PLUGINS] [CALLS] [TOOL] [ARGUMENTS_JSON]

Defaults: target/release/toolhost, a folder holding only the hostile test guest (so
that `echo` is one tool's name), 3000 calls of echo {"text": "hello"}.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "release" / "toolhost")
    plugins = sys.argv[2] if len(sys.argv) > 2 else None
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    tool = sys.argv[4] if len(sys.argv) > 4 else "echo"
    arguments = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {"text": "hello"}
    with tempfile.TemporaryDirectory() as scratch:
        if plugins is None:
            plugins = scratch
            shutil.copy(ROOT / "target" / "test-guests" / "hostile.wasm", scratch)
        environment = {**os.environ, "TOOLHOST_CACHE_DIR": str(ROOT / "target" / "bench-cache")}
        server = subprocess.Popen(
            [binary, "serve", "--plugins", plugins],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment, bufsize=0,
        )
        per_call_cpu, per_call_wall = measure(server, calls, tool, arguments)
        server.stdin.close()
        server.wait(timeout=30)
    print(f"{tool}: server CPU {per_call_cpu:.0f} us/call, wall {per_call_wall:.0f} us/call over {calls} calls")


def measure(server, calls, tool, arguments):
    def send(message):
        server.stdin.write((json.dumps(message) + "\n").encode())

    def receive():
        return json.loads(server.stdout.readline())

    def cpu_seconds():
        with open(f"/proc/{server.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def call(number):
        send({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        answer = receive()
        if "result" not in answer or answer["result"].get("isError"):
            raise SystemExit(f"the call failed: {answer}")

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    receive()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for number in range(1, 301):
        call(number)
    cpu_before, wall_before = cpu_seconds(), time.perf_counter()
    for number in range(1000, 1000 + calls):
        call(number)
    cpu_after, wall_after = cpu_seconds(), time.perf_counter()
    return 1e6 * (cpu_after - cpu_before) / calls, 1e6 * (wall_after - wall_before) / calls


if __name__ == "__main__":
    main()
