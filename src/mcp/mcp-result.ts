/**
 * An MCP `tools/call` result as text for the model: text as is, structured content as JSON (unless a
 * text block already carries it), resource links as Markdown links, embedded resources by their text,
 * and a note for images and audio (the function-call APIs take text tool results). Capped, so a server
 * returning megabytes costs the model a bounded, clearly marked excerpt.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ToolOutput } from '../tools/types.js';

/** About 5,000 tokens: as much as a fetched page gives the model. */
export const MAX_MCP_OUTPUT_CHARS = 20_000;

/** The fields of a CallToolResult this reads (the SDK's type is a wide union). */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

type Block = Record<string, unknown> & { type?: unknown };

export function mcpResultToOutput(result: McpCallResult, maxChars = MAX_MCP_OUTPUT_CHARS): ToolOutput {
  const parts: string[] = [];
  const texts: string[] = [];
  for (const raw of result.content ?? []) {
    const block = (typeof raw === 'object' && raw !== null ? raw : {}) as Block;
    const part = describeBlock(block);
    if (block.type === 'text') texts.push(part);
    if (part) parts.push(part);
  }
  if (result.structuredContent !== undefined && !texts.some((t) => sameJson(t, result.structuredContent))) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  let text = parts.join('\n\n');
  if (text.trim() === '') text = '(the tool returned no content)';
  if (text.length > maxChars) {
    text = `${text.slice(0, maxChars)}\n[Output cut: ${maxChars} of ${text.length} characters shown.]`;
  }
  return result.isError ? { isError: true, text: `The tool reported an error: ${text}` } : { text };
}

function describeBlock(block: Block): string {
  switch (block.type) {
    case 'text':
      return typeof block['text'] === 'string' ? block['text'] : '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${str(block['mimeType']) || 'unknown type'}, ${size(block['data'])} — not shown to the model]`;
    case 'resource_link': {
      const label = str(block['title']) || str(block['name']) || str(block['uri']);
      const description = str(block['description']);
      return `[${label}](${str(block['uri'])})${description ? ` — ${description}` : ''}`;
    }
    case 'resource': {
      const resource = (block['resource'] ?? {}) as Record<string, unknown>;
      const uri = str(resource['uri']);
      if (typeof resource['text'] === 'string') return `Resource ${uri}:\n${resource['text']}`;
      return `[resource ${uri}: ${str(resource['mimeType']) || 'binary'}, ${size(resource['blob'])} — not shown to the model]`;
    }
    default:
      return `[${str(block.type) || 'unknown'} content — not shown to the model]`;
  }
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Base64 length → a readable decoded size. */
function size(data: unknown): string {
  const bytes = Math.floor((str(data).length * 3) / 4);
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} B`;
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(text), value);
  } catch {
    return false;
  }
}
