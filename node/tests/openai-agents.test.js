'use strict';
// The OpenAI Agents SDK adapter through the SDK's own Runner, with a scripted model
// (the SDK's Model interface) wrapped by repairingModel: the drifted name and argument
// text are repaired before the SDK reads them, the tool runs in the sandbox, and a
// failed call answers the model with the corrective message; without the wrapper the
// SDK refuses the text, as it would without toolhost.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Agent, Runner, Usage } = require('@openai/agents');
const { Host } = require('toolhost');
const { repairingModel } = require('toolhost/openai-agents');
const { plugins, cacheDir } = require('./helpers');

/** A model that makes `calls` first, then answers "done", keeping what it was sent. */
class ScriptedModel {
  constructor(calls) {
    this.calls = calls;
    this.requests = [];
  }

  async getResponse(request) {
    this.requests.push(request);
    const output =
      this.requests.length === 1
        ? this.calls.map(([name, args], i) => ({ type: 'function_call', callId: `call-${i}`, name, arguments: args, status: 'completed' }))
        : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }];
    return { output, usage: new Usage(), responseId: `response-${this.requests.length}` };
  }

  async *getStreamedResponse() {
    throw new Error('not streamed in these tests');
  }
}

let host;
test.before(async () => {
  host = await Host.load(plugins, { cacheDir });
});

test('an agent runs the tools, repaired text and failures included', async () => {
  const model = new ScriptedModel([
    ['Factorial', '{n: 5,}'],
    ['factorial', '{"n": "five"}'],
  ]);
  const tools = host.openaiAgentsTools();
  const agent = new Agent({ name: 'calculator', instructions: 'compute', model: repairingModel(host, model), tools });
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'compute');
  assert.equal(result.finalOutput, 'done');
  const outputs = result.newItems.filter((item) => item.type === 'tool_call_output_item').map((item) => item.output);
  assert.equal(outputs.length, 2);
  assert.equal(outputs[0], '120', 'the name and the argument text were repaired before the SDK read them');
  assert.match(String(outputs[1]), /factorial/, 'the failure answers the model with the corrective message');
  // The model's second turn was sent both outputs.
  const sent = JSON.stringify(model.requests[1].input);
  assert.match(sent, /120/);
});

test('without repairingModel the SDK refuses argument text that is not JSON', async () => {
  const model = new ScriptedModel([['factorial', '{n: 5,}']]);
  const agent = new Agent({ name: 'calculator', instructions: 'compute', model, tools: host.openaiAgentsTools() });
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'compute');
  const outputs = result.newItems.filter((item) => item.type === 'tool_call_output_item').map((item) => item.output);
  assert.doesNotMatch(String(outputs[0]), /^120$/);
});

test('a disclosing host with a caller: the agent finds a tool, then calls it through call_tool', async () => {
  const shown = host.disclosing(['evaluate'], 'openai', { caller: 'call_tool' });
  const requests = [];
  const outputOf = (request) => request.input.filter((item) => item.type === 'function_call_result').at(-1).output;
  const model = {
    async getResponse(request) {
      requests.push(request);
      const call = (name, args) => ({ type: 'function_call', callId: `call-${requests.length}`, name, arguments: JSON.stringify(args), status: 'completed' });
      let output;
      if (requests.length === 1) {
        output = [call('find_tools', { query: 'greatest common divisor of two numbers' })];
      } else if (requests.length === 2) {
        const found = JSON.parse(outputOf(request).text)['tools'][0].function.name;
        output = [call('call_tool', { name: found, arguments: { a: 12, b: '18' } })];
      } else {
        output = [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `It is ${outputOf(request).text}.` }] }];
      }
      return { output, usage: new Usage(), responseId: `response-${requests.length}` };
    },
    async *getStreamedResponse() {
      throw new Error('not streamed in these tests');
    },
  };
  const agent = new Agent({ name: 'maths', instructions: 'use the tools', model, tools: shown.openaiAgentsTools() });
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'What is the gcd of 12 and 18?');
  assert.deepEqual(requests[0].tools.map((tool) => tool.name), ['find_tools', 'call_tool', 'evaluate']);
  assert.match(requests[0].tools[0].description, /through call_tool/);
  assert.equal(result.finalOutput, 'It is 6.');
});
