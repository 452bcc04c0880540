'use strict';
// The OpenAI Agents SDK for JavaScript (`@openai/agents`): the host's tools as
// function tools.
const { tool } = require('@openai/agents');
const { asText, providerSchemas } = require('./schemas');

/**
 * Every tool `host` shows a model (see `shownTools`) as an Agents SDK function tool
 * (non-strict JSON Schema); a failed call answers the model with the corrective
 * message. On a host disclosing with a caller these are `find_tools`, `call_tool`
 * and the core: the model calls what it found through `call_tool`. The SDK reads the
 * model's argument text itself before a tool sees it: wrap the model with
 * `repairingModel` to have that text (and the tool's name) repaired first.
 */
function openaiAgentsTools(host) {
  const schemas = providerSchemas(host);
  return host.shownTools().map((spec) => {
    const functionTool = tool({
      name: spec.providerName,
      description: spec.description,
      parameters: schemas.get(spec.providerName) ?? spec.parameters,
      strict: false,
      execute: (input, _context, details) => host.call(spec.name, input, { signal: details && details.signal }).then(asText),
      errorFunction: (_context, error) => (error && error.message) || String(error),
    });
    return functionTool;
  });
}

/**
 * `model` (an Agents SDK Model) with each function call of its responses repaired as
 * the host repairs it, without a model: a drifted tool name resolved, argument text
 * that is not JSON read. A call that cannot be repaired is left as the model wrote it,
 * for the SDK to report. (Streamed responses pass through as they are.)
 */
function repairingModel(host, model) {
  return {
    async getResponse(request) {
      const response = await model.getResponse(request);
      return { ...response, output: response.output.map((item) => repairedItem(host, item)) };
    },
    getStreamedResponse(request) {
      return model.getStreamedResponse(request);
    },
  };
}

function repairedItem(host, item) {
  if (!item || item.type !== 'function_call') return item;
  const repaired = host.repairCall(item.name, item.arguments ?? '');
  if (!repaired) return item;
  return { ...item, name: repaired.providerName, arguments: JSON.stringify(repaired.arguments ?? {}) };
}

module.exports = { openaiAgentsTools, repairingModel };
