/**
 * Turns downloaded image bytes into an image part a provider accepts: decoded by sharp (libvips),
 * never by us, with a pixel cap against decompression bombs and a time limit; resized and
 * re-encoded only when over the provider's limits or in a format providers do not take.
 */
import type { ImagePart } from '../llm/types.js';
import type { ImageLimits } from './vision.js';

/** Images with more pixels than this are refused before decoding (a 1×1 PNG can claim 100k×100k). */
const MAX_INPUT_PIXELS = 50_000_000;
/** libvips work per image is bounded (seconds). */
const IMAGE_TIMEOUT_S = 10;
const PASS_THROUGH = new Set(['png', 'jpeg', 'gif', 'webp']);

export type ImageResult = { ok: true; image: ImagePart } | { ok: false; reason: 'unreadable' };

/** sharp loads libvips (tens of MB): only when an image arrives, not at start-up. */
let sharpModule: Promise<typeof import('sharp')> | undefined;
const loadSharp = () => {
  sharpModule ??= import('sharp');
  return sharpModule;
};

export async function prepareImage(
  bytes: Uint8Array,
  name: string,
  limits: ImageLimits,
): Promise<ImageResult> {
  try {
    const sharp = (await loadSharp()).default;
    const input = () =>
      sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' }).timeout({
        seconds: IMAGE_TIMEOUT_S,
      });
    const meta = await input().metadata();
    if (!meta.format || !meta.width || !meta.height) return { ok: false, reason: 'unreadable' };
    const fits =
      PASS_THROUGH.has(meta.format) &&
      bytes.byteLength <= limits.maxBytes &&
      Math.max(meta.width, meta.height) <= limits.maxEdge;
    if (fits) {
      // Decode once anyway: a broken body behind a valid header must not reach the provider.
      await input().stats();
      return {
        ok: true,
        image: {
          mimeType: `image/${meta.format}` as ImagePart['mimeType'],
          data: Buffer.from(bytes).toString('base64'),
          name,
        },
      };
    }
    let quality = 85;
    let edge = limits.maxEdge;
    for (let attempt = 0; attempt < 4; attempt++) {
      const out = await input()
        .rotate()
        .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality })
        .toBuffer();
      if (out.byteLength <= limits.maxBytes) {
        return { ok: true, image: { mimeType: 'image/jpeg', data: out.toString('base64'), name } };
      }
      quality -= 15;
      edge = Math.round(edge * 0.75);
    }
    return { ok: false, reason: 'unreadable' };
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
}
