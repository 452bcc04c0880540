import type { Host } from './index';
/** Every tool of `host` as an OpenAI Agents SDK function tool. */
export function openaiAgentsTools(host: Host): unknown[];
/** `model` with each function call of its responses repaired as the host repairs it. */
export function repairingModel<M extends { getResponse(request: unknown): Promise<unknown> }>(host: Host, model: M): M;
