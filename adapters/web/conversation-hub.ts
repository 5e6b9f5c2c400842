/**
 * The live side of each open web conversation: the events it has sent lately (so a browser that
 * reconnects with Last-Event-ID gets exactly what it missed), the turn running in it (so one that
 * cannot be replayed gets a snapshot), and the browsers listening. A turn with no listener still
 * runs to its end and is stored; the hub of a conversation nobody watches and nothing runs in is
 * dropped.
 */
import { randomBytes } from 'node:crypto';
import type { EventStream, StreamEvent } from './event-stream.js';
import type { WireTurn } from './wire.js';

/** Events kept per conversation for replay, by count and by bytes; older ones mean a snapshot. */
const REPLAY_EVENTS = 512;
const REPLAY_BYTES = 512 * 1024;

/** Event ids are `<boot>.<n>`: an id from another process (a restart, another instance) is never replayed. */
const BOOT = randomBytes(4).toString('hex');
/**
 * One count for every hub of the process: a hub dropped and made again never reuses an id, so an
 * id from before the drop cannot be mistaken for one of the new hub's.
 */
let lastSeq = 0;

export class ConversationHub {
  /** The last id given out before this hub existed: ids at or below it are not in its log. */
  readonly #born = lastSeq;
  #seq = lastSeq;
  #log: StreamEvent[] = [];
  #logBytes = 0;
  /** Whether older events left the log (then an id before its first event needs a snapshot). */
  #dropped = false;
  readonly listeners = new Set<EventStream>();
  /** The turn running now, as last sent (what a snapshot shows). */
  running: WireTurn | undefined;
  /** A turn of this conversation running on another instance, as relayed from there. */
  remoteTurn: WireTurn | undefined;
  /** Another instance watches this conversation: events published here are forwarded there. */
  watchedElsewhere = false;
  /** Forwards an event to the other instances (set when the store is shared). */
  forward: ((event: string, body: unknown) => void) | undefined;
  /** Leaves the conversation's channel on the store's broadcast, once joined. */
  leave: Promise<() => Promise<void>> | undefined;

  /** Sends an event to this instance's listeners (and on to other instances when one watches). */
  publish(event: string, body: unknown, fromElsewhere = false): void {
    if (!fromElsewhere && this.watchedElsewhere) this.forward?.(event, body);
    this.#seq = ++lastSeq;
    const item: StreamEvent = { id: `${BOOT}.${this.#seq}`, event, data: JSON.stringify(body) };
    this.#log.push(item);
    this.#logBytes += item.data.length;
    while (this.#log.length > REPLAY_EVENTS || this.#logBytes > REPLAY_BYTES) {
      const old = this.#log.shift();
      if (old) this.#logBytes -= old.data.length;
      this.#dropped = true;
    }
    for (const listener of this.listeners) listener.send(item);
  }

  /** The events after `lastId`, or undefined when they cannot all be replayed (send a snapshot). */
  since(lastId: string | undefined): StreamEvent[] | undefined {
    if (!lastId) return undefined;
    const [boot, n] = lastId.split('.');
    const seq = Number(n);
    if (boot !== BOOT || !Number.isInteger(seq) || seq > this.#seq || seq < this.#born) return undefined;
    if (seq === this.#seq) return [];
    // Ids of one hub are not consecutive (the count is shared): the log covers `seq` when its first
    // event is the first this hub sent, or one at or before `seq`.
    const first = this.#log[0];
    if (!first) return undefined;
    const firstSeq = Number(first.id.split('.')[1]);
    if (firstSeq > seq && this.#dropped) return undefined;
    return this.#log.filter((item) => Number(item.id.split('.')[1]) > seq);
  }

  /** The id a snapshot sent now stands for (replay resumes after it). */
  get lastId(): string {
    return `${BOOT}.${this.#seq}`;
  }

  get idle(): boolean {
    return this.listeners.size === 0 && !this.running;
  }

  /** The turn a snapshot shows: the one running here, or one relayed from another instance. */
  get current(): WireTurn | undefined {
    return this.running ?? this.remoteTurn;
  }
}

/** The hubs by conversation, made on demand and dropped when idle. */
export class Hubs {
  readonly #hubs = new Map<string, ConversationHub>();

  get(key: string): ConversationHub {
    let hub = this.#hubs.get(key);
    if (!hub) {
      hub = new ConversationHub();
      this.#hubs.set(key, hub);
    }
    return hub;
  }

  peek(key: string): ConversationHub | undefined {
    return this.#hubs.get(key);
  }

  /** Forgets the hub when nothing needs it any more (and leaves its broadcast channel). */
  release(key: string): void {
    const hub = this.#hubs.get(key);
    if (!hub?.idle) return;
    this.#hubs.delete(key);
    void hub.leave?.then((leave) => leave()).catch(() => undefined);
  }

  get size(): number {
    return this.#hubs.size;
  }
}
