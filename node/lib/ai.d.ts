import type { AiToolCall, Host } from './index';
/** Every tool of `host` as an AI SDK tool, keyed by its provider name. */
export function aiTools(host: Host): Record<string, unknown>;
/** A `repairToolCall` for generateText/streamText that repairs without a model. */
export function repairToolCall(host: Host): (options: { toolCall: AiToolCall; tools?: Record<string, unknown> }) => Promise<AiToolCall | null>;
