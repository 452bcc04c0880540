// Compiled by scripts/test-node.sh with `tsc --noEmit`: the declarations describe
// the package as a TypeScript user writes against it.
import { Host, ToolExecutionError, type CallOutcome, type Tool } from 'toolhost';
import { repairToolCall } from 'toolhost/ai';
import { repairingModel } from 'toolhost/openai-agents';

export async function example(): Promise<number> {
  const host: Host = await Host.load(['plugins'], { limits: { timeMs: 2000 }, capacity: { maxConcurrentCalls: 4 } });
  const tools: Tool[] = host.tools();
  const outcome: CallOutcome = await host.dispatch('factorial', { n: 5 }, { signal: AbortSignal.timeout(1000) });
  try {
    await host.call('factorial', { n: 'five' });
  } catch (error) {
    if (error instanceof ToolExecutionError) console.log(error.kind, error.availableTools, error.toJSON());
  }
  const repair = repairToolCall(host);
  const model = repairingModel(host, { getResponse: async (_request: unknown) => ({}) });
  void repair;
  void model;
  return tools.length + (outcome.ok ? 1 : 0);
}
