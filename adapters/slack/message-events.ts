/**
 * The Slack events that start turns: app_mention and message (dropped when already delivered or not
 * a trigger, see triggers.ts; "stop" in a thread stops its turn), and assistant_thread_started (the
 * suggested prompts). Each is acknowledged at once and handled afterwards, tracked in `inFlight`.
 */
import type { App } from '@slack/bolt';
import type { Config } from '../../src/config/env.js';
import { isUserAllowed } from '../../src/core/allowed-channels.js';
import { phrase } from '../../src/i18n/phrase.js';
import type { Logger } from '../../src/logger.js';
import type { Locale, ScoutCore } from '../../src/surface.js';
import type { ButtonRelay } from './button-relay.js';
import { slackContextSource } from './context-source.js';
import type { SlackListeners } from './listener-router.js';
import { suggestedPrompts } from './notes.js';
import { channelId, conversationId, messageId } from './ids.js';
import type { SlackSurfaceState } from './surface-state.js';
import {
  type AnsweredThreads,
  hasChannel,
  isDirectMessage,
  mentionTrigger,
  messageTrigger,
  opensThread,
  type SlackMessageEvent,
  type Trigger,
} from './triggers.js';
import type { SlackTurnSink } from './turn-sink.js';
import type { SlackUserDirectory } from './user-directory.js';
import { slackSearchFor } from './workspace-search-for.js';

/** Slack redelivers for ~5 minutes; event ids are remembered a little longer. */
const EVENT_DEDUPE_TTL_MS = 10 * 60_000;
/** A thread message that asks to stop the running turn (English or Chinese, nothing else in it). */
const STOP_REQUEST = /^\s*(?:stop|停止|停)[\s.!。！]*$/i;

export interface MessageEventsOptions {
  core: ScoutCore;
  config: Config;
  /** The surface's logger (`surface: slack`). */
  log: Logger;
  state: SlackSurfaceState;
  relay: ButtonRelay;
  answered: AnsweredThreads;
  /** Who the authors are (display names), for the context reader. */
  users: SlackUserDirectory;
  localeOf: (userId: string) => Promise<Locale>;
  /** The sink a turn (or a reply) in this thread writes through. */
  sinkFor: (team: string, trigger: Trigger, locale: Locale) => SlackTurnSink;
  /** Handling started after the ack; the surface's idle() waits for it. */
  inFlight: Set<Promise<void>>;
  /** False once stop() began: new events are not taken. */
  accepting: () => boolean;
}

export function registerMessageEvents(
  app: App,
  listeners: SlackListeners,
  options: MessageEventsOptions,
): void {
  const { core, config, log, state, relay, answered, users, localeOf, sinkFor, inFlight } = options;
  const env = config.env;
  let botUserId: string | undefined;
  // WORKSPACE_SEARCH=on: search_workspace as the asker (workspace-search.ts).
  const workspaceSearchFor = slackSearchFor(app, env, users, log);

  /**
   * The store failed before the core got the message (event dedupe, the answered-thread mark). The
   * event is already acknowledged and Slack will not send it again: say so in the thread (as the
   * core does for its own store failures) instead of dropping the message in silence. Logged here, once.
   */
  const storeUnavailable = async (team: string, trigger: Trigger, err: unknown) => {
    log.error({ err, channel: trigger.channel }, 'store unavailable: Slack message not handled');
    const locale = await localeOf(trigger.userId);
    await sinkFor(team, trigger, locale)
      .reply(phrase('error.store'))
      .catch((replyErr) => log.warn({ err: replyErr }, 'store-unavailable reply failed'));
  };

  const startTurn = async (team: string, trigger: Trigger, direct: boolean, event?: SlackMessageEvent) => {
    // A refused user leaves no trace: no thread marked as Scout's, no status, no answer (the core
    // checks again; this keeps the adapter's own side effects out too).
    if (!isUserAllowed(config, { userId: trigger.userId })) {
      log.info({ user: trigger.userId }, 'message from a user the access lists refuse ignored');
      return;
    }
    const locale = await localeOf(trigger.userId);
    const conversation = conversationId(team, trigger.channel, trigger.threadTs);
    // A native stream carries no Stop button (its top says to write "stop"): "stop" written in the
    // thread stops the turn running there (the button's rule: the asker or an admin). One that
    // arrives when nothing runs (the answer just ended) is told so, privately: never a question.
    if (STOP_REQUEST.test(trigger.text)) {
      const stop = () => core.cancel(conversation);
      const outcome = await relay.handle(conversation, 'stop', trigger.userId, stop);
      if (outcome === 'done' || outcome === 'relayed') return;
      const notice = outcome === 'forbidden' ? 'stop.not-yours' : 'stop.nothing-running';
      return sinkFor(team, trigger, locale).reply(phrase(notice));
    }
    try {
      // Only a thread Scout opened is answered without a mention afterwards.
      if (opensThread(trigger, direct)) await answered.remember(team, trigger.channel, trigger.threadTs);
    } catch (err) {
      return storeUnavailable(team, trigger, err);
    }
    const sink = sinkFor(team, trigger, locale);
    const workspaceSearch = await workspaceSearchFor?.(trigger.channel, event);
    const watch = relay.watch(conversation, trigger.userId, sink, {
      stop: () => core.cancel(conversation),
      plan: (run) => state.answerPlan(conversation, run),
    });
    try {
      await core.handleMessage(
        {
          channelId: channelId(team, trigger.channel),
          conversationId: conversation,
          messageId: messageId(trigger.channel, trigger.ts),
          userId: trigger.userId,
          text: trigger.text,
          locale,
          context: slackContextSource({
            client: app.client,
            token: env.SLACK_BOT_TOKEN!,
            apiUrl: env.SLACK_API_URL,
            channel: trigger.channel,
            ts: trigger.ts,
            threadTs: trigger.threadTs,
            files: trigger.files,
            readThread: trigger.midThread,
            users,
            logger: log,
          }),
          ...(workspaceSearch ? { workspaceSearch } : {}),
        },
        watch.sink,
      );
    } finally {
      watch.stop();
    }
  };

  /** Runs after the ack; tracked so `idle()`/shutdown can wait for it. */
  const dispatch = (work: () => Promise<void>) => {
    const running = work().catch((err) => log.error({ err }, 'slack event handling failed'));
    inFlight.add(running);
    void running.finally(() => inFlight.delete(running));
  };

  /** A malformed delivery: nothing to answer nor anywhere to answer it. Never logs the text. */
  const withoutChannel = (type: string, eventId: string | undefined) => {
    log.warn({ event: type, eventId }, `Slack ${type} event without a channel: ignored`);
  };

  const firstDelivery = async (eventId: string | undefined) =>
    !eventId || (await core.firstDelivery(`slack:event:${eventId}`, EVENT_DEDUPE_TTL_MS));

  // The event is already acknowledged here; the store look-ups (dedupe, answered threads) run inside
  // `dispatch` so that idle() also waits for an event still being checked — with Redis that check
  // takes a round trip, and idle() used to resolve before the turn had even started.
  listeners.event('app_mention', async ({ event, body, context }) => {
    if (!options.accepting()) return;
    dispatch(async () => {
      botUserId ??= context.botUserId;
      const message = event as unknown as SlackMessageEvent;
      if (!hasChannel(message)) return withoutChannel('app_mention', body.event_id);
      const trigger = mentionTrigger(message, context.botUserId);
      try {
        if (!(await firstDelivery(body.event_id))) return;
      } catch (err) {
        if (!trigger) throw err;
        return storeUnavailable(body.team_id, trigger, err);
      }
      if (trigger) await startTurn(body.team_id, trigger, isDirectMessage(message), message);
    });
  });

  listeners.event('message', async ({ event, body, context }) => {
    if (!options.accepting()) return;
    dispatch(async () => {
      const team = body.team_id;
      const message = event as unknown as SlackMessageEvent;
      if (!hasChannel(message)) return withoutChannel('message', body.event_id);
      const botId = context.botUserId ?? botUserId;
      try {
        if (!(await firstDelivery(body.event_id))) return;
      } catch (err) {
        // Without the store a thread reply cannot be told apart from chatter; a DM is always ours.
        const direct = await messageTrigger(message, botId, async () => false);
        if (!direct) throw err;
        return storeUnavailable(team, direct, err);
      }
      const trigger = await messageTrigger(message, botId, (channel, threadTs) =>
        answered.has(team, channel, threadTs),
      );
      if (trigger) await startTurn(team, trigger, isDirectMessage(message), message);
    });
  });

  listeners.event('assistant_thread_started', async ({ event }) => {
    const thread = (
      event as { assistant_thread?: { channel_id: string; thread_ts: string; user_id: string } }
    ).assistant_thread;
    if (!thread) return;
    const locale = await localeOf(thread.user_id);
    await app.client.assistant.threads
      .setSuggestedPrompts({
        channel_id: thread.channel_id,
        thread_ts: thread.thread_ts,
        prompts: suggestedPrompts(locale) as never,
      })
      .catch((err) => log.debug({ err: String(err) }, 'setSuggestedPrompts failed'));
  });
}
