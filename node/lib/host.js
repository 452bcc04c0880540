'use strict';
// Host: a set of sandboxed WebAssembly tools. Every call returns a Promise; a tool
// runs on the event loop's thread only until it first waits or reaches its first
// epoch tick (5 ms at most), then off it (see node/src/host.rs, `dispatch`); an
// AbortSignal stops a call at the tool's next epoch tick.
const addon = require('./native');
const { ToolExecutionError, native } = require('./errors');
const { CallOutcome } = require('./outcome');

const EXTRACTED = Symbol('toolhost.extracted');

/**
 * `options` with `approval.ask(tool, args)` made what the native half calls: one
 * argument, `{tool, arguments}`, and always a Promise of a boolean (`true` only when
 * the person said yes); a throw or rejection is warned about and dismisses the call.
 */
function nativeOptions(options) {
  const approval = options?.approval;
  if (approval == null) return options;
  const ask = approval.ask;
  if (typeof ask !== 'function') {
    throw new TypeError('approval.ask must be a function (tool, args) => boolean | Promise<boolean>');
  }
  const asking = (request) =>
    Promise.resolve()
      .then(() => ask(request.tool, request.arguments))
      .then(
        (answer) => answer === true,
        (error) => {
          process.emitWarning(`toolhost: approval.ask failed, so the call of '${request.tool}' was not run: ${error}`);
          throw error;
        },
      );
  return { ...options, approval: { ...approval, ask: asking } };
}

class Host {
  /** @internal Use `Host.load`. */
  constructor(nativeHost) {
    this._native = nativeHost;
  }

  /**
   * Loads every component in `plugins` (a folder, a `.wasm` file, or a list of them):
   * `{cacheDir, cache, watch, limits: {timeMs, memoryMb, outputKb, resultKb},
   * capacity: {maxConcurrentCalls, maxQueuedCalls, queueTimeoutMs},
   * compiler: "auto" | "optimizing" | "baseline",
   * approval: {ask(tool, args) => boolean | Promise<boolean>, destructive, tools, waitMs}}`.
   * Rejects with a LoadError.
   */
  static async load(plugins, options = {}) {
    const paths = Array.isArray(plugins) ? plugins.map(String) : [String(plugins)];
    return new Host(await native(() => addon.loadHost(paths, nativeOptions(options))));
  }

  /** Every active tool, sorted by name. */
  tools() {
    return this._native.tools();
  }

  /**
   * The tools a model is shown, as `tools()` has them: every active tool, or a
   * disclosing host's `find_tools`, its caller and its core. The framework adapters
   * give these.
   */
  shownTools() {
    return this._native.shownTools();
  }

  /** The active tool registered under exactly `name`, or null. */
  tool(name) {
    return this._native.tool(String(name)) ?? null;
  }

  /**
   * The active tools that best fit `query` (a task in words, or a made-up tool
   * name), best first, at most `limit`, each as `tools()` has it plus its `score`.
   */
  searchTools(query, limit = 10) {
    if (!Number.isInteger(limit) || limit < 0) {
      throw new TypeError(`limit must be a non-negative integer, got ${limit}`);
    }
    return this._native.searchTools(String(query), limit);
  }

  /** Calls a tool by the name a model sent, with its arguments; rejects with ToolExecutionError. */
  async call(name, args = {}, options = {}) {
    return (await this.dispatch(name, args, options)).unwrap();
  }

  /** Calls a tool with the argument text a model wrote (JSON, repaired where it has one reading). */
  async callText(name, text, options = {}) {
    return (await this.dispatchText(name, text, options)).unwrap();
  }

  /** Like `call`, resolving to a CallOutcome instead of rejecting. */
  async dispatch(name, args = {}, options = {}) {
    return this._run(String(name), args ?? {}, false, options.signal);
  }

  /** Like `callText`, resolving to a CallOutcome. */
  async dispatchText(name, text, options = {}) {
    return this._run(String(name), String(text), true, options.signal);
  }

  async _run(name, args, text, signal) {
    const invalid = text ? null : unsendable(args);
    if (invalid) {
      return new CallOutcome({ error: invalidValue(name, invalid) });
    }
    if (!signal) {
      return new CallOutcome(await this._native.dispatch(name, args, text, null));
    }
    const cancellation = new addon.Cancellation();
    const abort = () => cancellation.cancel();
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    try {
      return new CallOutcome(await this._native.dispatch(name, args, text, cancellation));
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }

  /**
   * What a model's call of `name` with argument text `args` would run, repaired as the
   * host repairs it, without running it: `{tool, providerName, arguments, repairs}`, or
   * null when it cannot be repaired (`error` then says why).
   */
  repairCall(name, args) {
    const repaired = this._native.repairCall(String(name), typeof args === 'string' ? args : JSON.stringify(args ?? {}));
    return repaired.error ? null : repaired;
  }

  /** Every active tool's definition in a provider's format: `openai`, `openai-responses`, `anthropic` or `mcp`. */
  toolDefinitions(format = 'openai') {
    return native(() => this._native.toolDefinitions(format));
  }

  /**
   * The definitions to hand a model in `format`, within a budget: at most `most` tools
   * and `maxBytes` of JSON, those fitting `task` (words) first. Returns
   * `{tools, leftOut}`: the definitions, and the names of the tools left out.
   */
  definitions(format = 'openai', { most, maxBytes, task } = {}) {
    return native(() => this._native.definitions(format, most ?? null, maxBytes ?? null, task ?? null));
  }

  /**
   * A host that shows a model the tools matching `core` (name patterns) and
   * `find_tools`, which searches the others by what they do and returns their
   * definitions in `format`; every tool stays callable. With `caller`
   * (`'call_tool'`), one more tool calls any tool by its name and arguments: for
   * frameworks that run only the tools they were given (LangChain, the OpenAI
   * Agents SDK). Throws ToolsetError.
   */
  disclosing(core = [], format = 'openai', { caller } = {}) {
    return new Host(native(() => this._native.disclosing(core.map(String), format, caller ?? null)));
  }

  /** A host whose tools are only `names`, sharing this one's components; throws ToolsetError. */
  toolset(names) {
    return new Host(native(() => this._native.toolset(names.map(String))));
  }

  /**
   * The tool calls a model wrote into its reply text: `{calls, rejected, summary}`; run
   * each call with `dispatchCall`.
   */
  extractCalls(reply) {
    const extraction = this._native.extractCalls(String(reply));
    const found = extraction.found();
    const calls = found.calls.map((call, index) => {
      const shown = shownCall(call);
      Object.defineProperty(shown, EXTRACTED, { value: { extraction, index } });
      return shown;
    });
    const rejected = found.rejected.map(shownCall);
    return { calls, rejected, summary: extraction.summary() };
  }

  /** Runs a call `extractCalls` found, as `dispatch` would. */
  async dispatchCall(call) {
    const found = call && call[EXTRACTED];
    if (!found) {
      if (call && call.error) return new CallOutcome({ error: call.error.toJSON() });
      throw new TypeError('dispatchCall takes a call from extractCalls(reply).calls');
    }
    return new CallOutcome(await native(() => found.extraction.dispatch(found.index)));
  }

  /** Rescans the plugin folders now; resolves to whether anything changed. */
  reload() {
    return native(() => this._native.reload());
  }

  /** What the last load did: `{components, warnings}`. */
  loadReport() {
    return this._native.loadReport();
  }

  /** The warnings of the last load. */
  get warnings() {
    return this.loadReport().warnings;
  }

  /** The plugins' resources and templates: `{resources, resourceTemplates}` in MCP's shapes. */
  listResources() {
    return this._native.listResources();
  }

  /** The contents of the resource at `uri`; rejects with ToolExecutionError. */
  async readResource(uri) {
    return settled(await this._native.readResource(String(uri)), 'contents');
  }

  /** The plugins' prompts, in MCP's shape. */
  listPrompts() {
    return this._native.listPrompts();
  }

  /** The messages of prompt `name` with `args` (strings); rejects with ToolExecutionError. */
  async getPrompt(name, args = {}) {
    return settled(await this._native.getPrompt(String(name), args), 'messages');
  }

  /** The AI SDK `tools` object for `generateText` and `streamText` (see `toolhost/ai`). */
  aiTools() {
    return require('./ai').aiTools(this);
  }

  /** Every tool as a LangChain.js tool (see `toolhost/langchain`). */
  langchainTools() {
    return require('./langchain').langchainTools(this);
  }

  /** Every tool as an OpenAI Agents SDK function tool (see `toolhost/openai-agents`). */
  openaiAgentsTools() {
    return require('./openai-agents').openaiAgentsTools(this);
  }

  /**
   * For the AI SDK, the tools shown a step at a time: `{tools, activeTools, prepareStep}`
   * for `generateText` (see `toolhost/ai`'s `aiDisclosure`).
   */
  aiDisclosure(options) {
    return require('./ai').aiDisclosure(this, options);
  }

  /** For the AI SDK's `repairToolCall`: repairs a call's name and input without a model. */
  get repairToolCall() {
    return require('./ai').repairToolCall(this);
  }
}

/** A found call as users see it: `error` a ToolExecutionError when rejected. */
function shownCall(call) {
  const { rejected, ...shown } = call;
  return { ...shown, error: rejected ? new ToolExecutionError(rejected) : null };
}

function settled(answer, field) {
  if (answer.error) throw new ToolExecutionError(answer.error);
  return answer[field];
}

/**
 * Where `value` holds what JSON cannot carry (NaN, an infinity, a bigint, a
 * function), as `{path, got}`; null when it is all JSON.
 */
function unsendable(value, path = '') {
  if (typeof value === 'number' && !Number.isFinite(value)) return { path, got: String(value) };
  if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') {
    return { path, got: typeof value };
  }
  if (value && typeof value === 'object' && typeof value.toJSON !== 'function') {
    for (const [key, inner] of Object.entries(value)) {
      const found = unsendable(inner, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

/** The library's corrective message for an argument JSON cannot carry. */
function invalidValue(tool, { path, got }) {
  return addon.invalidValue(tool, path, got);
}

module.exports = { Host };
