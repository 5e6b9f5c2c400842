/**
 * Child-process entry for the fakes (forked by fakes-client.ts). Talks over the IPC channel:
 * `{ id, op: 'configure' | 'snapshot' | 'reset' | 'close', config? }` → `{ id, result?, error? }`.
 * The fakes start from the first message, `{ id, op: 'start', config }`, answered with their URLs.
 */
import { type Fakes, type FakesConfig, startFakes } from './fakes.js';
import { serveRpc } from '../child-rpc.js';

interface Request {
  id: number;
  op: 'start' | 'configure' | 'snapshot' | 'reset' | 'close';
  config?: FakesConfig;
}

let fakes: Fakes | undefined;

async function answer(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'start':
      fakes = await startFakes(request.config!);
      return { llmBaseUrl: fakes.llmBaseUrl, searchUrl: fakes.searchUrl, slackUrl: fakes.slackUrl };
    case 'configure':
      fakes?.configure(request.config!);
      return null;
    case 'snapshot':
      return fakes?.snapshot();
    case 'reset':
      fakes?.reset();
      return null;
    case 'close':
      await fakes?.close();
      setImmediate(() => process.exit(0));
      return null;
  }
}

serveRpc(answer);
