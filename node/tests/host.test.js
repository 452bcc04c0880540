'use strict';
// The host from Node: calls and their repairs, the corrective errors, many calls at
// once without blocking the event loop, cancellation by AbortSignal, toolsets,
// extraction from reply text, tool results per provider format.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Host, ToolExecutionError, LoadError, ToolsetError } = require('toolhost');
const path = require('node:path');
const { plugins, guest, cacheDir } = require('./helpers');

let examples;
let hostile;
test.before(async () => {
  examples = await Host.load(plugins, { cacheDir });
  hostile = await Host.load(guest('hostile'), { cacheDir, limits: { timeMs: 10000 } });
});

test('a call runs the tool and a drifted call is repaired', async () => {
  assert.equal(await examples.call('factorial', { n: 5 }), 120);
  const outcome = await examples.dispatch('Factorial', { N: '5' });
  assert.equal(outcome.ok, true);
  assert.equal(outcome.value, 120);
  assert.equal(outcome.tool, 'factorial');
  assert.equal(outcome.repairedFrom, 'Factorial');
  assert.ok(outcome.repairs.length >= 2, outcome.repairs.join('; '));
  assert.equal(await examples.callText('factorial', "{n: 5,}"), 120);
});

test('a failed call rejects with the corrective message and its facts', async () => {
  await assert.rejects(examples.call('no_such_tool', {}), (error) => {
    assert.ok(error instanceof ToolExecutionError);
    assert.equal(error.kind, 'unknown_tool');
    assert.equal(error.calledName, 'no_such_tool');
    assert.ok(error.availableTools.includes('factorial'));
    assert.match(error.message, /not found/);
    assert.deepEqual(error.toJSON().available_tools, error.availableTools);
    assert.equal(error.toJSON().error, error.message);
    return true;
  });
  const outcome = await examples.dispatch('factorial', { n: 'five' });
  assert.equal(outcome.ok, false);
  assert.equal(outcome.error.kind, 'invalid_value');
  assert.throws(() => outcome.unwrap(), ToolExecutionError);
  // What JSON cannot carry is the model's slip, told as such; the host serves on.
  const notJson = await examples.dispatch('factorial', { n: NaN });
  assert.equal(notJson.error.kind, 'invalid_value');
  assert.match(notJson.error.message, /finite number/);
});

test('many calls at once all resolve, and the event loop keeps running meanwhile', async () => {
  const calls = Array.from({ length: 300 }, (_, i) => hostile.call('echo', { text: `call ${i}` }));
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 5);
  const slow = hostile.call('sleep', { ms: 300 });
  const answers = await Promise.all(calls);
  assert.equal(await slow, 300);
  clearInterval(timer);
  answers.forEach((answer, i) => assert.equal(answer, `call ${i}`));
  assert.ok(ticks >= 10, `the event loop ran ${ticks} timer ticks during a 300 ms call`);
});

test('an AbortSignal stops an endless call and frees its turn', async () => {
  const controller = new AbortController();
  const started = Date.now();
  const endless = hostile.call('spin', {}, { signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(endless, (error) => error instanceof ToolExecutionError && error.kind === 'cancelled');
  assert.ok(Date.now() - started < 3000, `stopped after ${Date.now() - started} ms (limit 10 s)`);
  assert.equal(await hostile.call('echo', { text: 'next' }), 'next');
  // A signal aborted before the call: the call does not run on.
  const aborted = AbortSignal.abort();
  const outcome = await hostile.dispatch('spin', {}, { signal: aborted });
  assert.equal(outcome.error.kind, 'cancelled');
  // The same for a call with the model's argument text.
  const textCall = hostile.dispatchText('spin', '{}', { signal: AbortSignal.timeout(100) });
  assert.equal((await textCall).error.kind, 'cancelled');
});

test('tools are found by what they do', () => {
  const found = examples.searchTools('convert miles to kilometers', 3);
  assert.equal(found[0].name, 'convert');
  assert.ok(found.length <= 3 && found[0].score >= found.at(-1).score);
  assert.ok(examples.searchTools('greatest common divisor').some((tool) => tool.name === 'gcd'));
  assert.deepEqual(examples.searchTools('zebra crossing'), []);
  assert.throws(() => examples.searchTools('text', -1), TypeError);
});

test('toolsets, definitions and the load report', async () => {
  const math = examples.toolset(['factorial', 'gcd']);
  assert.deepEqual(math.tools().map((tool) => tool.name), ['factorial', 'gcd']);
  assert.throws(() => examples.toolset(['factorail']), (error) => error instanceof ToolsetError && /factorial/.test(error.message));
  const openai = examples.toolDefinitions('openai');
  assert.equal(openai.length, examples.tools().length);
  assert.equal(openai[0].type, 'function');
  assert.throws(() => examples.toolDefinitions('gemini'), TypeError);
  const report = examples.loadReport();
  assert.ok(report.components.some((component) => component.name === 'calculator'));
  assert.deepEqual(examples.warnings, report.warnings);
  await assert.rejects(Host.load('/no/such/folder', { cacheDir }), LoadError);
  await assert.rejects(Host.load(plugins, { cache: false, cacheDir }), TypeError);
  const calculator = path.join(plugins, 'calculator.wasm');
  const baseline = await Host.load(calculator, { cache: false, compiler: 'baseline' });
  assert.equal(baseline.loadReport().components[0].baseline, true);
  assert.equal(await baseline.call('gcd', { a: 2, b: 4 }), 2);
  await assert.rejects(Host.load(calculator, { compiler: 'fast' }), (error) => error instanceof TypeError && /'baseline'/.test(error.message));
});

test('calls written into reply text are found and run', async () => {
  const reply = 'Let me compute.\n<tool_call>{"name": "Factorial", "arguments": {"n": 6}}</tool_call>\n' +
    '<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>';
  const found = examples.extractCalls(reply);
  assert.equal(found.calls.length, 1);
  assert.equal(found.rejected.length, 1);
  assert.ok(found.rejected[0].error instanceof ToolExecutionError);
  assert.equal(found.calls[0].tool, 'factorial');
  assert.equal((await examples.dispatchCall(found.calls[0])).value, 720);
  assert.equal((await examples.dispatchCall(found.rejected[0])).error.kind, 'unknown_tool');
});

test('a repair is told without running the call', () => {
  const repaired = examples.repairCall('Factorial', '{n: 5,}');
  assert.equal(repaired.tool, 'factorial');
  assert.deepEqual(repaired.arguments, { n: 5 });
  assert.ok(repaired.repairs.some((repair) => repair.includes('Factorial')));
  assert.equal(examples.repairCall('factorial', '{"n": "five"}'), null);
  assert.equal(examples.repairCall('no_such_tool', '{}'), null);
});

test("results as each provider's tool result carries them", async () => {
  const outcome = await examples.dispatch('factorial', { n: 3 });
  assert.equal(outcome.toolResult('openai'), '6');
  assert.deepEqual(outcome.toolResult('mcp'), [{ type: 'text', text: '6' }]);
  const failed = await examples.dispatch('factorial', { n: 'x' });
  assert.equal(failed.toolResult('openai'), failed.error.message);
});
