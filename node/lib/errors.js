'use strict';
// The errors toolhost throws. A failed tool call is a ToolExecutionError whose
// message is the corrective message to hand back to the model.

// camelCase property for each fact of the library's ToolError::to_json (`name`, the
// name the model sent, and `message`, a tool's own, would shadow Error's own).
const FACTS = {
  kind: 'kind', tool: 'tool', name: 'calledName', suggestion: 'suggestion', available_tools: 'availableTools', nearest_tools: 'nearestTools',
  candidates: 'candidates', expected_parameters: 'expectedParameters', problem: 'problem', path: 'path',
  expected: 'expected', got: 'got', message: 'toolMessage', reason: 'reason', denied: 'denied',
  limit_ms: 'limitMs', limit_bytes: 'limitBytes', running: 'running', queued: 'queued', waited_ms: 'waitedMs',
  server: 'server', retry: 'retry', per_minute: 'perMinute', retry_after_ms: 'retryAfterMs',
};

/** A tool call failed; `message` is the corrective message for the model. */
class ToolExecutionError extends Error {
  constructor(details) {
    const facts = typeof details === 'string' ? { error: details, kind: 'unknown' } : { ...details };
    super(facts.error);
    this.name = 'ToolExecutionError';
    Object.defineProperty(this, 'details', { value: facts, enumerable: false });
    for (const [key, property] of Object.entries(FACTS)) {
      this[property] = facts[key] ?? null;
    }
  }

  /** The structured form, as the Rust library's `ToolError::to_json`: `{error, kind, ...facts}`. */
  toJSON() {
    return { ...this.details };
  }
}

/** A host could not be built or reloaded: a plugin folder or file could not be read or used. */
class LoadError extends Error {
  constructor(message) {
    super(message);
    this.name = 'LoadError';
  }
}

/** A toolset names something that is not exactly one tool; the message has the nearest name. */
class ToolsetError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ToolsetError';
  }
}

const CLASSES = { LoadError, ToolsetError, TypeError, RangeError };

/** The addon's failure as the class its message starts with (`LoadError: …`). */
function translated(error) {
  const found = /^(\w+): ([\s\S]*)$/.exec(error && error.message);
  const Class = found && CLASSES[found[1]];
  return Class ? new Class(found[2]) : error;
}

/** Runs `work`, throwing the addon's failures as their classes. */
function native(work) {
  try {
    const result = work();
    return result && typeof result.then === 'function' ? result.catch((e) => Promise.reject(translated(e))) : result;
  } catch (error) {
    throw translated(error);
  }
}

module.exports = { ToolExecutionError, LoadError, ToolsetError, native };
