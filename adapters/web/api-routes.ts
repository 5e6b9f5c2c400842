/**
 * The JSON API and the event streams of the web chat (PROTOCOL.md). Every route acts for the session's
 * user only: conversations are looked up under the user's own keys, so another user's id is a 404.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../../src/config/env.js';
import { DEFAULT_MODELS } from '../../src/llm/default-models.js';
import { modelLabel } from '../../src/llm/model-config.js';
import type { Logger } from '../../src/logger.js';
import { clearConversation } from '../../src/store/conversation-store.js';
import type { Stores } from '../../src/store/types.js';
import type { CommandContext, IncomingMessage as CoreMessage, Locale, ScoutCore } from '../../src/surface.js';
import type { WebAuth } from './auth/web-auth.js';
import type { Session } from './auth/session-cookie.js';
import type { Session as PageSession } from './client/protocol.js';
import { type ConversationHub, Hubs } from './conversation-hub.js';
import { MAX_TITLE_CHARS, WebConversations } from './conversations.js';
import { EventStream, type StreamEvent } from './event-stream.js';
import { HttpError, readBody, readJson, requestLocale, sendJson } from './http-kit.js';
import { phrase } from '../../src/i18n/phrase.js';
import { InstanceRelay, PRESENCE_REFRESH_MS, type RelayMessage } from './instance-relay.js';
import { OpenStreams } from './request-limits.js';
import { applySettings, toForm } from './settings-form.js';
import { starters } from './starters.js';
import { cleanName, MAX_FILES_PER_MESSAGE, Uploads, uploadedContext } from './uploads.js';
import { PendingConfirms, WebSink } from './web-sink.js';
import { applyPatch, type TurnPatch, type WireEntry, type WireTurn } from './wire.js';

/** A question longer than this is refused with a clear 413 (Slack's own message limit is 40k). */
const MAX_QUESTION_CHARS = 40_000;
/** While a turn runs, whether another instance watches it is checked this often. */
const WATCHERS_CHECK_MS = 2_000;
/** Event streams open at once per address (a few tabs, never a flood). */
const STREAMS_PER_ADDRESS = 32;

export interface ApiRoutesOptions {
  core: ScoutCore;
  config: Config;
  logger: Logger;
  stores: Stores;
  auth: WebAuth;
}

const CONVERSATION_PATH = /^\/api\/conversations\/([A-Za-z0-9_-]{16})(\/(events|messages|stop|confirm))?$/;

export class ApiRoutes {
  readonly #hubs = new Hubs();
  readonly #conversations: WebConversations;
  readonly #uploads = new Uploads();
  readonly #confirms = new PendingConfirms();
  readonly #streams = new OpenStreams(STREAMS_PER_ADDRESS);
  readonly #openStreams = new Set<EventStream>();
  readonly #turns = new Set<Promise<void>>();
  readonly #relay: InstanceRelay;
  #accepting = true;

  constructor(private readonly o: ApiRoutesOptions) {
    this.#conversations = new WebConversations(o.stores);
    this.#relay = new InstanceRelay(o.stores.broadcast, o.stores.meta, o.logger);
  }

  /** Joins the conversation's channel between instances (once per hub; nothing without Redis). */
  #join(hub: ConversationHub, key: string, user: string, id: string): Promise<unknown> {
    if (!this.#relay.enabled) return Promise.resolve();
    if (!hub.leave) {
      hub.forward = (event, body) => this.#relay.send(key, { kind: 'event', event, body });
      hub.leave = this.#relay.join(key, (message) => this.#fromElsewhere(message, hub, key, user, id));
    }
    return hub.leave.catch((err: unknown) => this.o.logger.warn({ err }, 'web relay join failed'));
  }

  /** A message from another instance about this conversation. */
  #fromElsewhere(message: RelayMessage, hub: ConversationHub, key: string, user: string, id: string): void {
    switch (message.kind) {
      case 'hello':
        // Someone elsewhere opened the conversation: forward from now on, starting with the whole turn.
        if (!hub.running) return;
        hub.watchedElsewhere = true;
        this.#relay.send(key, { kind: 'event', event: 'turn', body: { turn: hub.running } });
        return;
      case 'stop':
        if (hub.running) this.o.core.cancel(this.#coreConversation(user, id));
        return;
      case 'confirm':
        this.#confirms.answer(`${key}:${message.confirmId}`, user, message.accept);
        return;
      case 'event':
        if (hub.running) return;
        if (message.event === 'turn') {
          const turn = (message.body as { turn: WireTurn }).turn;
          hub.remoteTurn = turn.done ? undefined : turn;
        } else if (message.event === 'patch') {
          const patch = message.body as TurnPatch;
          const next = hub.remoteTurn && applyPatch(hub.remoteTurn, patch);
          if (!next) {
            // Joined mid-turn, or a patch went missing: ask for the whole turn rather than show a gap.
            this.#relay.send(key, { kind: 'hello' });
            return;
          }
          hub.remoteTurn = next.done ? undefined : next;
        }
        hub.publish(message.event, message.body, true);
        return;
    }
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL, session: Session): Promise<void> {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const user = session.user.id;
    const locale = this.#locale(req);
    if (method !== 'GET' && method !== 'HEAD') this.o.auth.checkChange(req, session);

    if (path === '/api/session' && method === 'GET')
      return sendJson(res, 200, this.#session(session, locale));
    if (path === '/api/conversations') {
      if (method === 'GET')
        return sendJson(res, 200, { conversations: await this.#conversations.list(user) });
      if (method === 'POST') return sendJson(res, 201, await this.#conversations.create(user));
    }
    if (path === '/api/settings') {
      const context = this.#commandContext(session, locale);
      if (method === 'GET')
        return sendJson(res, 200, toForm(await this.o.core.getSettings(context.channelId)));
      if (method === 'PUT') {
        const settings = await applySettings(this.o.core, context, await readJson(req));
        return sendJson(res, 200, { settings });
      }
    }
    if (path === '/api/uploads' && method === 'POST') return this.#upload(req, res, user);
    const match = CONVERSATION_PATH.exec(path);
    if (match) {
      const id = match[1] as string;
      const action = match[3];
      const info = await this.#conversations.find(user, id);
      if (!info) throw new HttpError(404, phrase('web.error.no-conversation'));
      const key = `${user}:${id}`;
      if (!action) {
        if (method === 'GET') {
          const entries = await this.#conversations.entries(user, id);
          return sendJson(res, 200, { ...info, entries, turn: this.#hubs.peek(key)?.current ?? null });
        }
        if (method === 'PATCH') {
          const body = await readJson(req);
          if (
            typeof body.title !== 'string' ||
            !body.title.trim() ||
            body.title.length > MAX_TITLE_CHARS * 4
          ) {
            throw new HttpError(400, phrase('web.error.title', { max: MAX_TITLE_CHARS }));
          }
          return sendJson(res, 200, await this.#conversations.rename(user, id, body.title));
        }
        if (method === 'DELETE') {
          this.o.core.cancel(this.#coreConversation(user, id));
          await this.#conversations.remove(user, id);
          // Deleting a chat deletes what the model remembers of it too, not only what the page shows.
          await clearConversation(this.o.stores, this.#coreConversation(user, id));
          res.writeHead(204);
          return void res.end();
        }
      }
      if (action === 'events' && method === 'GET') return this.#events(req, res, key, user, id);
      if (action === 'messages' && method === 'POST') return this.#message(req, res, session, id, locale);
      if (action === 'stop' && method === 'POST') {
        let stopped = this.o.core.cancel(this.#coreConversation(user, id));
        if (!stopped && this.#hubs.peek(key)?.remoteTurn) {
          // The turn runs on another instance: that one stops it.
          this.#relay.send(key, { kind: 'stop' });
          stopped = true;
        }
        return sendJson(res, 200, { stopped });
      }
      if (action === 'confirm' && method === 'POST') {
        const body = await readJson(req);
        if (typeof body.confirmId !== 'string' || typeof body.accept !== 'boolean') {
          throw new HttpError(400, phrase('web.error.bad-request'));
        }
        return sendJson(res, 200, {
          ok: this.#confirms.answer(`${key}:${body.confirmId}`, user, body.accept),
        });
      }
    }
    throw new HttpError(404, phrase('web.error.not-found'));
  }

  #locale(req: IncomingMessage): Locale {
    return requestLocale(req, this.o.config.env.BOT_LOCALE);
  }

  /** A web user's settings are theirs across their conversations, like a DM's on Slack. */
  #channel(user: string): string {
    return `web:${user}`;
  }

  #coreConversation(user: string, id: string): string {
    return `web:${user}:${id}`;
  }

  #commandContext(session: Session, locale: Locale, id?: string): CommandContext {
    return {
      channelId: this.#channel(session.user.id),
      ...(id ? { conversationId: this.#coreConversation(session.user.id, id) } : {}),
      userId: `web:${session.user.id}`,
      direct: true,
      locale,
    };
  }

  #session(session: Session, locale: Locale): PageSession {
    const config = this.o.config;
    const models = new Set<string>([modelLabel(config.toolModel)]);
    if (config.answerModel) models.add(modelLabel(config.answerModel));
    if (config.summaryModel) models.add(modelLabel(config.summaryModel));
    const env = config.env;
    if (env.OPENAI_API_KEY) models.add(`openai/${DEFAULT_MODELS.openai}`);
    if (env.ANTHROPIC_API_KEY) models.add(`anthropic/${DEFAULT_MODELS.anthropic}`);
    if (env.GEMINI_API_KEY) models.add(`gemini/${DEFAULT_MODELS.gemini}`);
    return {
      user: session.user,
      csrf: session.csrf,
      locale,
      auth: this.o.auth.kind,
      models: [...models],
      starters: starters(env.WEB_STARTERS, locale),
      maxUploadBytes: env.CONTEXT_MAX_FILE_BYTES,
    };
  }

  async #upload(req: IncomingMessage, res: ServerResponse, user: string): Promise<void> {
    const name = cleanName(String(req.headers['x-file-name'] ?? 'file'));
    const bytes = await readBody(req, this.o.config.env.CONTEXT_MAX_FILE_BYTES);
    if (bytes.length === 0) throw new HttpError(400, phrase('web.error.empty-file'));
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim();
    const ref = this.#uploads.add(user, name, type || undefined, new Uint8Array(bytes));
    return sendJson(res, 201, { id: ref.id, name: ref.name, size: ref.size });
  }

  async #message(req: IncomingMessage, res: ServerResponse, session: Session, id: string, locale: Locale) {
    if (!this.#accepting) throw new HttpError(503, phrase('web.error.restarting'));
    const body = await readJson(req);
    const text = typeof body.text === 'string' ? body.text.trim() : '';
    const fileIds = Array.isArray(body.files)
      ? body.files.filter((f): f is string => typeof f === 'string')
      : [];
    if (!text && fileIds.length === 0) throw new HttpError(400, phrase('web.error.empty-message'));
    if (text.length > MAX_QUESTION_CHARS) {
      throw new HttpError(413, phrase('web.error.message-too-long', { max: MAX_QUESTION_CHARS }));
    }
    if (fileIds.length > MAX_FILES_PER_MESSAGE)
      throw new HttpError(400, phrase('web.error.too-many-files', { max: MAX_FILES_PER_MESSAGE }));
    const user = session.user.id;
    const key = `${user}:${id}`;
    const { refs, bytes } = this.#uploads.take(user, fileIds);
    if (refs.length < fileIds.length) throw new HttpError(400, phrase('web.error.file-gone'));
    const hub = this.#hubs.get(key);
    await this.#join(hub, key, user, id);
    hub.watchedElsewhere = await this.#relay.watchedElsewhere(key);
    const entry: WireEntry = {
      kind: 'user',
      text,
      ...(refs.length > 0 ? { files: refs.map((r) => r.name) } : {}),
      at: Date.now(),
    };
    await this.#conversations.append(user, id, entry);
    hub.publish('user', { entry });
    if (await this.#conversations.touch(user, id, text.startsWith('/') ? undefined : text || refs[0]?.name)) {
      hub.publish('conversations', {});
    }
    const messageId = `web:${randomUUID()}`;
    const message: CoreMessage = {
      channelId: this.#channel(user),
      conversationId: this.#coreConversation(user, id),
      messageId,
      userId: `web:${user}`,
      ...(session.user.name ? { userName: session.user.name } : {}),
      channelName: 'web',
      direct: true,
      text,
      locale,
      ...(refs.length > 0 ? { context: uploadedContext(messageId, refs, bytes) } : {}),
    };
    const sink = new WebSink({
      hub,
      key,
      user,
      conversation: id,
      conversations: this.#conversations,
      confirms: this.#confirms,
      locale,
      logger: this.o.logger,
    });
    // Someone may open the conversation on another instance while the turn runs.
    const watchers = this.#relay.enabled
      ? setInterval(() => {
          if (hub.watchedElsewhere) return;
          void this.#relay.watchedElsewhere(key).then((watched) => {
            hub.watchedElsewhere ||= watched;
          });
        }, WATCHERS_CHECK_MS)
      : undefined;
    // The turn runs on whether or not a browser listens; the request only says it was taken.
    const turn = this.o.core
      .handleMessage(message, sink)
      .catch((err: unknown) => this.o.logger.error({ err }, 'web turn failed'))
      .finally(() => {
        clearInterval(watchers);
        this.#turns.delete(turn);
        this.#hubs.release(key);
      });
    this.#turns.add(turn);
    sendJson(res, 202, { accepted: true });
  }

  async #events(
    req: IncomingMessage,
    res: ServerResponse,
    key: string,
    user: string,
    id: string,
  ): Promise<void> {
    // Shutting down: a page reconnecting gets an answer, not a stream that would hold the server open.
    if (!this.#accepting) throw new HttpError(503, phrase('web.error.restarting'));
    const address = this.o.auth.clientAddress(req);
    if (!this.#streams.open(address)) throw new HttpError(429, phrase('web.error.too-many-streams'));
    const hub = this.#hubs.get(key);
    const presence = this.#relay.enabled
      ? setInterval(() => this.#relay.markWatched(key), PRESENCE_REFRESH_MS)
      : undefined;
    const stream = new EventStream(
      res,
      // Caught up after falling behind: what it missed is said by a snapshot.
      (s) => void this.#snapshotThenListen(hub, s, user, id).catch(() => s.close()),
      (s) => {
        clearInterval(presence);
        hub.listeners.delete(s);
        this.#openStreams.delete(s);
        this.#streams.close(address);
        this.#hubs.release(key);
      },
    );
    this.#openStreams.add(stream);
    if (this.#relay.enabled) {
      await this.#join(hub, key, user, id);
      this.#relay.markWatched(key);
    }
    // Once listening: a turn running elsewhere answers with its whole state, then forwards its events.
    const hello = () => {
      if (this.#relay.enabled && !hub.running) this.#relay.send(key, { kind: 'hello' });
    };
    const lastEventId = req.headers['last-event-id'];
    const missed = hub.since(typeof lastEventId === 'string' ? lastEventId : undefined);
    if (missed) {
      for (const event of missed) stream.send(event);
      hub.listeners.add(stream);
      return hello();
    }
    await this.#snapshotThenListen(hub, stream, user, id);
    hello();
  }

  /**
   * Sends `stream` a snapshot, then what was published while the transcript was read, then listens.
   * The snapshot's id and turn are taken together, before the read, so the events queued meanwhile
   * follow on from that turn (a patch applied to a later copy would repeat its text).
   */
  async #snapshotThenListen(
    hub: ConversationHub,
    stream: EventStream,
    user: string,
    id: string,
  ): Promise<void> {
    hub.listeners.delete(stream);
    const lastId = hub.lastId;
    const turn = hub.current ?? null;
    const queued: StreamEvent[] = [];
    const buffer = { send: (event: StreamEvent) => queued.push(event) } as unknown as EventStream;
    hub.listeners.add(buffer);
    try {
      const entries = await this.#conversations.entries(user, id);
      stream.send({ id: lastId, event: 'snapshot', data: JSON.stringify({ entries, turn }) });
      for (const event of queued) stream.send(event);
    } finally {
      hub.listeners.delete(buffer);
    }
    if (!stream.closed) hub.listeners.add(stream);
  }

  /** No new turns (shutdown); running ones are finished by the core. */
  stop(): void {
    this.#accepting = false;
  }

  closeStreams(): void {
    for (const stream of this.#openStreams) stream.close();
  }
}
