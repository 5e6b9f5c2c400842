/**
 * Files the browser uploads before sending the message that names them. Kept in memory for a short
 * while, bounded per user and in all, and handed to the core as the message's attachments: the same
 * context pipeline as Slack's and Discord's files (its size limit, PDF and image readers, budgets)
 * reads them, and checks their bytes rather than trusting the name or type.
 */
import { randomBytes } from 'node:crypto';
import type { AttachmentRef, MessageContextSource } from '../../src/context/types.js';

/** An upload not sent with a message within this long is dropped. */
const UPLOAD_TTL_MS = 30 * 60_000;
/** Uploads waiting per user, and bytes waiting in all (the oldest go first). */
const MAX_PER_USER = 10;
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
export const MAX_FILES_PER_MESSAGE = 10;
const MAX_NAME_CHARS = 200;

interface Upload {
  ref: AttachmentRef;
  owner: string;
  bytes: Uint8Array;
  expires: number;
}

export class Uploads {
  readonly #uploads = new Map<string, Upload>();
  #bytes = 0;

  add(owner: string, rawName: string, mimeType: string | undefined, bytes: Uint8Array): AttachmentRef {
    this.#expire();
    const mine = [...this.#uploads.entries()].filter(([, u]) => u.owner === owner);
    for (const [id] of mine.slice(0, Math.max(0, mine.length - MAX_PER_USER + 1))) this.#drop(id);
    while (this.#bytes + bytes.length > MAX_TOTAL_BYTES && this.#uploads.size > 0) {
      this.#drop(this.#uploads.keys().next().value as string);
    }
    const name = cleanName(rawName);
    const ref: AttachmentRef = {
      id: randomBytes(12).toString('base64url'),
      name,
      size: bytes.length,
      ...(mimeType ? { mimeType } : {}),
    };
    this.#uploads.set(ref.id, { ref, owner, bytes, expires: Date.now() + UPLOAD_TTL_MS });
    this.#bytes += bytes.length;
    return ref;
  }

  /** The owner's uploads by id, taken out (each is sent once); unknown ids are left out. */
  take(owner: string, ids: readonly string[]): { refs: AttachmentRef[]; bytes: Map<string, Uint8Array> } {
    const refs: AttachmentRef[] = [];
    const bytes = new Map<string, Uint8Array>();
    for (const id of ids) {
      const upload = this.#uploads.get(id);
      if (!upload || upload.owner !== owner) continue;
      refs.push(upload.ref);
      bytes.set(id, upload.bytes);
      this.#drop(id);
    }
    return { refs, bytes };
  }

  #drop(id: string): void {
    const upload = this.#uploads.get(id);
    if (!upload) return;
    this.#bytes -= upload.bytes.length;
    this.#uploads.delete(id);
  }

  #expire(): void {
    const now = Date.now();
    for (const [id, upload] of this.#uploads) if (upload.expires < now) this.#drop(id);
  }
}

/** A file name as the page and the model may see it: no path, no control characters, bounded. */
export function cleanName(raw: string): string {
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    // Not URI-encoded: take it as it came.
  }
  name = name
    .replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/^.*[\\/]/, '')
    .trim();
  return (name || 'file').slice(0, MAX_NAME_CHARS);
}

/** The message's context: its uploaded files, already in memory (nothing to fetch from elsewhere). */
export function uploadedContext(
  messageId: string,
  refs: AttachmentRef[],
  bytes: Map<string, Uint8Array>,
): MessageContextSource {
  return {
    messageId,
    attachments: refs,
    async download(attachment, { maxBytes }) {
      const data = bytes.get(attachment.id);
      if (!data) return { ok: false, reason: 'failed' };
      if (data.length > maxBytes) return { ok: false, reason: 'too-large' };
      return { ok: true, bytes: data, ...(attachment.mimeType ? { mimeType: attachment.mimeType } : {}) };
    },
  };
}
