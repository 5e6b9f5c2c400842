import { LlmError } from '../errors.js';
import { type LlmResponse, type StreamPart, ZERO_USAGE } from './types.js';

/** Folds a stream into one response (used by `complete()` and by callers that stream and also need the total). */
export async function collectResponse(parts: AsyncIterable<StreamPart>): Promise<LlmResponse> {
  const response: LlmResponse = {
    text: '',
    reasoning: '',
    toolCalls: [],
    finishReason: 'other',
    usage: { ...ZERO_USAGE },
    model: '',
    latencyMs: 0,
  };
  let finished = false;
  for await (const part of parts) {
    switch (part.type) {
      case 'text':
        response.text += part.text;
        break;
      case 'reasoning':
        response.reasoning += part.text;
        if (part.signature) response.reasoningSignature = part.signature;
        break;
      case 'tool-call':
        response.toolCalls.push(part.toolCall);
        break;
      case 'usage':
        response.usage = { ...part.usage };
        break;
      case 'finish':
        response.finishReason = part.reason;
        response.model = part.model;
        response.latencyMs = part.latencyMs;
        finished = true;
        break;
    }
  }
  if (!finished || (response.text.trim() === '' && response.toolCalls.length === 0)) {
    throw new LlmError('empty_response', 'the model returned no output');
  }
  return response;
}
