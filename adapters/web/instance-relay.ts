/**
 * The web chat across instances (with Redis): a browser's stream may reach one instance while its
 * conversation's turn runs on another, and its Stop, Run or Approve may reach a third. Each
 * conversation has a channel on the store's broadcast; an instance joins it while it runs a turn of
 * that conversation or has a browser watching it:
 * - a watcher says `hello` when it joins and keeps a presence mark in the store, so the running
 *   instance forwards the turn's events (and first the whole turn) only when someone elsewhere
 *   watches: a turn nobody watches remotely costs no Redis traffic;
 * - `stop` and `confirm` go to whichever instance runs the turn.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../src/logger.js';
import type { Broadcast } from '../../src/store/broadcast.js';
import type Keyv from 'keyv';

export type RelayMessage =
  | { kind: 'event'; event: string; body: unknown }
  | { kind: 'hello' }
  | { kind: 'stop' }
  | { kind: 'confirm'; confirmId: string; accept: boolean };

type Tagged = RelayMessage & { from: string };

/** A watcher's presence mark lives this long, refreshed while it watches. */
const PRESENCE_TTL_MS = 30_000;
export const PRESENCE_REFRESH_MS = 10_000;

export class InstanceRelay {
  readonly #instance = randomBytes(6).toString('base64url');

  constructor(
    private readonly broadcast: Broadcast | undefined,
    private readonly meta: Keyv,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.broadcast !== undefined;
  }

  /** Listens to the conversation's channel for other instances' messages; resolves with `leave`. */
  async join(key: string, onMessage: (message: RelayMessage) => void): Promise<() => Promise<void>> {
    if (!this.broadcast) return async () => {};
    return this.broadcast.subscribe(`web:${key}`, (text) => {
      let message: Tagged;
      try {
        message = JSON.parse(text) as Tagged;
      } catch {
        return;
      }
      if (message.from === this.#instance) return;
      onMessage(message);
    });
  }

  send(key: string, message: RelayMessage): void {
    if (!this.broadcast) return;
    this.broadcast
      .publish(`web:${key}`, JSON.stringify({ ...message, from: this.#instance }))
      .catch((err: unknown) => this.logger.debug({ err: String(err) }, 'web relay publish failed'));
  }

  /** Marks the conversation as watched from here (another instance running its turn forwards it). */
  markWatched(key: string): void {
    if (!this.broadcast) return;
    this.meta.set(`web:watched:${key}`, this.#instance, PRESENCE_TTL_MS).catch(() => undefined);
  }

  /** Whether some other instance watches the conversation now. */
  async watchedElsewhere(key: string): Promise<boolean> {
    if (!this.broadcast) return false;
    try {
      const by = (await this.meta.get(`web:watched:${key}`)) as string | undefined;
      return typeof by === 'string' && by !== this.#instance;
    } catch {
      return false;
    }
  }
}
