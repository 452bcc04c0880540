'use strict';
// toolhost for Node.js: run an AI agent's tools as sandboxed WebAssembly components.
const { Host } = require('./host');
const { CallOutcome } = require('./outcome');
const { ToolExecutionError, LoadError, ToolsetError } = require('./errors');

module.exports = { Host, CallOutcome, ToolExecutionError, LoadError, ToolsetError };
