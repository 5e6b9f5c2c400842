/**
 * `--check --probe`: one tiny real call to each configured model and search provider, so a user
 * learns before the first question whether each is reachable, accepts the key and knows the model.
 * Lines name the variable and the model or provider, never a key.
 */
import { LlmError, SearchError } from '../errors.js';
import { operatorMessage } from '../i18n/user-message.js';
import { createLlmClient, endpointsFromEnv } from '../llm/create-llm-client.js';
import { modelLabel } from '../llm/model-config.js';
import type { ModelConfig } from '../llm/types.js';
import { selectProvider } from '../search/search-service.js';
import type { Config } from './env.js';

/** Enough to prove the model answers; cut answers and empty ones still prove it. */
const PROBE_MAX_TOKENS = 16;
const PROBE_TIMEOUT_MS = 20_000;

export interface ProbeResult {
  ok: boolean;
  line: string;
}

export async function probeConfig(config: Config): Promise<ProbeResult[]> {
  const models: Array<[string, ModelConfig]> = [['AGENT_FUNCTION_CALL_MODEL', config.toolModel]];
  if (config.answerModel) models.push(['AGENT_ANSWER_MODEL', config.answerModel]);
  const results = await Promise.all(models.map(([variable, model]) => probeModel(config, variable, model)));
  const search = await probeSearch(config);
  return search ? [...results, search] : results;
}

async function probeModel(config: Config, variable: string, model: ModelConfig): Promise<ProbeResult> {
  const label = `${variable} ${modelLabel(model)}`;
  const client = createLlmClient(
    { ...model, maxTokens: PROBE_MAX_TOKENS },
    { endpoints: endpointsFromEnv(config.env), maxRetries: 0, timeoutMs: PROBE_TIMEOUT_MS },
  );
  try {
    await client.complete({ messages: [{ role: 'user', content: 'Reply with OK.' }] });
    return { ok: true, line: `✓ ${label}: reachable, key accepted, model answered` };
  } catch (err) {
    if (err instanceof LlmError && (err.code === 'truncated' || err.code === 'empty_response')) {
      return { ok: true, line: `✓ ${label}: reachable, key accepted, model answered` };
    }
    return { ok: false, line: `✗ ${label}: ${describeModelFailure(err)}` };
  }
}

function describeModelFailure(err: unknown): string {
  if (!(err instanceof LlmError)) return err instanceof Error ? err.message : String(err);
  if (err.code === 'network' || err.code === 'timeout') return operatorMessage(err);
  if (err.code === 'auth') return `key rejected (${err.message.replace(/^[^:]+: /, '')})`;
  if (err.details.status === 404) return `model not found (${err.message.replace(/^[^:]+: /, '')})`;
  return err.message.replace(/^[^:]+: /, '');
}

async function probeSearch(config: Config): Promise<ProbeResult | undefined> {
  const { provider, reason } = selectProvider(config.env);
  if (!provider) {
    return config.env.SEARCH_PROVIDER === 'none'
      ? undefined
      : { ok: true, line: `- SEARCH_PROVIDER: no web search (${reason ?? 'none configured'})` };
  }
  const label = `SEARCH_PROVIDER ${provider.name}`;
  try {
    await provider.search('Scout configuration check', {
      limit: 1,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    return { ok: true, line: `✓ ${label}: reachable, key accepted` };
  } catch (err) {
    const why = err instanceof SearchError || err instanceof Error ? err.message : String(err);
    return { ok: false, line: `✗ ${label}: ${why}` };
  }
}
