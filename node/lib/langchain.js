'use strict';
// LangChain.js (`@langchain/core`): the host's tools as LangChain structured tools.
const { tool } = require('@langchain/core/tools');
const { asText, providerSchemas } = require('./schemas');

/**
 * Every tool of `host` as a LangChain tool (name, description, JSON Schema), for
 * `model.bindTools(...)` and agents. A failed call throws ToolExecutionError, whose
 * message is the corrective message (LangGraph's ToolNode hands it to the model).
 */
function langchainTools(host) {
  const schemas = providerSchemas(host);
  return host.tools().map((spec) =>
    tool((input, config) => host.call(spec.name, input, { signal: config && config.signal }).then(asText), {
      name: spec.providerName,
      description: spec.description,
      schema: schemas.get(spec.providerName) ?? spec.parameters,
    }),
  );
}

module.exports = { langchainTools };
