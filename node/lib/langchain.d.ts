import type { Host } from './index';
/** Every tool of `host` as a LangChain.js structured tool. */
export function langchainTools(host: Host): unknown[];
