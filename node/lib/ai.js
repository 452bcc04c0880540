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

module.exports = { aiTools, repairToolCall };
