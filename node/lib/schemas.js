'use strict';
// What every framework adapter shares: each tool's parameters as providers take them,
// and a result as the text of a tool message.

/** Each tool's parameters as the OpenAI-style definitions give them, by provider name. */
function providerSchemas(host) {
  const schemas = new Map();
  for (const definition of host.toolDefinitions('openai')) {
    schemas.set(definition.function.name, definition.function.parameters);
  }
  return schemas;
}

/** A result as the text of a tool message: strings as they are, the rest as JSON. */
function asText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

module.exports = { providerSchemas, asText };
