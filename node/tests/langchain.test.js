'use strict';
// The LangChain.js adapter through LangChain's own tool code: each tool's schema as
// LangChain converts it for OpenAI, a tool call invoked into a ToolMessage, and a
// failed call's corrective message.
const test = require('node:test');
const assert = require('node:assert/strict');
const { convertToOpenAITool } = require('@langchain/core/utils/function_calling');
const { Host, ToolExecutionError } = require('toolhost');
const { plugins, cacheDir } = require('./helpers');

let host;
test.before(async () => {
  host = await Host.load(plugins, { cacheDir });
});

test('every tool becomes a LangChain tool with its name and schema', () => {
  const tools = host.langchainTools();
  assert.equal(tools.length, host.tools().length);
  const factorial = tools.find((tool) => tool.name === 'factorial');
  const converted = convertToOpenAITool(factorial);
  const definition = host.toolDefinitions('openai').find((d) => d.function.name === 'factorial');
  assert.deepEqual(converted.function.parameters.properties, definition.function.parameters.properties);
  assert.equal(converted.function.description, definition.function.description);
});

test('a tool call runs in the sandbox and comes back as a ToolMessage', async () => {
  const factorial = host.langchainTools().find((tool) => tool.name === 'factorial');
  const message = await factorial.invoke({ name: 'factorial', args: { n: 5 }, id: 'call-1', type: 'tool_call' });
  assert.equal(message.content, '120');
  assert.equal(message.tool_call_id, 'call-1');
  await assert.rejects(factorial.invoke({ n: 40 }), (error) => {
    assert.ok(error instanceof ToolExecutionError, String(error));
    assert.ok(error.message.length > 0);
    return true;
  });
});

test('a disclosing host with a caller: find_tools, then call_tool, as tool calls', async () => {
  const tools = host.disclosing(['evaluate'], 'openai', { caller: 'call_tool' }).langchainTools();
  assert.deepEqual(tools.map((tool) => tool.name), ['find_tools', 'call_tool', 'evaluate']);
  const [finder, caller] = tools;
  const found = await finder.invoke({ name: 'find_tools', args: { query: 'convert miles to kilometres', limit: 2 }, id: 'call-1', type: 'tool_call' });
  const definition = JSON.parse(found.content).tools[0];
  assert.equal(definition.function.name, 'convert');
  const args = { name: 'convert', arguments: { value: 2, from: 'kilometer', to: 'meter' } };
  const called = await caller.invoke({ name: 'call_tool', args, id: 'call-2', type: 'tool_call' });
  assert.equal(called.content, '2000');
  await assert.rejects(caller.invoke({ name: 'gcd', arguments: { a: 1 } }), (error) => {
    assert.ok(error instanceof ToolExecutionError && /'b'/.test(error.message), String(error));
    return true;
  });
});
