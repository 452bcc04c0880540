'use strict';
// The Vercel AI SDK (`ai`): the host's tools as the SDK's `tools` object, and a
// `repairToolCall` that repairs a call's name and input without asking a model.
const { jsonSchema, tool } = require('ai');
const { providerSchemas } = require('./schemas');

/**
 * Every tool of `host` as an AI SDK tool, keyed by the name providers accept
 * (`uber.ride` as `uber_ride`): its description, its JSON Schema, and an `execute`
 * that runs it in the sandbox. A failed call throws the corrective message, which the
 * SDK hands the model as the tool's error.
 */
function aiTools(host) {
  const schemas = providerSchemas(host);
  const tools = {};
  for (const spec of host.tools()) {
    tools[spec.providerName] = tool({
      description: spec.description,
      inputSchema: jsonSchema(schemas.get(spec.providerName) ?? spec.parameters),
      execute: (input, options = {}) => host.call(spec.name, input, { signal: options.abortSignal }),
    });
  }
  return tools;
}

/**
 * A function for `generateText`'s `repairToolCall` (or `experimental_repairToolCall`):
 * a call whose tool name the SDK does not know, or whose input is not JSON, is repaired
 * as the host repairs it (the name resolved, the input text read) and checked against
 * the tool's parameters, with no model involved. When nothing can be repaired it
 * returns null, and the SDK reports the error.
 */
function repairToolCall(host) {
  return async ({ toolCall, tools }) => {
    const repaired = host.repairCall(toolCall.toolName, toolCall.input ?? '');
    if (!repaired || !(repaired.providerName in (tools ?? {}))) return null;
    return { ...toolCall, toolName: repaired.providerName, input: JSON.stringify(repaired.arguments ?? {}) };
  };
}

/**
 * Progressive disclosure through the SDK's own `activeTools` and `prepareStep`: every
 * tool in `tools`, but only `find_tools` and the tools matching `core` active at
 * first; each tool `find_tools` finds is active from the next step on. Spread the
 * result into `generateText` (or `streamText`):
 *
 *   generateText({ model, ...host.aiDisclosure({ core: ['evaluate'] }), prompt })
 *
 * A `prepareStep` of your own can call this one's and add to what it returns.
 */
function aiDisclosure(host, { core = [] } = {}) {
  const shown = host.disclosing(core, 'openai');
  const tools = aiTools(host);
  const [finder, ...listed] = shown.toolDefinitions('openai').map((definition) => definition.function);
  tools[finder.name] = tool({
    description: finder.description,
    inputSchema: jsonSchema(finder.parameters),
    execute: async (input, options = {}) => jsonNumbers(await shown.call(finder.name, input, { signal: options.abortSignal })),
  });
  const activeTools = [finder.name, ...listed.map((definition) => definition.name)];
  const prepareStep = ({ steps = [] } = {}) => {
    const found = steps
      .flatMap((step) => step.toolResults ?? [])
      .filter((result) => result.toolName === finder.name)
      .flatMap((result) => result.output?.tools ?? [])
      .map((definition) => definition.function?.name)
      .filter((name) => name in tools);
    return { activeTools: [...new Set([...activeTools, ...found])] };
  };
  return { tools, activeTools, prepareStep };
}

/**
 * `value` with each bigint as a number: the definitions the finder returns carry
 * 64-bit integers' bounds, which arrive as bigints and which the SDK could not send.
 */
function jsonNumbers(value) {
  return JSON.parse(JSON.stringify(value, (_, inner) => (typeof inner === 'bigint' ? Number(inner) : inner)));
}

module.exports = { aiTools, aiDisclosure, repairToolCall };
