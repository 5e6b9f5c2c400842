import { fileURLToPath } from 'node:url';
import type { FakesConfig, FakesInfo, FakesSnapshot } from './fakes.js';
import { startFakes } from './fakes.js';
import { forkRpc } from '../child-rpc.js';

export interface FakesHandle extends FakesInfo {
  configure(config: FakesConfig): Promise<void>;
  snapshot(): Promise<FakesSnapshot>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const CHILD_ENTRY = fileURLToPath(new URL('./fakes-process.ts', import.meta.url));

export async function startFakesHandle(config: FakesConfig, inProcess = false): Promise<FakesHandle> {
  if (inProcess) {
    const fakes = await startFakes(config);
    return {
      llmBaseUrl: fakes.llmBaseUrl,
      searchUrl: fakes.searchUrl,
      slackUrl: fakes.slackUrl,
      configure: async (c) => fakes.configure(c),
      // A copy, so later recording does not change what the caller measured.
      snapshot: async () => structuredClone(fakes.snapshot()),
      reset: async () => fakes.reset(),
      close: () => fakes.close(),
    };
  }
  const { call, exited } = forkRpc(CHILD_ENTRY, 'fakes');
  const info = await call<FakesInfo>('start', { config });
  return {
    ...info,
    configure: (c) => call('configure', { config: c }),
    snapshot: () => call('snapshot'),
    reset: () => call('reset'),
    async close() {
      await call('close').catch(() => undefined);
      await exited;
    },
  };
}
