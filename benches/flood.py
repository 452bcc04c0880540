"""`toolhost serve --http` under attack, measured (BENCHMARKS.md, "Issue 49: floods"):
two legitimate clients call the `hostile` test guest's echo every 50 ms, one on a
kept-alive connection and one on a new connection per call, while

1. nothing else happens (the baseline);
2. an attacker without a token holds 10,000 idle TCP connections (the server's cap),
   opened from 16 loopback addresses (127.0.0.2 … 127.0.0.17; the per-address cap
   is 1,024);
3. another caller (a token of its own) floods: 256 connections calling as fast as
   they can.

Each phase prints how many of each legitimate client's calls were answered right,
their p50 and p99, and the server's resident memory. The server runs with two
static tokens (`legit`, `flood`), its limits at their defaults.

    python3 benches/flood.py [TOOLHOST [SECONDS]]

TOOLHOST defaults to target/release/toolhost; SECONDS (per phase) to 10. Linux only
(it reads /proc, binds 127.0.0.x). Raises its own open-file limit; run as root, or
with a hard limit above 11,000."""
import asyncio, json, os, resource, shutil, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOODING = len(sys.argv) == 4 and sys.argv[1] == "--flood"
exe = sys.argv[1] if len(sys.argv) > 1 and not FLOODING else os.path.join(root, "target/release/toolhost")
seconds = float(sys.argv[2]) if len(sys.argv) > 2 and not FLOODING else 10.0
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))

PORT = int(sys.argv[2]) if FLOODING else 47391
env = dict(os.environ, LEGIT_TOKEN="legit-" + "a" * 32, FLOOD_TOKEN="flood-" + "b" * 32)


def start_server():
    """The server, over a folder of its own (removed at the end)."""
    folder = tempfile.mkdtemp()
    plugins = os.path.join(folder, "plugins")
    os.mkdir(plugins)
    shutil.copy(os.path.join(root, "target/test-guests/hostile.wasm"), plugins)
    with open(os.path.join(folder, "toolhost.toml"), "w") as config:
        config.write('[auth.tokens]\nlegit = "${LEGIT_TOKEN}"\nflood = "${FLOOD_TOKEN}"\n')
    server = subprocess.Popen(
        [exe, "serve", "--config", os.path.join(folder, "toolhost.toml"), "--plugins", plugins,
         "--http", f"127.0.0.1:{PORT}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return server, folder


def rss_mib():
    for line in open(f"/proc/{server.pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024


def request(token, text):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": text},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    return head + body


async def read_response(reader):
    """The status and body of one response (Content-Length or chunked)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    headers = head.decode("latin-1").lower()
    if "content-length:" in headers:
        length = int(headers.split("content-length:")[1].split("\r\n")[0])
        return status, await reader.readexactly(length)
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            return status, body
        body += chunk[:-2]


async def call_once(reader, writer, token, text):
    writer.write(request(token, text))
    await writer.drain()
    status, body = await asyncio.wait_for(read_response(reader), 10)
    return status == 200 and text.encode() in body


class Tally:
    def __init__(self):
        self.right, self.wrong, self.latencies = 0, 0, []

    def line(self, name):
        ms = sorted(self.latencies) or [0.0]
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        return (f"{name}: {self.right} of {self.right + self.wrong} answered right, "
                f"p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms")


async def kept_alive(stop, tally):
    connection = None
    i = 0
    while not stop.is_set():
        i += 1
        started = time.perf_counter()
        try:
            if connection is None:
                connection = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", PORT), 10)
            ok = await call_once(*connection, env["LEGIT_TOKEN"], f"kept-{i}")
        except Exception:
            ok, connection = False, None
        tally.latencies.append((time.perf_counter() - started) * 1000)
        tally.right += ok
        tally.wrong += not ok
        await asyncio.sleep(0.05)


async def new_each_time(stop, tally):
    i = 0
    while not stop.is_set():
        i += 1
        started = time.perf_counter()
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", PORT), 10)
            ok = await call_once(reader, writer, env["LEGIT_TOKEN"], f"new-{i}")
            writer.close()
        except Exception:
            ok = False
        tally.latencies.append((time.perf_counter() - started) * 1000)
        tally.right += ok
        tally.wrong += not ok
        await asyncio.sleep(0.05)


async def phase(name, attack=None):
    stop = asyncio.Event()
    kept, new = Tally(), Tally()
    attacker = asyncio.create_task(attack(stop)) if attack else None
    if attacker:
        await asyncio.sleep(2)  # the attack under way first
    clients = [asyncio.create_task(kept_alive(stop, kept)), asyncio.create_task(new_each_time(stop, new))]
    await asyncio.sleep(seconds)
    memory = rss_mib()
    stop.set()
    await asyncio.gather(*clients)
    said = await attacker if attacker else ""
    print(f"{name}: {kept.line('kept-alive')}; {new.line('new connection each call')}; "
          f"server {memory} MiB{said}", flush=True)


async def idle_flood(stop):
    held, failed = [], 0
    for n in range(10_000):
        address = f"127.0.0.{2 + n % 16}"
        try:
            held.append(await asyncio.open_connection("127.0.0.1", PORT, local_addr=(address, 0)))
        except OSError:
            failed += 1
    await stop.wait()
    open_now = sum(1 for reader, _ in held if not reader.at_eof())
    for _, writer in held:
        writer.close()
    return f"; idle connections opened {len(held)}, still open at the end {open_now}, refused {failed}"


async def call_flood(stop):
    """Another caller's flood, from a process of its own (so that its client work
    does not delay the legitimate clients' in this one)."""
    flood = await asyncio.create_subprocess_exec(
        sys.executable, os.path.abspath(__file__), "--flood", str(PORT), env["FLOOD_TOKEN"],
        stdout=asyncio.subprocess.PIPE)
    await stop.wait()
    flood.terminate()
    out, _ = await flood.communicate()
    return f"; the flood's calls answered {out.decode().strip() or 0}"


async def flood_until_stopped(token):
    """256 connections calling as fast as they can; prints how many were answered
    right when told to stop (SIGTERM)."""
    import signal
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    calls = 0

    async def one(c):
        nonlocal calls
        connection = None
        while not stop.is_set():
            try:
                if connection is None:
                    connection = await asyncio.open_connection("127.0.0.1", PORT)
                answered = await call_once(*connection, token, f"flood-{c}")
                calls += answered
            except Exception:
                connection = None
    tasks = [asyncio.create_task(one(c)) for c in range(256)]
    await stop.wait()
    for task in tasks:
        task.cancel()
    print(calls, flush=True)


async def main():
    for _ in range(600):
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
            writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status, _ = await read_response(reader)
            writer.close()
            if status == 200:
                break
        except OSError:
            pass
        await asyncio.sleep(0.1)
    await phase("baseline")
    await phase("10,000 idle connections without a token", idle_flood)
    await asyncio.sleep(3)
    await phase("another caller's flood (256 connections)", call_flood)


if FLOODING:
    asyncio.run(flood_until_stopped(sys.argv[3]))
else:
    server, folder = start_server()
    try:
        asyncio.run(main())
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(folder)
