import type { Config } from '../config/env.js';
import { StoreError } from '../errors.js';
import type { Stores } from '../store/types.js';
import type { ChannelSettings } from './settings.js';

/** Reads and writes channel settings, filling defaults from the environment. */
export class SettingsService {
  constructor(
    private readonly stores: Stores,
    private readonly config: Config,
  ) {}

  defaults(): ChannelSettings {
    return {
      mode: this.config.env.DEFAULT_MODE,
      search: false,
      toolModel: this.config.toolModel,
      answerModel: this.config.answerModel,
      replyInThread: true,
    };
  }

  async get(channelId: string): Promise<ChannelSettings> {
    const stored = await wrap(() => this.stores.settings.get<Partial<ChannelSettings>>(channelId));
    return { ...this.defaults(), ...(stored ?? {}) };
  }

  async update(channelId: string, patch: Partial<ChannelSettings>): Promise<ChannelSettings> {
    const next = { ...(await this.get(channelId)), ...patch };
    // Settings outlive sessions: no TTL.
    await wrap(() => this.stores.settings.set(channelId, next));
    return next;
  }
}

/** Turns any store failure into a StoreError so the core answers with the friendly store message. */
export async function wrap<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreError(`store operation failed: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}
