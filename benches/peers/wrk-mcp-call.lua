-- A stateless MCP tools/call for wrk: BODY and PROTOCOL come from the environment.
-- Every answer must be 200 and carry the echoed text; done() prints how many did not.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = os.getenv("PROTOCOL")
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"

local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    bad = 0
end

function response(status, headers, body)
    if status ~= 200 or not string.find(body, "wrk-echo", 1, true) then
        bad = bad + 1
    end
end

function done(summary, latency, requests)
    local total = 0
    for _, thread in ipairs(threads) do
        total = total + thread:get("bad")
    end
    io.write(string.format("bad_answers %d\n", total))
end
