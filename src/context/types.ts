/**
 * What an adapter hands the core so that Scout can read "what we already said": the earlier messages
 * of the thread or reply chain it was called into, and the files attached to them. The adapter knows
 * how to fetch from its platform; everything after (budgets, delimiting, images, text extraction,
 * notices) is platform-neutral and lives in src/context.
 */

/** A file attached to a message, as the platform describes it (nothing downloaded yet). */
export interface AttachmentRef {
  /** Stable id (Slack file id, Discord attachment id), for logs and caching. */
  id: string;
  /** File name as the user sees it. */
  name: string;
  /** The platform's MIME type, when it tells one (not trusted: the bytes are checked). */
  mimeType?: string;
  /** Size in bytes as the platform reports it, when known (checked before downloading). */
  size?: number;
}

/** One earlier message of the thread or reply chain. */
export interface ThreadMessage {
  /** Platform id; ids must sort in time order within one thread (Slack ts, Discord snowflake). */
  id: string;
  /** Display name of the author. */
  author: string;
  text: string;
  /** Written by a bot (another bot, or Scout itself): left out of the context. */
  bot?: boolean;
  attachments?: AttachmentRef[];
}

/** Bytes of a downloaded attachment, or why there are none (a user-facing reason key). */
export type DownloadResult =
  | { ok: true; bytes: Uint8Array; mimeType?: string }
  | { ok: false; reason: 'too-large' | 'host-not-allowed' | 'failed' };

/**
 * Per-message source of context, built by the adapter for one incoming message. Every member is
 * optional work the core may skip (THREAD_CONTEXT=off, budget spent).
 */
export interface MessageContextSource {
  /** Platform id of the calling message: the next turn of the conversation reads only what came after. */
  messageId: string;
  /** Files attached to the message that called Scout. */
  attachments: AttachmentRef[];
  /**
   * Earlier messages of the thread or reply chain, NEWEST FIRST, strictly older than the calling
   * message and (when `after` is given) strictly newer than it. Stops at `limit` messages.
   */
  earlier?(options: { after?: string; limit: number; signal: AbortSignal }): Promise<ThreadMessage[]>;
  /** Downloads one attachment with the platform's credentials, only from the platform's file hosts. */
  download(
    attachment: AttachmentRef,
    options: { maxBytes: number; signal: AbortSignal },
  ): Promise<DownloadResult>;
}

export type { ImagePart } from '../llm/types.js';
