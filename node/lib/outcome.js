'use strict';
// CallOutcome: what a call did, without throwing.
const addon = require('./native');
const { ToolExecutionError, native } = require('./errors');

/** What a call did: which tool ran (after any repair), and its value or error. */
class CallOutcome {
  constructor(outcome) {
    /** The registered name of the tool that ran, or null when the name did not resolve. */
    this.tool = outcome.tool ?? null;
    /** The name the model sent, when it was repaired into `tool`. */
    this.repairedFrom = outcome.repairedFrom ?? null;
    /** What the host changed to run the call, each in words. */
    this.repairs = outcome.repairs ?? [];
    /** The result (null when the call failed). */
    this.value = outcome.error ? null : outcome.value;
    /** The ToolExecutionError (not thrown), or null. */
    this.error = outcome.error ? new ToolExecutionError(outcome.error) : null;
    /** The content blocks the tool added (images, audio, resources), in MCP's form. */
    this.content = outcome.content ?? [];
    /** Whether a person approved the call before it ran (`approval`). */
    this.approved = outcome.approved === true;
  }

  /** Whether the call succeeded. */
  get ok() {
    return this.error === null;
  }

  /** The value, or throws the error. */
  unwrap() {
    if (this.error) throw this.error;
    return this.value;
  }

  /**
   * The result as `format`'s tool-result message carries it: `mcp` (content blocks),
   * `anthropic` and `openai-responses` (with images), `openai` (text).
   */
  toolResult(format = 'openai') {
    if (this.error) {
      return native(() => addon.toolResult(format, null, [{ type: 'text', text: this.error.message }]));
    }
    return native(() => addon.toolResult(format, this.value ?? null, this.content));
  }
}

module.exports = { CallOutcome };
