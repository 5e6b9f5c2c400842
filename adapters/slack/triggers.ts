/**
 * When Scout answers on Slack (SPEC 1.1, 13): an @mention in a channel (answered in that message's
 * thread), any message in a DM, and any later message in a thread Scout opened — one that started
 * with a mention of Scout — with no mention needed. In a thread someone else opened, only messages
 * that mention Scout (Slack has no reply-to-a-message inside threads). Its own messages, other
 * bots, edits and other message subtypes are ignored.
 * A channel message that mentions Scout is left to the `app_mention` event, so the double delivery
 * (`app_mention` + `message`) normally reaches the core once; the core's messageId dedupe catches
 * the rest.
 */
import type Keyv from 'keyv';
import type { SlackFile } from './context-source.js';

/** Message subtypes that are still a person writing to Scout. */
const USER_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

/** The fields of Slack `message` / `app_mention` events that decide a trigger. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  channel: string;
  channel_type?: string;
  edited?: unknown;
  files?: SlackFile[];
}

export interface Trigger {
  channel: string;
  /** The thread the answer goes to (the message's own ts when it starts one). */
  threadTs: string;
  userId: string;
  text: string;
  /** The message's own ts (its id). */
  ts: string;
  /** Files attached to the message. */
  files: SlackFile[];
  /** Written inside a thread Scout did not open: the thread's earlier replies are worth reading. */
  midThread: boolean;
}

export function stripMention(text: string, botUserId: string | undefined): string {
  if (!botUserId) return text.trim();
  return text
    .replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g'), '')
    .replace(/\s+/g, ' ')
    .trim();
}

function fromPerson(event: SlackMessageEvent, botUserId: string | undefined): boolean {
  if (!USER_SUBTYPES.has(event.subtype) || event.edited) return false;
  if (event.bot_id || !event.user) return false;
  return event.user !== botUserId;
}

/** An `app_mention`: always answered (in its thread) unless it came from a bot or is an edit. */
export function mentionTrigger(event: SlackMessageEvent, botUserId: string | undefined): Trigger | undefined {
  if (!fromPerson(event, botUserId)) return undefined;
  return {
    channel: event.channel,
    threadTs: event.thread_ts ?? event.ts,
    userId: event.user!,
    text: stripMention(event.text ?? '', botUserId),
    ts: event.ts,
    files: event.files ?? [],
    midThread: event.thread_ts !== undefined && event.thread_ts !== event.ts,
  };
}

/** A thread Scout opened: it started with a mention of Scout, or it is in a DM. */
export function opensThread(trigger: Trigger, direct: boolean): boolean {
  return direct || trigger.threadTs === trigger.ts;
}

/** Slack always sends a channel; a delivery without one (malformed, forged) has nowhere to be answered. */
export function hasChannel(event: SlackMessageEvent): boolean {
  return typeof event.channel === 'string' && event.channel !== '';
}

export function isDirectMessage(event: SlackMessageEvent): boolean {
  return event.channel_type === 'im' || event.channel.startsWith('D');
}

/**
 * A `message` event: DMs always; channel thread replies only in threads Scout opened (`answered`
 * looks that up); channel messages mentioning Scout are the app_mention's job.
 */
export async function messageTrigger(
  event: SlackMessageEvent,
  botUserId: string | undefined,
  answered: (channel: string, threadTs: string) => Promise<boolean>,
): Promise<Trigger | undefined> {
  if (!fromPerson(event, botUserId)) return undefined;
  const text = event.text ?? '';
  const trigger: Trigger = {
    channel: event.channel,
    threadTs: event.thread_ts ?? event.ts,
    userId: event.user!,
    text: stripMention(text, botUserId),
    ts: event.ts,
    files: event.files ?? [],
    // Every message of a thread Scout opened (or a DM) was answered, so there is nothing unread.
    midThread: false,
  };
  if (isDirectMessage(event)) return trigger;
  if (botUserId && text.includes(`<@${botUserId}`)) return undefined;
  if (!event.thread_ts) return undefined;
  return (await answered(event.channel, event.thread_ts)) ? trigger : undefined;
}

/**
 * Threads Scout opened (a top-level mention, a DM), kept in the store's `meta` namespace so every
 * instance and restart knows. A mention inside someone else's thread does not make it Scout's.
 */
export class AnsweredThreads {
  constructor(
    private readonly meta: Keyv,
    private readonly ttlMs: number,
  ) {}

  #key(team: string, channel: string, threadTs: string): string {
    return `slack:answered:${team}:${channel}:${threadTs}`;
  }

  async remember(team: string, channel: string, threadTs: string): Promise<void> {
    await this.meta.set(this.#key(team, channel, threadTs), true, this.ttlMs);
  }

  async has(team: string, channel: string, threadTs: string): Promise<boolean> {
    return (await this.meta.get(this.#key(team, channel, threadTs))) === true;
  }
}
