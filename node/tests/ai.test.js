'use strict';
// The AI SDK adapter through the SDK's own generateText, driven by its mock language
// model (`ai/test`) emitting drifted calls: a tool name no provider would send back
// as listed, and argument text that is not JSON. host.repairToolCall repairs both
// without a model; the SDK runs the tools and hands the results to the next step.
const test = require('node:test');
const assert = require('node:assert/strict');
const { generateText, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { Host, ToolExecutionError } = require('toolhost');
const { plugins, cacheDir } = require('./helpers');

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that makes `calls` first, then answers with text. */
function scripted(calls) {
  const toolCalls = calls.map(([toolName, input], i) => ({ type: 'tool-call', toolCallId: `call-${i}`, toolName, input }));
  return new MockLanguageModelV4({
    doGenerate: [
      { content: toolCalls, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] },
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ],
  });
}

let host;
test.before(async () => {
  host = await Host.load(plugins, { cacheDir });
});

test('aiTools gives the SDK every tool, with its schema, under a provider-valid name', () => {
  const tools = host.aiTools();
  assert.equal(Object.keys(tools).length, host.tools().length);
  for (const name of Object.keys(tools)) assert.match(name, /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
  assert.equal(tools.factorial.description, host.tool('factorial').description);
});

test('drifted calls are repaired without a model and run through generateText', async () => {
  const model = scripted([
    ['Factorial', '{"n": 5}'],
    ['gcd', "{a: 12, b: 18,}"],
    ['factorial', '{"n": "five"}'],
  ]);
  const result = await generateText({
    model,
    tools: host.aiTools(),
    repairToolCall: host.repairToolCall,
    stopWhen: stepCountIs(3),
    prompt: 'compute',
  });
  const first = result.steps[0];
  const outputs = Object.fromEntries(first.toolResults.map((r) => [r.toolCallId, r.output]));
  assert.equal(outputs['call-0'], 120, 'the name Factorial was repaired to factorial');
  assert.equal(outputs['call-1'], 6, 'the argument text was repaired');
  // What cannot be repaired stays the tool's error, with the corrective message.
  const errors = first.content.filter((part) => part.type === 'tool-error');
  assert.equal(errors.length, 1);
  assert.equal(errors[0].toolCallId, 'call-2');
  assert.ok(errors[0].error instanceof ToolExecutionError, String(errors[0].error));
  assert.equal(errors[0].error.kind, 'invalid_value');
  // The model's next step saw the results.
  const secondPrompt = JSON.stringify(model.doGenerateCalls[1].prompt);
  assert.match(secondPrompt, /120/);
  assert.equal(result.text, 'done');
});

test('without the repair hook the SDK reports the drifted name, as it would without toolhost', async () => {
  const model = scripted([['Factorial', '{"n": 5}']]);
  const result = await generateText({ model, tools: host.aiTools(), stopWhen: stepCountIs(2), prompt: 'x' });
  const errors = result.steps[0].content.filter((part) => part.type === 'tool-error');
  assert.equal(errors.length, 1);
  assert.equal(result.steps[0].toolResults.length, 0);
});

test('aiDisclosure shows find_tools and the core, and activates what it finds for the next step', async () => {
  const model = new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'find', toolName: 'find_tools', input: '{"query": "greatest common divisor"}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
      },
      {
        content: [{ type: 'tool-call', toolCallId: 'run', toolName: 'gcd', input: '{"a": 12, "b": 18}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
      },
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ],
  });
  const disclosure = host.aiDisclosure({ core: ['evaluate'] });
  assert.deepEqual(disclosure.activeTools, ['find_tools', 'evaluate']);
  const result = await generateText({ model, ...disclosure, stopWhen: stepCountIs(3), prompt: 'gcd of 12 and 18?' });
  const offered = model.doGenerateCalls.map((call) => (call.tools ?? []).map((t) => t.name).sort());
  assert.deepEqual(offered[0], ['evaluate', 'find_tools'], 'the first step sees the finder and the core');
  assert.ok(offered[1].includes('gcd') && offered[1].length < Object.keys(disclosure.tools).length, String(offered[1]));
  assert.equal(result.steps[1].toolResults[0].output, 6, 'the found tool ran');
  assert.equal(result.text, 'done');
});

test('definitions within a budget say what they left out; a disclosing host lists the finder first', () => {
  const { tools, leftOut } = host.definitions('openai', { most: 2, task: 'convert a temperature' });
  assert.equal(tools.length, 2);
  assert.equal(tools[0].function.name, 'convert');
  assert.equal(leftOut.length, host.tools().length - 2);
  const names = host.disclosing(['gcd'], 'mcp').toolDefinitions('mcp').map((d) => d.name);
  assert.deepEqual(names, ['find_tools', 'gcd']);
  assert.throws(() => host.disclosing(['[']), { name: 'ToolsetError' });
});
