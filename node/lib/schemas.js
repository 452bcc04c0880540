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

/**
 * A result as the text of a tool message: strings as they are, the rest as JSON, a
 * bigint (a 64-bit integer beyond 2^53, as a schema's bounds in the definitions
 * `find_tools` returns) written as its digits.
 */
function asText(value) {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, (_, inner) => (typeof inner === 'bigint' ? exactly(inner) : inner));
}

/** A bigint as JSON keeps it: its digits (JSON.rawJSON, Node 21+), else the nearest number. */
function exactly(bigint) {
  return typeof JSON.rawJSON === 'function' ? JSON.rawJSON(bigint.toString()) : Number(bigint);
}

module.exports = { providerSchemas, asText };
