import type { AiToolCall, Host } from './index';
/** Every tool of `host` as an AI SDK tool, keyed by its provider name. */
export function aiTools(host: Host): Record<string, unknown>;
/** Every tool, with `find_tools` and `core` active first and each found tool active from the next step. */
export function aiDisclosure(
  host: Host,
  options?: { core?: string[] },
): { tools: Record<string, unknown>; activeTools: string[]; prepareStep: (options: { steps?: unknown[] }) => { activeTools: string[] } };
/** A `repairToolCall` for generateText/streamText that repairs without a model. */
export function repairToolCall(host: Host): (options: { toolCall: AiToolCall; tools?: Record<string, unknown> }) => Promise<AiToolCall | null>;
