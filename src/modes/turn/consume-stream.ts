/**
 * Drains one `LlmClient.stream` call into a response, handing reasoning and text chunks to the
 * caller as they arrive, and records the call in the usage tracker even when it fails midway.
 */
import { LlmError } from '../../errors.js';
import { emptyTotals, foldStreamPart } from '../../llm/collect-response.js';
import type { LlmClient, LlmRequest, LlmResponse } from '../../llm/types.js';
import type { ModelRole, UsageTracker } from './usage-tracker.js';

export interface StreamHandlers {
  onReasoning?(text: string): void;
  onText?(text: string): void;
}

/**
 * What a drained stream holds: the response so far, with the finish reason as the stream said it (a
 * stream cut short has none yet, so it stays a plain string) and how long the call took.
 */
export interface StreamResult extends Omit<LlmResponse, 'finishReason' | 'latencyMs'> {
  finishReason: string;
  ms: number;
}

/** Mutable so a caller can read what arrived before a failure (partial answer on timeout). */
export function emptyStreamResult(): StreamResult {
  return { ...emptyTotals(), ms: 0 };
}

export async function consumeStream(
  llm: LlmClient,
  role: ModelRole,
  request: LlmRequest,
  tracker: UsageTracker,
  handlers: StreamHandlers = {},
  result: StreamResult = emptyStreamResult(),
): Promise<StreamResult> {
  const started = Date.now();
  try {
    for await (const part of llm.stream(request)) {
      foldStreamPart(result, part);
      if (part.type === 'reasoning' && part.text) handlers.onReasoning?.(part.text);
      else if (part.type === 'text') handlers.onText?.(part.text);
    }
    return result;
  } catch (err) {
    if (err instanceof LlmError) {
      // The provider's counts before the failure still cost money and belong in the footer.
      if (err.details.usage && result.usage.inputTokens + result.usage.outputTokens === 0)
        result.usage = { ...err.details.usage };
      err.details.modelSlot ??= role === 'answer' ? 'answer' : 'tool';
    }
    throw err;
  } finally {
    result.ms = Date.now() - started;
    tracker.recordCall(llm, role, result.usage, result.ms);
  }
}
