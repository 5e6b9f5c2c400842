/**
 * A local fake of Discord's REST API and gateway, so the REAL discord.js client runs against it:
 * `new Client({ rest: { api: fake.apiUrl } })`. `GET /gateway/bot` hands out the URL of a `ws`
 * WebSocketServer on the same port that speaks enough of the gateway protocol (HELLO, IDENTIFY →
 * READY + GUILD_CREATE, heartbeats, RESUME) for the client to become ready and receive dispatches.
 *
 * Every REST call is recorded (method, route template, body, allowed_mentions) and checked against
 * Discord's documented message limits; violations and would-be pings are collected for assertions.
 * Optionally (`globalLimit`) the bot's global rate limit is enforced per token, and a bot in several
 * servers (`otherGuildIds`) serves each shard's connection its own servers' events only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

// ── Discord's limits (PLATFORMS.md) ───────────────────────────────────────────
export const DISCORD_LIMITS = {
  content: 2000,
  embeds: 10,
  embedDescription: 4096,
  embedTitle: 256,
  embedsTotal: 6000,
  actionRows: 5,
  buttonsPerRow: 5,
  customId: 100,
  buttonLabel: 80,
  componentsV2Total: 40,
  threadName: 100,
} as const;
const FLAG_COMPONENTS_V2 = 1 << 15;
/** Privileged intent bit; identifying with it when not "enabled" closes the gateway with 4014. */
export const INTENT_MESSAGE_CONTENT = 1 << 15;

export interface RecordedCall {
  method: string;
  /** Path after `/api/v10`, e.g. `/channels/123/messages`. */
  path: string;
  /** Route template, e.g. `POST /channels/:channel/messages`. */
  route: string;
  query: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
  body: any;
  /** `allowed_mentions` as sent (undefined when the call carried none). */
  allowedMentions?: { parse?: string[]; users?: string[]; roles?: string[]; replied_user?: boolean };
  status: number;
  at: number;
}

export interface FakeMessage {
  id: string;
  channel_id: string;
  content: string;
  flags: number;
  // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
  embeds: any[];
  // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
  components: any[];
  author: { id: string; username: string; bot?: boolean };
  /** Every content the message had, first to last (posts and edits). */
  contents: string[];
  edits: number;
}

export interface FakeDiscordOptions {
  botId?: string;
  applicationId?: string;
  botName?: string;
  guildId?: string;
  channelId?: string;
  /** Gateway heartbeat interval; large by default so tests never wait on it. */
  heartbeatIntervalMs?: number;
  /** False: identifying with the Message Content intent closes the gateway with 4014. */
  messageContentIntentEnabled?: boolean;
  /** Echo the bot's own posts back as MESSAGE_CREATE, as Discord does (default true). */
  echoOwnMessages?: boolean;
  /**
   * The server's roles besides @everyone (sent in GUILD_CREATE, as Discord sends every role), with
   * their permission bits (default none).
   */
  roles?: { id: string; name: string; permissions?: string }[];
  /** The @everyone role's permissions (default: Discord's defaults, View Channel and Read Message History included). */
  everyonePermissions?: string;
  /** The bot member's roles (default none: @everyone's permissions and the channels' overwrites decide). */
  botRoles?: string[];
  /** The server's owner, who holds every permission (default the recorded fixture user). */
  ownerId?: string;
  /**
   * More servers the bot is in besides `guildId` (their channels: `addChannel` with their
   * `guild_id`). Each server belongs to one shard, `(guild_id >> 22) % shard count`, as on Discord:
   * a connection that identified as a shard hears of that shard's servers only.
   */
  otherGuildIds?: string[];
  /**
   * Discord's global rate limit: at most `max` REST calls of one bot token in any `perMs` (a
   * sliding window over the calls let through), whatever the route; interaction endpoints are not
   * bound by it, as on Discord. A call over it is answered 429 with `global: true` and recorded in
   * `globalRefusals`. Off by default.
   */
  globalLimit?: { max: number; perMs: number };
}

/** Permission bits the fake enforces (Discord's values). */
export const PERMISSION = {
  administrator: 1n << 3n,
  viewChannel: 1n << 10n,
  readMessageHistory: 1n << 16n,
} as const;
/** A connection's `[shard id, shard count]` (IDENTIFY's `shard`; none is `[0, 1]`, every server). */
type ShardInfo = [number, number];

/** The shard that receives a server's events; events outside any server (DMs) go to shard 0. */
export function shardOf(guildId: string | undefined, shardCount: number): number {
  return guildId ? Number((BigInt(guildId) >> 22n) % BigInt(shardCount)) : 0;
}

/** @everyone's default permissions (View Channel, Send Messages, Read Message History, …). */
export const DEFAULT_EVERYONE_PERMISSIONS = '2248473465835073';

type Handler = (m: RegExpMatchArray, call: RecordedCall) => { status: number; body?: unknown };

let snowflakeCounter = 0n;
/** Unique, increasing snowflake-like ids (Discord ids are 64-bit, sortable by time). */
export function nextSnowflake(): string {
  snowflakeCounter += 1n;
  return (BigInt(Date.now()) * 4_194_304n + snowflakeCounter).toString();
}

export class FakeDiscord {
  readonly calls: RecordedCall[] = [];
  /** Calls refused by the global rate limit (`globalLimit`), in order. */
  readonly globalRefusals: RecordedCall[] = [];
  readonly violations: string[] = [];
  /** `@everyone`/`@here`/role pings Discord would have delivered. */
  readonly pings: string[] = [];
  readonly messages = new Map<string, FakeMessage>();
  /** Messages people wrote (`post`), as raw API payloads, by id. */
  // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
  readonly userPosts = new Map<string, any>();
  /** Attachments served on the fake CDN (`addAttachment`), by id. */
  private readonly files = new Map<string, { bytes: Uint8Array; contentType: string }>();
  /** Every GET of a fake CDN file: its path and whether it carried an Authorization header. */
  readonly downloads: { path: string; authorization?: string }[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
  readonly channels = new Map<string, any>();
  // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
  readonly commands = { global: [] as any[], guild: new Map<string, any[]>() };
  // biome-ignore lint/suspicious/noExplicitAny: raw gateway payloads
  readonly identifies: any[] = [];
  readonly botId: string;
  readonly applicationId: string;
  readonly botName: string;
  readonly guildId: string;
  readonly channelId: string;
  apiUrl = '';
  private server: Server;
  private wss: WebSocketServer;
  private sockets = new Set<WebSocket>();
  /** The intents each identified connection asked for (and was granted). */
  private socketIntents = new Map<WebSocket, number>();
  /** The shard each identified (or resumed) connection is. */
  private socketShards = new Map<WebSocket, ShardInfo>();
  /** The shard of each session handed out in READY, for RESUME. */
  private sessionShards = new Map<string, ShardInfo>();
  /** Per bot token, when each call let through under `globalLimit` arrived (oldest first). */
  private globalLog = new Map<string, number[]>();
  private seq = 0;
  private rateLimits: { route: string; retryAfterS: number }[] = [];
  /**
   * Channels where the bot may read but not write: every message send, edit and delete there — and
   * the typing indicator, which needs Send Messages too — is answered 403 Missing Permissions (50013),
   * as Discord does for a bot without Send Messages.
   */
  readonly refusedChannels = new Set<string>();
  /** DM channels the bot opened (`POST /users/@me/channels`), by channel id → the user's id. */
  readonly dmChannels = new Map<string, string>();
  /**
   * Users who accept no DMs from the bot (privacy settings, no shared server): opening the DM
   * channel works, sending in it is 403 Cannot send messages to this user (50007), as on Discord.
   */
  readonly closedDms = new Set<string>();
  /**
   * Members of the server besides the bot, by user id → their roles (`addMember`): GET
   * /guilds/:id/members/:user answers them, anyone else is 404 Unknown Member (10007).
   */
  readonly members = new Map<string, { roles: string[]; nick?: string }>();
  private originals = new Map<string, string>(); // interaction token → message id
  private interactionMessages = new Map<string, string>(); // interaction token → clicked message id
  private listeners = new Set<() => void>();
  private readonly routes: [string, RegExp, Handler][];

  constructor(private readonly options: FakeDiscordOptions = {}) {
    this.botId = options.botId ?? '1457469483726668048';
    this.applicationId = options.applicationId ?? this.botId;
    this.botName = options.botName ?? 'Scout';
    this.guildId = options.guildId ?? '1457468924290662599';
    this.channelId = options.channelId ?? '1457510428359004343';
    this.channels.set(this.channelId, {
      id: this.channelId,
      type: 0,
      guild_id: this.guildId,
      name: 'general',
      position: 0,
      permission_overwrites: [],
    });
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.wss = new WebSocketServer({ server: this.server, path: '/gateway' });
    this.wss.on('connection', (ws) => this.onSocket(ws));
    this.routes = this.buildRoutes();
  }

  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const fake = new FakeDiscord(options);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    const { port } = fake.server.address() as AddressInfo;
    fake.apiUrl = `http://127.0.0.1:${port}/api`;
    return fake;
  }

  get botUser() {
    return {
      id: this.botId,
      username: this.botName,
      discriminator: '0',
      global_name: null,
      avatar: null,
      bot: true,
    };
  }

  // ── Test controls ─────────────────────────────────────────────────────────────

  /** Answers the next call matching `route` (e.g. `POST /channels/:channel/messages`) with a 429. */
  rateLimitOnce(route: string, retryAfterS = 0.05): void {
    this.rateLimits.push({ route, retryAfterS });
  }

  /** A storm: the next `times` calls matching `route` are each answered with a 429. */
  rateLimitStorm(route: string, times: number, retryAfterS = 0.05): void {
    for (let i = 0; i < times; i++) this.rateLimitOnce(route, retryAfterS);
  }

  /** Sends a gateway DISPATCH to every identified connection. */
  dispatch(event: string, data: unknown): void {
    this.seq += 1;
    const payload = JSON.stringify({ op: 0, t: event, s: this.seq, d: data });
    // Without the Message Content intent Discord blanks content, embeds, attachments and components
    // of guild messages that do not mention the bot (DMs and mentions keep them).
    const blanked =
      event === 'MESSAGE_CREATE' && this.withoutContent(data)
        ? JSON.stringify({
            op: 0,
            t: event,
            s: this.seq,
            d: { ...(data as object), content: '', embeds: [], attachments: [], components: [] },
          })
        : payload;
    const guildId = (data as { guild_id?: string } | null)?.guild_id;
    for (const ws of this.sockets) {
      // Each event reaches one shard: the one its server belongs to (shard 0 outside servers).
      const [shard, count] = this.socketShards.get(ws) ?? [0, 1];
      if (shardOf(guildId, count) !== shard) continue;
      const intents = this.socketIntents.get(ws) ?? 0;
      ws.send((intents & INTENT_MESSAGE_CONTENT) !== 0 ? payload : blanked);
    }
  }

  /** Every server the bot is in. */
  get guildIds(): string[] {
    return [this.guildId, ...(this.options.otherGuildIds ?? [])];
  }

  // biome-ignore lint/suspicious/noExplicitAny: raw gateway payloads
  private withoutContent(data: any): boolean {
    if (!data?.guild_id || data.author?.id === this.botUser.id) return false;
    // biome-ignore lint/suspicious/noExplicitAny: raw gateway payloads
    return !(data.mentions ?? []).some((u: any) => u.id === this.botUser.id);
  }

  /** Closes every gateway connection with `code` (e.g. 4014 disallowed intents). */
  closeGateway(code: number): void {
    for (const ws of this.sockets) ws.close(code);
  }

  /**
   * A message a person writes: kept (GET /channels/:id/messages lists it) and dispatched as
   * MESSAGE_CREATE. A reply (`message_reference`) gets its `referenced_message` filled in, as
   * Discord does, when the referenced message is known.
   */
  // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
  post(data: Record<string, any>): any {
    const payload = { ...data };
    const ref = payload.message_reference?.message_id;
    if (ref && payload.referenced_message === undefined) {
      const parent =
        this.userPosts.get(ref) ?? (this.messages.get(ref) && this.toApi(this.messages.get(ref)!));
      payload.referenced_message = parent ?? null;
      if (payload.type === undefined || payload.type === 0) payload.type = 19;
    }
    this.userPosts.set(payload.id, payload);
    this.dispatch('MESSAGE_CREATE', payload);
    return payload;
  }

  /** Hosts a file on the fake CDN (this server's origin); returns Discord's attachment object. */
  addAttachment(
    filename: string,
    contentType: string,
    bytes: Uint8Array,
    options: { size?: number } = {},
  ): Record<string, unknown> {
    const id = nextSnowflake();
    this.files.set(id, { bytes, contentType });
    const origin = this.apiUrl.replace(/\/api$/, '');
    const url = `${origin}/attachments/${this.channelId}/${id}/${encodeURIComponent(filename)}?ex=1&is=1&hm=signed`;
    return {
      id,
      filename,
      size: options.size ?? bytes.byteLength,
      url,
      proxy_url: url,
      content_type: contentType,
    };
  }

  /** Registers a channel (a thread, a DM) so GET /channels/:id and sends to it work. */
  addChannel(channel: Record<string, unknown> & { id: string }): void {
    this.channels.set(channel.id, channel);
  }

  /** Makes `userId` a member of the server holding `roles`. */
  addMember(userId: string, roles: string[] = [], nick?: string): void {
    this.members.set(userId, { roles, ...(nick ? { nick } : {}) });
  }

  /**
   * A user's permissions in a channel of the server as Discord computes them: the owner and
   * Administrator hold all; else @everyone's and the member's roles' bits, then the channel's
   * overwrites — @everyone's, the roles' (denies then allows), the member's own. A thread takes its
   * parent's. Outside the server (a DM) everything is allowed.
   */
  permissionsIn(channelId: string, userId: string): bigint {
    let channel = this.channels.get(channelId);
    if (channel?.type === 11 || channel?.type === 12)
      channel = this.channels.get(channel.parent_id) ?? channel;
    if (!channel?.guild_id) return ~0n;
    if (userId === (this.options.ownerId ?? '1033044521375764530')) return ~0n;
    const roles =
      userId === this.botId ? (this.options.botRoles ?? []) : (this.members.get(userId)?.roles ?? []);
    const roleBits = new Map((this.options.roles ?? []).map((r) => [r.id, BigInt(r.permissions ?? '0')]));
    let bits = BigInt(this.options.everyonePermissions ?? DEFAULT_EVERYONE_PERMISSIONS);
    for (const role of roles) bits |= roleBits.get(role) ?? 0n;
    if ((bits & PERMISSION.administrator) !== 0n) return ~0n;
    const overwrites: { id: string; type: number; allow: string; deny: string }[] =
      channel.permission_overwrites ?? [];
    const apply = (o: { allow: string; deny: string } | undefined) => {
      if (o) bits = (bits & ~BigInt(o.deny)) | BigInt(o.allow);
    };
    apply(overwrites.find((o) => o.id === channel.guild_id));
    let allow = 0n;
    let deny = 0n;
    for (const o of overwrites.filter((x) => x.type === 0 && roles.includes(x.id))) {
      allow |= BigInt(o.allow);
      deny |= BigInt(o.deny);
    }
    bits = (bits & ~deny) | allow;
    apply(overwrites.find((o) => o.type === 1 && o.id === userId));
    return bits;
  }

  /** Injects an INTERACTION_CREATE with a fresh id and token; returns them. */
  interact(data: Record<string, unknown>): { id: string; token: string } {
    const id = nextSnowflake();
    const token = `token_${id}`;
    const message = data.message as { id?: string } | undefined;
    if (message?.id) this.interactionMessages.set(token, message.id);
    this.dispatch('INTERACTION_CREATE', {
      application_id: this.applicationId,
      version: 1,
      entitlements: [],
      authorizing_integration_owners: {},
      app_permissions: '2248473465835073',
      attachment_size_limit: 10_485_760,
      locale: 'en-US',
      ...data,
      id,
      token,
    });
    return { id, token };
  }

  /** The message that answers an interaction (deferred reply, then edited). */
  originalResponse(token: string): FakeMessage | undefined {
    const id = this.originals.get(token);
    return id ? this.messages.get(id) : undefined;
  }

  /** Messages in a channel, in the order they were posted (bot messages only; users post via the gateway). */
  messagesIn(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId);
  }

  callsTo(route: string): RecordedCall[] {
    return this.calls.filter((c) => c.route === route);
  }

  /**
   * Calls `listener` right after every REST call the fake answered (its messages already changed),
   * so a test can see every state the messages go through; returns the function that stops it.
   */
  onCall(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when `check` returns a truthy value (re-checked after every REST call and every 20 ms), else rejects. */
  waitFor<T>(check: () => T | undefined | false | null, timeoutMs = 5000, what = 'condition'): Promise<T> {
    return new Promise((resolve, reject) => {
      const tryIt = (): boolean => {
        const value = check();
        if (value) {
          cleanup();
          resolve(value);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`fake-discord: timed out waiting for ${what}`));
      }, timeoutMs);
      // Conditions on state outside the fake (logs, the core) change without a REST call: poll too.
      const poll = setInterval(() => void tryIt(), 20);
      const cleanup = () => {
        clearTimeout(timer);
        clearInterval(poll);
        this.listeners.delete(listener);
      };
      const listener = () => void tryIt();
      this.listeners.add(listener);
      tryIt();
    });
  }

  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ── Gateway ───────────────────────────────────────────────────────────────────

  private onSocket(ws: WebSocket): void {
    const send = (payload: unknown) => ws.send(JSON.stringify(payload));
    send({ op: 10, s: null, t: null, d: { heartbeat_interval: this.options.heartbeatIntervalMs ?? 45_000 } });
    ws.on('close', () => {
      this.sockets.delete(ws);
      this.socketShards.delete(ws);
    });
    ws.on('message', (raw) => {
      // biome-ignore lint/suspicious/noExplicitAny: raw gateway payloads
      const packet = JSON.parse(String(raw)) as { op: number; d: any };
      if (packet.op === 1) send({ op: 11, s: null, t: null, d: null });
      else if (packet.op === 2) this.onIdentify(ws, packet.d);
      else if (packet.op === 6) {
        this.socketShards.set(ws, this.sessionShards.get(packet.d?.session_id) ?? [0, 1]);
        this.sockets.add(ws);
        this.seq += 1;
        send({ op: 0, t: 'RESUMED', s: this.seq, d: {} });
      }
    });
  }

  // biome-ignore lint/suspicious/noExplicitAny: raw gateway payloads
  private onIdentify(ws: WebSocket, identify: any): void {
    this.identifies.push({
      intents: identify.intents,
      shard: identify.shard,
      properties: identify.properties,
    });
    if (
      this.options.messageContentIntentEnabled === false &&
      (identify.intents & INTENT_MESSAGE_CONTENT) !== 0
    ) {
      ws.close(4014, 'Disallowed intent(s).');
      return;
    }
    this.socketIntents.set(ws, identify.intents);
    const shard: ShardInfo = Array.isArray(identify.shard) ? [identify.shard[0], identify.shard[1]] : [0, 1];
    this.socketShards.set(ws, shard);
    this.sockets.add(ws);
    const guilds = this.guildIds.filter((g) => shardOf(g, shard[1]) === shard[0]);
    const sessionId = `session_${nextSnowflake()}`;
    this.sessionShards.set(sessionId, shard);
    const port = (this.server.address() as AddressInfo).port;
    this.seq += 1;
    ws.send(
      JSON.stringify({
        op: 0,
        t: 'READY',
        s: this.seq,
        d: {
          v: 10,
          user: this.botUser,
          guilds: guilds.map((id) => ({ id, unavailable: true })),
          session_id: sessionId,
          resume_gateway_url: `ws://127.0.0.1:${port}/gateway`,
          shard: identify.shard ?? [0, 1],
          application: { id: this.applicationId, flags: 0 },
          private_channels: [],
        },
      }),
    );
    for (const guildId of guilds) {
      this.seq += 1;
      ws.send(JSON.stringify({ op: 0, t: 'GUILD_CREATE', s: this.seq, d: this.guildPayload(guildId) }));
    }
  }

  private guildPayload(guildId = this.guildId) {
    const channels = [...this.channels.values()].filter((c) => c.guild_id === guildId && c.type !== 11);
    const threads = [...this.channels.values()].filter((c) => c.guild_id === guildId && c.type === 11);
    return {
      id: guildId,
      name: 'Scout test guild',
      icon: null,
      owner_id: this.options.ownerId ?? '1033044521375764530',
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      features: [],
      mfa_level: 0,
      system_channel_flags: 0,
      premium_tier: 0,
      preferred_locale: 'en-US',
      nsfw_level: 0,
      large: false,
      member_count: 2,
      unavailable: false,
      joined_at: new Date().toISOString(),
      roles: this.rolesPayload(guildId),
      emojis: [],
      stickers: [],
      members: [
        {
          user: this.botUser,
          roles: this.options.botRoles ?? [],
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
        },
      ],
      channels,
      threads,
      voice_states: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
    };
  }

  private rolesPayload(guildId = this.guildId) {
    return [
      {
        id: guildId,
        name: '@everyone',
        permissions: this.options.everyonePermissions ?? DEFAULT_EVERYONE_PERMISSIONS,
        position: 0,
        color: 0,
      },
      ...(this.options.roles ?? []).map((r, i) => ({
        id: r.id,
        name: r.name,
        permissions: r.permissions ?? '0',
        position: i + 1,
        color: 0,
      })),
    ];
  }

  // ── REST ──────────────────────────────────────────────────────────────────────

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = raw.toString('utf8');
    if (url.pathname.startsWith('/attachments/')) {
      this.serveAttachment(url.pathname, req, res);
      return;
    }
    const path = decodeURIComponent(url.pathname).replace(/^\/api(\/v\d+)?/, '');
    const method = (req.method ?? 'GET').toUpperCase();
    const call: RecordedCall = {
      method,
      path,
      route: `${method} ${path}`,
      query: Object.fromEntries(url.searchParams),
      body: parseBody(text, req.headers['content-type'], raw),
      status: 0,
      at: Date.now(),
    };
    // Discord checks the bot's global limit before anything else: even a 404 counts.
    const globalWaitMs = this.takeGlobal(req.headers.authorization, path, call.at);
    let result: { status: number; body?: unknown; headers?: Record<string, string> } =
      globalWaitMs > 0
        ? globallyRateLimited(globalWaitMs)
        : { status: 404, body: { message: '404: Not Found', code: 0 } };
    for (const [route, pattern, handler] of this.routes) {
      const match = `${method} ${path}`.match(pattern);
      if (!match) continue;
      call.route = route;
      if (call.body && typeof call.body === 'object' && 'allowed_mentions' in call.body) {
        call.allowedMentions = call.body.allowed_mentions;
      }
      if (globalWaitMs > 0) break;
      const limited = this.rateLimits.findIndex((r) => r.route === route);
      if (limited >= 0) {
        const { retryAfterS } = this.rateLimits.splice(limited, 1)[0]!;
        result = rateLimited(retryAfterS);
      } else {
        result = handler(match, call);
      }
      break;
    }
    call.status = result.status;
    this.calls.push(call);
    if (globalWaitMs > 0) this.globalRefusals.push(call);
    if (result.body === undefined) {
      // A 204 must not carry a JSON content type: @discordjs/rest would try to parse an empty body.
      res.writeHead(result.status, result.headers ?? {});
      res.end();
    } else {
      res.writeHead(result.status, { 'content-type': 'application/json', ...result.headers });
      res.end(JSON.stringify(result.body));
    }
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * Counts a call of the bot token `authorization` against `globalLimit`: 0 when it is let through,
   * else how many ms until the window has room. Interaction endpoints (and the interaction webhooks)
   * are not bound by the global limit on Discord.
   */
  private takeGlobal(authorization: string | undefined, path: string, now: number): number {
    const limit = this.options.globalLimit;
    if (!limit || !authorization?.startsWith('Bot ')) return 0;
    if (path.startsWith('/interactions/') || path.startsWith('/webhooks/')) return 0;
    let log = this.globalLog.get(authorization) ?? [];
    log = log.filter((at) => at > now - limit.perMs);
    this.globalLog.set(authorization, log);
    if (log.length >= limit.max) return Math.max(1, log[log.length - limit.max]! + limit.perMs - now);
    log.push(now);
    return 0;
  }

  private buildRoutes(): [string, RegExp, Handler][] {
    const id = '([^/]+)';
    const r = (route: string, pattern: string, handler: Handler): [string, RegExp, Handler] => [
      route,
      new RegExp(`^${pattern}$`),
      handler,
    ];
    return [
      r('GET /gateway/bot', 'GET /gateway/bot', () => ({
        status: 200,
        body: {
          url: `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/gateway`,
          shards: 1,
          session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
        },
      })),
      r('GET /users/@me', 'GET /users/@me', () => ({ status: 200, body: this.botUser })),
      r('GET /applications/@me', 'GET /(?:oauth2/)?applications/@me', () => ({
        status: 200,
        body: { id: this.applicationId, name: this.botName, flags: 0, bot: this.botUser },
      })),
      r('POST /users/@me/channels', 'POST /users/@me/channels', (_m, call) => {
        const recipient = String(call.body?.recipient_id ?? '');
        if (!/^\d+$/.test(recipient))
          return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
        // One DM channel per user, as on Discord: opening it again returns the same one.
        const known = [...this.dmChannels].find(([, user]) => user === recipient)?.[0];
        const channel = {
          id: known ?? nextSnowflake(),
          type: 1,
          last_message_id: null,
          flags: 0,
          recipients: [{ id: recipient, username: `user-${recipient}`, discriminator: '0', avatar: null }],
        };
        this.dmChannels.set(channel.id, recipient);
        this.channels.set(channel.id, channel);
        return { status: 200, body: channel };
      }),
      r('POST /channels/:channel/messages', `POST /channels/${id}/messages`, (m, call) => {
        if (this.refusedChannels.has(m[1]!)) return missingPermissions();
        if (this.closedDms.has(this.dmChannels.get(m[1]!) ?? '')) return cannotMessageUser();
        if (!this.checkMessageBody(call)) return invalidFormBody();
        return { status: 200, body: this.createMessage(m[1]!, call.body) };
      }),
      r('PATCH /channels/:channel/messages/:message', `PATCH /channels/${id}/messages/${id}`, (m, call) => {
        if (this.refusedChannels.has(m[1]!)) return missingPermissions();
        if (!this.checkMessageBody(call)) return invalidFormBody();
        const message = this.editMessage(m[2]!, call.body);
        return message ? { status: 200, body: message } : unknown(10008, 'Unknown Message');
      }),
      r('DELETE /channels/:channel/messages/:message', `DELETE /channels/${id}/messages/${id}`, (m) => {
        if (this.refusedChannels.has(m[1]!)) return missingPermissions();
        const message = this.messages.get(m[2]!);
        if (!message || message.channel_id !== m[1]) return unknown(10008, 'Unknown Message');
        // Gone for good: later edits of it are 404 Unknown Message, as on Discord.
        this.messages.delete(m[2]!);
        return { status: 204 };
      }),
      r('GET /channels/:channel/messages/:message', `GET /channels/${id}/messages/${id}`, (m) => {
        const post = this.userPosts.get(m[2]!);
        if (post && post.channel_id === m[1]) return { status: 200, body: post };
        const message = this.messages.get(m[2]!);
        return message ? { status: 200, body: this.toApi(message) } : unknown(10008, 'Unknown Message');
      }),
      r('GET /channels/:channel/messages', `GET /channels/${id}/messages`, (m, call) =>
        this.listMessages(m[1]!, call.query),
      ),
      r('GET /guilds/:guild', `GET /guilds/${id}`, (m) =>
        this.guildIds.includes(m[1]!)
          ? { status: 200, body: this.guildPayload(m[1]) }
          : unknown(10004, 'Unknown Guild'),
      ),
      r('GET /guilds/:guild/roles', `GET /guilds/${id}/roles`, (m) =>
        this.guildIds.includes(m[1]!)
          ? { status: 200, body: this.rolesPayload(m[1]) }
          : unknown(10004, 'Unknown Guild'),
      ),
      r('GET /guilds/:guild/channels', `GET /guilds/${id}/channels`, (m) =>
        this.guildIds.includes(m[1]!)
          ? {
              status: 200,
              body: [...this.channels.values()].filter((c) => c.guild_id === m[1] && c.type !== 11),
            }
          : unknown(10004, 'Unknown Guild'),
      ),
      r('GET /guilds/:guild/members/:user', `GET /guilds/${id}/members/${id}`, (m) => {
        if (!this.guildIds.includes(m[1]!)) return unknown(10004, 'Unknown Guild');
        const member = m[2] === this.botId ? { roles: this.options.botRoles ?? [] } : this.members.get(m[2]!);
        if (!member) return unknown(10007, 'Unknown Member');
        return {
          status: 200,
          body: {
            user:
              m[2] === this.botId
                ? this.botUser
                : { id: m[2], username: `user-${m[2]}`, discriminator: '0', global_name: null, avatar: null },
            roles: member.roles,
            nick: (member as { nick?: string }).nick ?? null,
            joined_at: new Date().toISOString(),
            deaf: false,
            mute: false,
            flags: 0,
          },
        };
      }),
      r(
        'POST /channels/:channel/messages/:message/threads',
        `POST /channels/${id}/messages/${id}/threads`,
        (m, call) => {
          const name = String(call.body?.name ?? '');
          if (name.length < 1 || name.length > DISCORD_LIMITS.threadName) {
            this.violations.push(`${call.route}: thread name length ${name.length} outside 1–100`);
            return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
          }
          const thread = {
            id: m[2]!,
            type: 11,
            // The thread is in its parent's server.
            guild_id: this.channels.get(m[1]!)?.guild_id ?? this.guildId,
            parent_id: m[1]!,
            name,
            owner_id: this.botId,
            flags: 0,
            rate_limit_per_user: 0,
            message_count: 0,
            member_count: 1,
            total_message_sent: 0,
            thread_metadata: {
              archived: false,
              locked: false,
              auto_archive_duration: call.body?.auto_archive_duration ?? 1440,
              archive_timestamp: new Date().toISOString(),
            },
          };
          this.channels.set(thread.id, thread);
          setImmediate(() => this.dispatch('THREAD_CREATE', { ...thread, newly_created: true }));
          return { status: 201, body: thread };
        },
      ),
      r('POST /channels/:channel/typing', `POST /channels/${id}/typing`, (m) =>
        this.refusedChannels.has(m[1]!) ? missingPermissions() : { status: 204 },
      ),
      r('GET /channels/:channel', `GET /channels/${id}`, (m) => {
        const channel = this.channels.get(m[1]!);
        return channel ? { status: 200, body: channel } : unknown(10003, 'Unknown Channel');
      }),
      r(
        'POST /interactions/:interaction/:token/callback',
        `POST /interactions/${id}/${id}/callback`,
        (m, call) => this.interactionCallback(m[2]!, call),
      ),
      r(
        'PATCH /webhooks/:application/:token/messages/@original',
        `PATCH /webhooks/${id}/${id}/messages/@original`,
        (m, call) => {
          if (!this.checkMessageBody(call)) return invalidFormBody();
          const messageId = this.originals.get(m[2]!);
          const message = messageId ? this.editMessage(messageId, call.body) : undefined;
          return message ? { status: 200, body: message } : unknown(10008, 'Unknown Message');
        },
      ),
      r(
        'PATCH /webhooks/:application/:token/messages/:message',
        `PATCH /webhooks/${id}/${id}/messages/${id}`,
        (m, call) => {
          if (!this.checkMessageBody(call)) return invalidFormBody();
          const message = this.editMessage(m[3]!, call.body);
          return message ? { status: 200, body: message } : unknown(10008, 'Unknown Message');
        },
      ),
      r('POST /webhooks/:application/:token', `POST /webhooks/${id}/${id}`, (m, call) => {
        if (!this.checkMessageBody(call)) return invalidFormBody();
        const original = this.messages.get(this.originals.get(m[2]!) ?? '');
        return { status: 200, body: this.createMessage(original?.channel_id ?? 'interaction', call.body) };
      }),
      r('PUT /applications/:application/commands', `PUT /applications/${id}/commands`, (_m, call) => {
        this.commands.global = withIds(call.body, this.applicationId);
        return { status: 200, body: this.commands.global };
      }),
      r(
        'PUT /applications/:application/guilds/:guild/commands',
        `PUT /applications/${id}/guilds/${id}/commands`,
        (m, call) => {
          // Guild commands cannot be offered in DMs with the bot: Discord refuses the BotDM context.
          // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
          if ((call.body as any[]).some((c) => c.contexts?.includes(1))) {
            return {
              status: 400,
              body: { code: 50035, message: 'Invalid Form Body', errors: { contexts: 'BotDM not allowed' } },
            };
          }
          const commands = withIds(call.body, this.applicationId, m[2]!);
          this.commands.guild.set(m[2]!, commands);
          return { status: 200, body: commands };
        },
      ),
    ];
  }

  private interactionCallback(token: string, call: RecordedCall): { status: number; body?: unknown } {
    const { type, data } = call.body ?? {};
    if ((type === 4 || type === 7) && !this.checkMessageBody({ ...call, body: data ?? {} }))
      return invalidFormBody();
    let messageId: string | undefined;
    if (type === 4 || type === 5) {
      // A reply (or a deferred one): the "original response" later edited through the webhook.
      const message = this.createMessage('interaction', { content: '', ...(data ?? {}) });
      this.originals.set(token, message.id);
      messageId = message.id;
    } else if (type === 7) {
      messageId = this.interactionMessages.get(token);
      if (messageId) this.editMessage(messageId, data ?? {});
    } else if (type === 6) {
      messageId = this.interactionMessages.get(token);
    }
    if (call.query.with_response !== 'true') return { status: 204 };
    const message = messageId ? this.messages.get(messageId) : undefined;
    return {
      status: 200,
      body: {
        interaction: { id: call.path.split('/')[2], type: 2 },
        resource: { type, ...(message ? { message: this.toApi(message) } : {}) },
      },
    };
  }

  // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
  private createMessage(channelId: string, body: any) {
    const message: FakeMessage = {
      id: nextSnowflake(),
      channel_id: channelId,
      content: body?.content ?? '',
      flags: body?.flags ?? 0,
      embeds: body?.embeds ?? [],
      components: body?.components ?? [],
      author: this.botUser,
      contents: [body?.content ?? ''],
      edits: 0,
    };
    this.messages.set(message.id, message);
    const api = this.toApi(message);
    if (this.options.echoOwnMessages !== false && this.channels.has(channelId)) {
      const channel = this.channels.get(channelId);
      setImmediate(() =>
        this.dispatch('MESSAGE_CREATE', {
          ...api,
          channel_type: channel.type,
          ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
        }),
      );
    }
    return api;
  }

  /**
   * GET /channels/:id/messages as Discord answers it: newest first, `limit` 1–100 (default 50),
   * and `before`/`after`/`around` mutually exclusive (400 Invalid Form Body otherwise).
   */
  private listMessages(channelId: string, query: Record<string, string>): { status: number; body?: unknown } {
    if (!this.channels.has(channelId)) return unknown(10003, 'Unknown Channel');
    // The bot's own access, as Discord enforces it: no View Channel is Missing Access, View Channel
    // without Read Message History is Missing Permissions.
    const bits = this.permissionsIn(channelId, this.botId);
    if ((bits & PERMISSION.viewChannel) === 0n)
      return { status: 403, body: { message: 'Missing Access', code: 50001 } };
    if ((bits & PERMISSION.readMessageHistory) === 0n) return missingPermissions();
    const limit = Number(query.limit ?? 50);
    const anchors = ['before', 'after', 'around'].filter((k) => query[k] !== undefined);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100 || anchors.length > 1)
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    const all = [
      ...[...this.userPosts.values()].filter((p) => p.channel_id === channelId),
      ...this.messagesIn(channelId).map((m) => this.toApi(m)),
    ].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? 1 : -1));
    const page = all
      .filter((p) => !query.before || BigInt(p.id) < BigInt(query.before))
      .filter((p) => !query.after || BigInt(p.id) > BigInt(query.after));
    // `after` pages from the oldest side; either way the answer is newest first.
    const chosen = query.after ? page.slice(-limit) : page.slice(0, limit);
    return { status: 200, body: chosen };
  }

  /** The CDN: signed links need no credentials; unknown ids are 404. */
  private serveAttachment(pathname: string, req: IncomingMessage, res: ServerResponse): void {
    this.downloads.push({
      path: pathname,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    const file = this.files.get(pathname.split('/')[3] ?? '');
    if (!file) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.byteLength) });
    res.end(Buffer.from(file.bytes));
  }

  // biome-ignore lint/suspicious/noExplicitAny: raw API payloads
  private editMessage(messageId: string, body: any) {
    const message = this.messages.get(messageId);
    if (!message) return undefined;
    if (body?.content !== undefined && body.content !== null) message.content = body.content;
    if (body?.embeds !== undefined) message.embeds = body.embeds ?? [];
    if (body?.components !== undefined) message.components = body.components ?? [];
    if (body?.flags !== undefined && body.flags !== null) message.flags = body.flags;
    message.contents.push(message.content);
    message.edits += 1;
    return this.toApi(message);
  }

  private toApi(message: FakeMessage) {
    return {
      id: message.id,
      type: 0,
      channel_id: message.channel_id,
      author: message.author,
      content: message.content,
      flags: message.flags,
      embeds: message.embeds,
      components: message.components,
      attachments: [],
      mentions: [],
      mention_roles: [],
      mention_everyone: false,
      pinned: false,
      tts: false,
      timestamp: new Date().toISOString(),
      edited_timestamp: message.edits > 0 ? new Date().toISOString() : null,
    };
  }

  /**
   * Checks a message-sending body against Discord's limits; records violations and pings. False when
   * Discord would refuse the body (400 Invalid Form Body): the message is then not created or changed.
   */
  private checkMessageBody(call: RecordedCall): boolean {
    const before = this.violations.length;
    const body = call.body ?? {};
    const where = call.route;
    // JSON may carry an unpaired surrogate as an escape (`\ud83d`): not text, whatever decodes it.
    const broken = stringsOf(body).find((text) => LONE_SURROGATE.test(text));
    if (broken !== undefined)
      this.violations.push(`${where}: unpaired surrogate in ${JSON.stringify(broken.slice(0, 40))}`);
    const content: string = typeof body.content === 'string' ? body.content : '';
    if (content.length > DISCORD_LIMITS.content) {
      this.violations.push(
        `${where}: content is ${content.length} characters (limit ${DISCORD_LIMITS.content})`,
      );
    }
    const embeds: { title?: string; description?: string }[] = Array.isArray(body.embeds) ? body.embeds : [];
    if (embeds.length > DISCORD_LIMITS.embeds) this.violations.push(`${where}: ${embeds.length} embeds`);
    let embedTotal = 0;
    for (const embed of embeds) {
      const description = embed.description ?? '';
      if (description.length > DISCORD_LIMITS.embedDescription) {
        this.violations.push(`${where}: embed description is ${description.length} characters`);
      }
      if ((embed.title ?? '').length > DISCORD_LIMITS.embedTitle)
        this.violations.push(`${where}: embed title`);
      embedTotal += description.length + (embed.title ?? '').length;
    }
    if (embedTotal > DISCORD_LIMITS.embedsTotal) this.violations.push(`${where}: embeds total ${embedTotal}`);
    this.checkComponents(where, body);
    this.checkPings(where, content, call.allowedMentions);
    return this.violations.length === before;
  }

  private checkComponents(
    where: string,
    body: RawComponent & { content?: string; embeds?: unknown[] },
  ): void {
    const components = body.components ?? [];
    if ((Number(body.flags ?? 0) & FLAG_COMPONENTS_V2) !== 0) {
      if (body.content || (Array.isArray(body.embeds) && body.embeds.length > 0)) {
        this.violations.push(`${where}: content/embeds are not allowed with IS_COMPONENTS_V2`);
      }
      const count = (list: RawComponent[]): number =>
        list.reduce((n, c) => n + 1 + count(c.components ?? []) + (c.accessory ? 1 : 0), 0);
      if (count(components) > DISCORD_LIMITS.componentsV2Total)
        this.violations.push(`${where}: > 40 components`);
      return;
    }
    if (components.length > DISCORD_LIMITS.actionRows)
      this.violations.push(`${where}: ${components.length} rows`);
    for (const row of components) {
      if (row.type !== 1)
        this.violations.push(`${where}: top-level component of type ${row.type} is not a row`);
      const children = row.components ?? [];
      if (children.length > DISCORD_LIMITS.buttonsPerRow)
        this.violations.push(`${where}: row of ${children.length}`);
      for (const child of children) {
        if ((child.custom_id ?? '').length > DISCORD_LIMITS.customId)
          this.violations.push(`${where}: custom_id`);
        if ((child.label ?? '').length > DISCORD_LIMITS.buttonLabel)
          this.violations.push(`${where}: button label`);
        if (child.type === 2 && child.style !== 5 && !child.custom_id) {
          this.violations.push(`${where}: button without custom_id`);
        }
      }
    }
  }

  private checkPings(where: string, content: string, allowed: RecordedCall['allowedMentions']): void {
    // Without allowed_mentions Discord parses everything the content mentions.
    const parse = allowed ? (allowed.parse ?? []) : ['everyone', 'roles', 'users'];
    if (/@(everyone|here)/.test(content) && parse.includes('everyone'))
      this.pings.push(`${where}: @everyone/@here`);
    const roles = [...content.matchAll(/<@&(\d+)>/g)].map((m) => m[1]!);
    for (const role of roles) {
      if (parse.includes('roles') || allowed?.roles?.includes(role))
        this.pings.push(`${where}: role ${role}`);
    }
    const users = [...content.matchAll(/<@!?(\d+)>/g)].map((m) => m[1]!);
    for (const user of users) {
      if (parse.includes('users') || allowed?.users?.includes(user))
        this.pings.push(`${where}: user ${user}`);
    }
  }
}

/** The fields of a message component the limit checks read. */
interface RawComponent {
  type?: number;
  flags?: number;
  style?: number;
  custom_id?: string;
  label?: string;
  accessory?: unknown;
  components?: RawComponent[];
}

/** A file sent with a message (multipart `files[n]`), as Discord receives it. */
export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * multipart/form-data as discord.js sends messages with files: `payload_json` is the message body,
 * every other part a file. Returns the body with the files under `uploads`.
 */
function parseMultipart(raw: Buffer, contentType: string): unknown {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  const mark = Buffer.from(`--${boundary?.[1] ?? boundary?.[2] ?? ''}`);
  let body: Record<string, unknown> = {};
  const uploads: UploadedFile[] = [];
  let start = raw.indexOf(mark);
  while (start !== -1) {
    const next = raw.indexOf(mark, start + mark.length);
    if (next === -1) break;
    const part = raw.subarray(start + mark.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    if (name === 'payload_json') body = JSON.parse(content.toString('utf8'));
    else
      uploads.push({
        field: name,
        filename: /filename="([^"]*)"/.exec(head)?.[1] ?? '',
        contentType: /content-type:\s*(\S+)/i.exec(head)?.[1] ?? '',
        bytes: Buffer.from(content),
      });
    start = next;
  }
  return { ...body, uploads };
}

function parseBody(text: string, contentType: string | undefined, raw?: Buffer): unknown {
  if (!text) return undefined;
  if (raw && contentType?.includes('multipart/form-data')) return parseMultipart(raw, contentType);
  if (contentType?.includes('application/json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** An unpaired UTF-16 surrogate: a high one not followed by a low one, or a low one alone. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every string inside a JSON value. */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

function invalidFormBody() {
  return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
}

function unknown(code: number, message: string) {
  return { status: 404, body: { message, code } };
}

function missingPermissions() {
  return { status: 403, body: { message: 'Missing Permissions', code: 50013 } };
}

function cannotMessageUser() {
  return { status: 403, body: { message: 'Cannot send messages to this user', code: 50007 } };
}

function rateLimited(retryAfterS: number) {
  return {
    status: 429,
    body: { message: 'You are being rate limited.', retry_after: retryAfterS, global: false },
    headers: {
      'Retry-After': String(retryAfterS),
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset-After': String(retryAfterS),
      'X-RateLimit-Bucket': 'fake-bucket',
      'X-RateLimit-Scope': 'user',
    },
  };
}

/** Discord's answer to a call over the bot's global limit (the whole bot waits, not one route). */
function globallyRateLimited(waitMs: number) {
  const retryAfterS = waitMs / 1000;
  return {
    status: 429,
    body: { message: 'You are being rate limited.', retry_after: retryAfterS, global: true },
    headers: {
      'Retry-After': String(retryAfterS),
      'X-RateLimit-Global': 'true',
      'X-RateLimit-Scope': 'global',
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: raw API payloads
function withIds(commands: any, applicationId: string, guildId?: string): any[] {
  return (Array.isArray(commands) ? commands : []).map((command) => ({
    id: nextSnowflake(),
    application_id: applicationId,
    version: nextSnowflake(),
    ...(guildId ? { guild_id: guildId } : {}),
    ...command,
  }));
}
