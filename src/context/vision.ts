/**
 * Which models read images. `vision: true|false` in a model's JSON config wins; otherwise the known
 * defaults per provider and model family. An unknown OpenAI-compatible server is assumed blind: an
 * image sent to a text-only server is an error, a notice is not.
 */
import type { ModelConfig } from '../llm/types.js';

/** OpenAI model families that take image input (gpt-3.5 and the o1-mini/o3-mini line do not). */
const OPENAI_VISION = /^(gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4\.5|gpt-5|o1(?!-mini)|o3(?!-mini)|o4|chatgpt-4o)/i;

export function canSeeImages(model: ModelConfig): boolean {
  if (model.vision !== undefined) return model.vision;
  switch (model.provider) {
    case 'anthropic':
      // Every Claude 3 and later model reads images; Claude 2 and instant did not.
      return !/claude-(2|instant)/i.test(model.model);
    case 'gemini':
      return true;
    case 'openai':
      return OPENAI_VISION.test(model.model);
    case 'deepseek':
      return false;
    default:
      return false;
  }
}

/** Per-provider limits an image must fit after resizing (the strictest documented ones). */
export interface ImageLimits {
  /** Longest edge in pixels. */
  maxEdge: number;
  /** Bytes of the encoded image (before base64). */
  maxBytes: number;
}

export function imageLimits(model: ModelConfig): ImageLimits {
  // Anthropic: 5 MB per image (base64 counts, so ~3.7 MB raw), long edge past 1568 px is downscaled
  // server-side anyway. OpenAI/Gemini accept 20 MB but "high detail" tiles at 2048 px.
  if (model.provider === 'anthropic') return { maxEdge: 1568, maxBytes: 3_500_000 };
  return { maxEdge: 2048, maxBytes: 4_000_000 };
}
