/**
 * An agent turn with Scout's real default tools (web_search on the fake search API, fetch_url allowed
 * to reach loopback, where the tests serve their pages) and the fake tool model.
 */
import { silentLogger } from '../../src/logger.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { makeSearch, makeTurnContext, testConfig } from './make-turn-context.js';
import type { ModeFakes } from './mode-fakes.js';

export function realToolsTurn(fakes: ModeFakes, text: string, env: Record<string, string> = {}) {
  const allEnv = { ...fakes.env, ...env };
  const config = testConfig(allEnv);
  const search = makeSearch(config);
  const registry = createToolRegistry(
    createDefaultTools({ search, config, fetchUrl: { allowPrivate: true } }),
    {
      logger: silentLogger,
    },
  );
  const llm = fakes.client('tool-model');
  return { llm, turn: makeTurnContext({ text, llm: { tool: llm }, env: allEnv, registry, search }) };
}
