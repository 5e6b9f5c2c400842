/** The prompt side of structured output, for providers (or servers) without a schema option. */
import type { ChatMessage, LlmRequest } from './types.js';

/** The instruction that asks for JSON, with the schema when there is one. */
export function jsonInstruction(request: LlmRequest): string {
  const base = 'Respond with a single JSON object and nothing else.';
  return request.jsonSchema
    ? `${base} It must match this JSON Schema: ${JSON.stringify(request.jsonSchema.schema)}`
    : base;
}

/** The messages with the JSON instruction appended to the system prompt (or added as one). */
export function withSchemaInstruction(request: LlmRequest): ChatMessage[] {
  const instruction = jsonInstruction(request);
  const messages = [...request.messages];
  const system = messages.findIndex((m) => m.role === 'system');
  const first = messages[system];
  if (first && first.role === 'system')
    messages[system] = { role: 'system', content: `${first.content}\n\n${instruction}` };
  else messages.unshift({ role: 'system', content: instruction });
  return messages;
}
