'use strict';
// LangChain.js (`@langchain/core`): the host's tools as LangChain structured tools.
const { tool } = require('@langchain/core/tools');
const { asText, providerSchemas } = require('./schemas');

/**
 * Every tool `host` shows a model (see `shownTools`) as a LangChain tool (name,
 * description, JSON Schema), for `model.bindTools(...)` and agents. A failed call
 * throws ToolExecutionError, whose message is the corrective message (LangGraph's
 * ToolNode hands it to the model). On a host disclosing with a caller these are
 * `find_tools`, `call_tool` and the core: the model calls what it found through
 * `call_tool`.
 */
function langchainTools(host) {
  const schemas = providerSchemas(host);
  return host.shownTools().map((spec) =>
    tool((input, config) => host.call(spec.name, input, { signal: config && config.signal }).then(asText), {
      name: spec.providerName,
      description: spec.description,
      schema: schemas.get(spec.providerName) ?? spec.parameters,
    }),
  );
}

module.exports = { langchainTools };
