import { LlmError } from '../errors.js';
import { type LlmResponse, type StreamPart, ZERO_USAGE } from './types.js';

/** Folds a stream into one response (used by `complete()` and by callers that stream and also need the total). */
export async function collectResponse(parts: AsyncIterable<StreamPart>): Promise<LlmResponse> {
  const response: LlmResponse = { ...emptyTotals(), latencyMs: 0 };
  let finished = false;
  for await (const part of parts) {
    foldStreamPart(response, part);
    if (part.type === 'finish') {
      response.latencyMs = part.latencyMs;
      finished = true;
    }
  }
  if (!finished || (response.text.trim() === '' && response.toolCalls.length === 0)) {
    throw new LlmError('empty_response', 'the model returned no output');
  }
  return response;
}

/** What the parts of one stream add up to, timing aside (shared by `collectResponse` and the modes). */
export type StreamTotals = Pick<
  LlmResponse,
  | 'text'
  | 'reasoning'
  | 'reasoningSignature'
  | 'reasoningBlocks'
  | 'providerMetadata'
  | 'toolCalls'
  | 'usage'
  | 'model'
> & { finishReason: string };

/** Totals before the first part: nothing said, no usage, finish reason not yet known. */
export function emptyTotals(): StreamTotals & { finishReason: 'other' } {
  return {
    text: '',
    reasoning: '',
    toolCalls: [],
    finishReason: 'other',
    usage: { ...ZERO_USAGE },
    model: '',
  };
}

/** Adds one part to `into`, in place, so a caller can read what arrived before a failure. */
export function foldStreamPart(into: StreamTotals, part: StreamPart): void {
  switch (part.type) {
    case 'text':
      into.text += part.text;
      break;
    case 'reasoning':
      into.reasoning += part.text;
      if (part.signature) into.reasoningSignature = part.signature;
      break;
    case 'tool-call':
      into.toolCalls.push(part.toolCall);
      break;
    case 'reasoning-block':
      into.reasoningBlocks = [...(into.reasoningBlocks ?? []), part.block];
      break;
    case 'message-metadata':
      into.providerMetadata = { ...into.providerMetadata, ...part.metadata };
      break;
    case 'usage':
      // Providers may report usage more than once (Anthropic sends cumulative counts): the latest wins.
      into.usage = { ...part.usage };
      break;
    case 'finish':
      into.finishReason = part.reason;
      into.model = part.model;
      break;
  }
}
