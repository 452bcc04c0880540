// Type declarations of the `toolhost` package (lib/index.js).

/** A JSON value, as tools take and return them. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Each call's limits; anything left out keeps the default (10 s, 256 MiB, 64 KiB of output, 1 MiB of result). */
export interface LimitOptions {
  timeMs?: number;
  memoryMb?: number;
  outputKb?: number;
  resultKb?: number;
}

/** How many calls run at once (default four per core), wait (1,024), and how long each may wait (30 s). */
export interface CapacityOptions {
  maxConcurrentCalls?: number;
  maxQueuedCalls?: number;
  queueTimeoutMs?: number;
}

/** How a host loads and runs its tools. */
export interface HostOptions {
  /** Where compiled components are cached (default `~/.cache/toolhost`). */
  cacheDir?: string;
  /** `false`: cache nothing. */
  cache?: boolean;
  /** Watch the plugin folders and load changes while the host serves. */
  watch?: boolean;
  limits?: LimitOptions;
  capacity?: CapacityOptions;
  /**
   * Which compiler makes the code of a component not in the cache: `"auto"` (default:
   * a large one serves at once on baseline code, optimized code replaces it when
   * ready), `"optimizing"` or `"baseline"`.
   */
  compiler?: "auto" | "optimizing" | "baseline";
  /** Which tools ask a person before each call, and the function that asks. */
  approval?: ApprovalOptions;
}

/**
 * A person's yes before a call: `ask(tool, arguments)` returns (or resolves to) `true`
 * to let the call run; anything else, a throw, or no answer within `waitMs` leaves it
 * unrun, and the model is told so. The tools that ask: with `destructive` (default
 * `true`) those whose hints say they may destroy something, those whose names match
 * `tools`, and those whose manifest says `approval = true`.
 */
export interface ApprovalOptions {
  ask: (tool: string, args: { [key: string]: Json }) => boolean | Promise<boolean>;
  destructive?: boolean;
  tools?: string[];
  waitMs?: number;
}

/** Options of one call. */
export interface CallOptions {
  /** Stops the call (at the tool's next epoch tick); it then fails with kind `cancelled`. */
  signal?: AbortSignal;
}

/** One tool, as the model sees it. */
export interface Tool {
  /** The registered name (snake_case; `component/name` when two components share one). */
  name: string;
  /** The name providers' definitions give it (`uber.ride` → `uber_ride`). */
  providerName: string;
  component: string;
  title: string;
  description: string;
  /** JSON Schema of its arguments. */
  parameters: { [key: string]: Json };
  /** JSON Schema of its result, or null. */
  result: { [key: string]: Json } | null;
  /** MCP's hints (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`). */
  annotations: { [key: string]: boolean };
  /** Whether it runs in the sandbox (a component's) rather than in an MCP server plugin. */
  sandboxed: boolean;
}

/** A tool call failed; `message` is the corrective message to hand back to the model. */
export class ToolExecutionError extends Error {
  /** A short stable name: `unknown_tool`, `invalid_value`, `timed_out`, `cancelled`, ... */
  kind: string;
  /** The tool that was called, when the name resolved. */
  tool: string | null;
  /** The name the model sent (Rust's `name`). */
  calledName: string | null;
  suggestion: string | null;
  availableTools: string[] | null;
  /** The tools nearest to the name sent, best first (at most 10). */
  nearestTools: string[] | null;
  candidates: string[] | null;
  expectedParameters: { [parameter: string]: string[] } | null;
  problem: string | null;
  path: string | null;
  expected: string | null;
  got: string | null;
  /** A tool's own message (Rust's `message`). */
  toolMessage: string | null;
  reason: string | null;
  denied: string[] | null;
  limitMs: number | null;
  limitBytes: number | null;
  running: number | null;
  queued: number | null;
  waitedMs: number | null;
  server: string | null;
  retry: boolean | null;
  /** For `rate_limited`: the calls a minute allowed, and the wait until the next. */
  perMinute: number | null;
  retryAfterMs: number | null;
  /** `{error, kind, ...facts}`, as the Rust library's `ToolError::to_json`. */
  toJSON(): { [key: string]: Json };
}

/** A host could not be built or reloaded. */
export class LoadError extends Error {}

/** A toolset names something that is not exactly one tool. */
export class ToolsetError extends Error {}

/** What a call did, without throwing. */
export class CallOutcome {
  tool: string | null;
  repairedFrom: string | null;
  repairs: string[];
  value: Json;
  error: ToolExecutionError | null;
  /** Content blocks the tool added (images, audio, resources), in MCP's form. */
  content: { [key: string]: Json }[];
  /** Whether a person approved the call before it ran (`approval`). */
  approved: boolean;
  readonly ok: boolean;
  unwrap(): Json;
  /** The result as `format`'s tool-result message carries it. */
  toolResult(format?: ToolFormat): Json;
}

/** A provider's tool format. */
export type ToolFormat = 'openai' | 'openai-responses' | 'anthropic' | 'mcp';

/** A call found in a model's reply text. */
export interface ExtractedCall {
  name: string;
  tool: string | null;
  arguments: { [key: string]: Json };
  span: { start: number; end: number };
  dialect: string;
  repairs: Json[];
  error: ToolExecutionError | null;
}

/** A model's call as the host would run it. */
export interface RepairedCall {
  tool: string;
  providerName: string;
  arguments: Json;
  repairs: string[];
}

/** A set of sandboxed WebAssembly tools. */
export class Host {
  /** Loads every component in `plugins` (a folder, a `.wasm` file, or a list of them). Rejects with LoadError. */
  static load(plugins: string | string[], options?: HostOptions): Promise<Host>;
  tools(): Tool[];
  /** The tools a model is shown: every tool, or a disclosing host's finder, caller and core. */
  shownTools(): Tool[];
  tool(name: string): Tool | null;
  /** The tools that best fit a task in words (or a made-up name), best first. */
  searchTools(query: string, limit?: number): Array<Tool & { score: number }>;
  /** Calls a tool by the name a model sent; rejects with ToolExecutionError. */
  call(name: string, args?: { [key: string]: Json } | null, options?: CallOptions): Promise<Json>;
  /** Calls a tool with the argument text a model wrote. */
  callText(name: string, text: string, options?: CallOptions): Promise<Json>;
  dispatch(name: string, args?: { [key: string]: Json } | null, options?: CallOptions): Promise<CallOutcome>;
  dispatchText(name: string, text: string, options?: CallOptions): Promise<CallOutcome>;
  /** The call as the host would run it, repaired, without running it; null when it cannot be. */
  repairCall(name: string, args: string | { [key: string]: Json }): RepairedCall | null;
  toolDefinitions(format?: ToolFormat): Json[];
  /** The definitions within a budget, and the names of the tools left out. */
  definitions(
    format?: ToolFormat,
    budget?: { most?: number; maxBytes?: number; task?: string },
  ): { tools: Json[]; leftOut: string[] };
  /** A host showing the tools matching `core` and `find_tools` (and `caller`, when named); every tool stays callable. */
  disclosing(core?: string[], format?: ToolFormat, options?: { caller?: string }): Host;
  toolset(names: string[]): Host;
  extractCalls(reply: string): { calls: ExtractedCall[]; rejected: ExtractedCall[]; summary: string };
  dispatchCall(call: ExtractedCall): Promise<CallOutcome>;
  reload(): Promise<boolean>;
  loadReport(): { components: Json[]; warnings: string[] };
  readonly warnings: string[];
  listResources(): Promise<{ resources: Json[]; resourceTemplates: Json[] }>;
  readResource(uri: string): Promise<Json[]>;
  listPrompts(): Promise<Json[]>;
  getPrompt(name: string, args?: { [key: string]: string }): Promise<Json[]>;
  /** The AI SDK `tools` object (needs the `ai` package). */
  aiTools(): Record<string, unknown>;
  /** For the AI SDK: every tool, `find_tools` and `core` active first, found tools active next step. */
  aiDisclosure(options?: { core?: string[] }): {
    tools: Record<string, unknown>;
    activeTools: string[];
    prepareStep: (options: { steps?: unknown[] }) => { activeTools: string[] };
  };
  /** For the AI SDK's `repairToolCall`: repairs a call's name and input without a model. */
  readonly repairToolCall: (options: { toolCall: AiToolCall; tools?: Record<string, unknown> }) => Promise<AiToolCall | null>;
  /** Every tool as a LangChain.js tool (needs `@langchain/core`). */
  langchainTools(): unknown[];
  /** Every tool as an OpenAI Agents SDK function tool (needs `@openai/agents`). */
  openaiAgentsTools(): unknown[];
}

/** The AI SDK's tool call, as its repair hook sees it. */
export interface AiToolCall {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: string;
  [key: string]: unknown;
}
