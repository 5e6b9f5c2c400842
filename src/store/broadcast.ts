/**
 * Messages between the instances that share a store: what one instance publishes on a channel,
 * every instance subscribed to it receives (itself included; senders tag their messages). Only on
 * Redis (its pub/sub, over a second connection, since a subscribed connection can run nothing else);
 * the embedded stores serve one instance, which has nobody to tell.
 */
import type { Logger } from '../logger.js';
import type { RedisClient } from './redis-connection.js';

export interface Broadcast {
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once subscribed, with the function that unsubscribes this listener. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export class RedisBroadcast implements Broadcast {
  #subscriber: Promise<RedisClient> | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(`${this.prefix}${channel}`, message);
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    const subscriber = await this.#connect();
    const name = `${this.prefix}${channel}`;
    const onMessage = (message: string) => listener(message);
    await subscriber.subscribe(name, onMessage);
    return () => subscriber.unsubscribe(name, onMessage);
  }

  #connect(): Promise<RedisClient> {
    this.#subscriber ??= (async () => {
      const subscriber = this.client.duplicate();
      subscriber.on('error', (err: unknown) =>
        this.logger.debug({ err: String(err) }, 'redis subscriber error'),
      );
      await subscriber.connect();
      return subscriber as RedisClient;
    })();
    return this.#subscriber;
  }

  async close(): Promise<void> {
    const subscriber = await this.#subscriber?.catch(() => undefined);
    this.#subscriber = undefined;
    await subscriber?.close().catch(() => undefined);
  }
}
