"""Resident memory of `toolhost serve --http` before, at the peak of and after a burst:
2,000 idle connections, 200 senders that never finish a request, and 64 calls at once
of the `hostile` test guest's echo with 3 MB arguments; then all closed, and the
server left idle for 30 s (BENCHMARKS.md, "Memory after a burst").

    python3 benches/burst_memory.py [TOOLHOST [PORT]]

TOOLHOST defaults to target/debug/toolhost; the guest is target/test-guests/hostile.wasm
(scripts/build-guests.sh). Linux only (it reads /proc)."""
import asyncio, json, os, shutil, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target/debug/toolhost")
port = int(sys.argv[2]) if len(sys.argv) > 2 else 47390
plugins = tempfile.mkdtemp()
shutil.copy(os.path.join(root, "target/test-guests/hostile.wasm"), plugins)
env = dict(os.environ, TOOLHOST_CACHE_DIR=os.path.join(root, "target/test-cache"))
server = subprocess.Popen([exe, "serve", "--plugins", plugins, "--http", f"127.0.0.1:{port}"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def rss():
    for line in open(f"/proc/{server.pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024

async def wait_ready():
    for _ in range(600):
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"); await w.drain()
            data = await r.read()
            w.close()
            if b" 200 " in data.split(b"\r\n")[0]:
                return
        except OSError:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit("not ready")

meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}

async def big_call():
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": "x" * 3_000_000}, "_meta": meta}}).encode()
    r, w = await asyncio.open_connection("127.0.0.1", port)
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            f"Mcp-Method: tools/call\r\nMcp-Name: echo\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    w.write(head + body); await w.drain()
    data = await r.read()
    w.close()
    return data.split(b"\r\n")[0]

async def main():
    await wait_ready()
    await asyncio.sleep(1)
    before = rss()
    idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(2000)]
    slow = []
    for _ in range(200):
        r, w = await asyncio.open_connection("127.0.0.1", port)
        w.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{"); await w.drain()
        slow.append((r, w))
    statuses = await asyncio.gather(*[big_call() for _ in range(64)])
    peak = rss()
    for _, w in idle + slow:
        w.close()
    await asyncio.sleep(5)
    after5 = rss()
    await asyncio.sleep(25)
    after30 = rss()
    ok = sum(1 for s in statuses if b" 200 " in s)
    print(f"resident MiB: before {before}, at the burst's peak {peak}, 5 s after {after5}, 30 s after {after30}; "
          f"{ok}/64 big calls answered 200")

try:
    asyncio.run(main())
finally:
    server.terminate()
    server.wait()
    shutil.rmtree(plugins)
