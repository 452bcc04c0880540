// The console in a real browser: Debian's chromium, driven by puppeteer-core, against a
// `toolhost serve --http --console` that tests/all/console.rs started. Each check
// asserts; the first that fails ends the run with its message (exit status 1).
//
//   node browser.mjs MODULES URL TOKEN CHROMIUM [SCREENSHOTS]
//
// MODULES: the node_modules holding puppeteer-core; URL: the server (http://127.0.0.1:PORT);
// TOKEN: its token; CHROMIUM: the browser; SCREENSHOTS: a folder to save each page's
// screenshot in (docs/console when the README's pictures are made again).
import assert from "node:assert/strict";
import path from "node:path";
import { createRequire } from "node:module";

const [modules, base, token, chromium, screenshots] = process.argv.slice(2);
const require = createRequire(path.join(modules, "index.js"));
const puppeteer = require("puppeteer-core");

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
});
const failures = [];
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 800 });
  // Anything a page runs or is refused is a finding: no script may run, and the
  // console's own pages must not break their policy.
  page.on("dialog", (dialog) => {
    failures.push(`a dialog opened: ${dialog.message()}`);
    dialog.dismiss();
  });
  page.on("console", (message) => {
    // A wrong token's page is answered 401, which the browser reports; nothing else.
    const refusedSignIn = message.text().includes("status of 401");
    if (message.type() === "error" && !refusedSignIn) failures.push(`console error: ${message.text()}`);
  });
  const go = async (where) => {
    const answer = await page.goto(base + where, { waitUntil: "load" });
    return answer;
  };
  const text = () => page.evaluate(() => document.body.innerText);
  const shot = async (name) => {
    if (screenshots) await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  };
  const submit = async (selector) => {
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
  };

  // Without the token: the sign-in page, and no tool named anywhere.
  await go("/console/tools");
  assert.match(page.url(), /\/console\/sign-in$/, "without a session, the tools page sends to sign in");
  assert.doesNotMatch(await text(), /gcd|echo|factorial/, "no tool is named before signing in");
  await page.type("#token", token + "-wrong");
  await submit("button[type=submit]");
  assert.match(await text(), /Not signed in/, "a wrong token is refused, saying so");
  assert.doesNotMatch(await text(), /gcd|echo/, "a wrong token sees no tool");
  await shot("sign-in");

  // Signed in: every tool, the style sheet applied (the policy lets it in).
  await page.type("#token", token);
  await submit("button[type=submit]");
  assert.match(page.url(), /\/console\/tools$/, "signing in leads to the tools");
  const rows = await page.$$eval("table.tools tbody tr", (trs) => trs.length);
  assert.ok(rows > 10, `the tools are listed (${rows})`);
  const display = await page.$eval("header", (header) => getComputedStyle(header).display);
  assert.equal(display, "flex", "the console's style sheet is applied");
  const cookie = (await page.cookies()).find((c) => c.name === "toolhost_console");
  assert.ok(cookie && cookie.httpOnly && cookie.sameSite === "Strict", "the session cookie is HttpOnly and Strict");
  assert.ok(!page.url().includes(token), "the token is in no address");

  // A search finds the tool.
  await page.type("input[name=q]", "greatest common divisor of two numbers");
  await submit("form.search button");
  const first = await page.$eval("table.tools tbody tr td a", (a) => a.textContent);
  assert.equal(first, "gcd", "the search puts gcd first");
  await shot("tools");

  // A tool's page: its parameters as a table.
  await go("/console/tools/gcd");
  const params = await page.$$eval("table.params tbody tr td:first-child", (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(params, ["a", "b"], "gcd's parameters are listed");
  await shot("tool");

  // Try: a drifted call's steps, nothing run; then run.
  await go("/console/try");
  await page.type("#tool", "GCD");
  await page.type("#text", "{A: 12, b: '18',}");
  await submit("button[value=steps]");
  let steps = await text();
  assert.match(steps, /name 'GCD' → 'gcd'/, "the name's repair is shown");
  assert.match(steps, /argument text: /, "the argument text's repair is shown");
  assert.match(steps, /parameter 'A' read as 'a'/, "the key's repair is shown");
  assert.match(steps, /"b": 18/, "the arguments as bound");
  assert.doesNotMatch(steps, /Result/, "showing the steps runs nothing");
  await submit("button[value=run]");
  steps = await text();
  assert.match(steps, /Result\s+6/, "running it gives gcd(12, 18)");
  await shot("try");

  // Try a reply whose call is refused: the message the model would get.
  await go("/console/try");
  await page.type("#text", 'Let me check. <tool_call>{"name": "gcd", "arguments": {"a": "twelve", "b": 18}}</tool_call>');
  await submit("button[value=steps]");
  steps = await text();
  assert.match(steps, /tool_call_tag/, "the dialect is named");
  assert.match(steps, /Not run\. The model would be told:/, "a refused call is not run");
  assert.match(steps, /'a'/, "its message names the argument");
  await shot("try-refused");

  // A tool whose description is markup, and markup pasted into Try: shown as text,
  // nothing run.
  await go("/console/tools/echo");
  const description = await page.$eval("pre.description", (pre) => pre.textContent);
  assert.match(description, /<script>/, "the description's markup is shown as text");
  const described = await page.evaluate(() => [typeof window.ranInDescription, document.querySelectorAll("main script, main img").length]);
  assert.deepEqual(described, ["undefined", 0], "the description's markup ran nothing and made no element");
  await go("/console/try");
  await page.type("#tool", "echo");
  await page.type("#text", '{"text": "<img src=x onerror=\\"window.ranInTry = 1\\"><script>window.ranInTry = 2</script>"}');
  await submit("button[value=run]");
  assert.match(await text(), /<img src=x onerror=/, "markup in a result is shown as text");
  const ran = await page.evaluate(() => [typeof window.ranInTry, document.querySelectorAll("main script, main img").length]);
  assert.deepEqual(ran, ["undefined", 0], "markup from a model or a result ran nothing and made no element");

  // A call made over MCP (stateless, as any client's), with a drifted name: it
  // appears in Calls with its repair, and the failed one with its message.
  const mcpCall = async (name, args) => {
    const body = {
      jsonrpc: "2.0", id: 1, method: "tools/call",
      params: { name, arguments: args, _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
    };
    const answer = await fetch(base + "/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${token}`, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name },
      body: JSON.stringify(body),
    });
    assert.equal(answer.status, 200, `the MCP call of ${name} is answered`);
  };
  await mcpCall("Factorial", { n: 5 });
  await mcpCall("factorial", { n: "five" });
  await go("/console/calls");
  const calls = await text();
  assert.match(calls, /factorial\s+ok\s+token/, "the MCP call is in Calls, ok, by the token's caller");
  assert.match(calls, /factorial\s+invalid_\w+/, "the refused call is in Calls with its kind");
  await page.click("details.call summary");
  assert.match(await text(), /Repaired: name 'Factorial' → 'factorial'|The model was told:/, "a call opens");
  await page.select("select[name=outcome]", "failed");
  await submit("form.filters button");
  const failedOnly = await page.$$eval("details.call .outcome", (spans) => spans.map((s) => s.textContent));
  assert.ok(failedOnly.length > 0 && failedOnly.every((o) => o !== "ok"), `only failed calls: ${failedOnly}`);
  await go("/console/calls");
  const opened = await page.$$("details.call");
  for (const details of opened.slice(0, 3)) await details.evaluate((d) => { d.open = true; });
  await shot("calls");

  // Health: the counts, the charts drawn from the calls made, the components.
  await go("/console/health");
  const health = await text();
  assert.match(health, /tools from \d+ components/, "the counts");
  const bars = await page.$$eval("figure.chart", (figures) => figures.map((f) => f.querySelectorAll("rect").length));
  assert.deepEqual(bars.length, 3, "three charts");
  assert.ok(bars.every((n) => n === 60), `a bar per ten seconds over ten minutes: ${bars}`);
  const tallest = await page.$$eval("figure.chart rect", (rects) => Math.max(...rects.map((r) => Number(r.getAttribute("height")))));
  assert.ok(tallest > 0, "the calls made show in the chart");
  assert.match(health, /calculator/, "the components are listed");
  assert.match(health, /service\s+1\s+0\s+up/, "the MCP server plugin, its one tool, no restart, up");
  await shot("health");

  // Signing out ends the session.
  await submit("header form button");
  await go("/console/tools");
  assert.match(page.url(), /\/console\/sign-in$/, "signed out, the tools page sends to sign in again");
} finally {
  await browser.close();
}
assert.deepEqual(failures, [], "nothing ran, nothing was refused by the page's policy");
console.log("console: every check passed");
