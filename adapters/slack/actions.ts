/**
 * Buttons on Scout's messages: Stop (cancels the running turn), Show/Hide details (re-renders the
 * steps message where containers are not available), 👍/👎 feedback (acknowledged ephemerally and
 * logged) and the plan's Run / Cancel. Stop and Run / Cancel are for the person who asked, or an admin.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { SlackListeners } from './listener-router.js';
import type { Logger } from '../../src/logger.js';
import type { Locale, ScoutCore } from '../../src/surface.js';
import {
  ACTION_FEEDBACK_DOWN,
  ACTION_FEEDBACK_UP,
  ACTION_PLAN_CANCEL,
  ACTION_PLAN_RUN,
  ACTION_TOOL_APPROVE,
  ACTION_TOOL_DENY,
  ACTION_STOP,
  ACTION_TOGGLE,
  renderSteps,
} from './render-blocks.js';
import type { ButtonRelay } from './button-relay.js';
import { slackErrorCode } from './slack-client.js';
import { phrase, type UserText } from '../../src/i18n/phrase.js';
import { ephemeralNote } from './notes.js';
import type { SlackSurfaceState } from './surface-state.js';

export interface ActionDeps {
  core: ScoutCore;
  state: SlackSurfaceState;
  relay: ButtonRelay;
  logger: Logger;
  localeOf: (userId: string) => Promise<Locale>;
}

type ButtonBody = BlockAction<ButtonAction>;

export function registerActions(listeners: SlackListeners, deps: ActionDeps): void {
  const { core, state, logger } = deps;

  /** A note for the presser alone, in their locale, in the thread of the message they pressed. */
  const ephemeral = async (body: ButtonBody, client: App['client'], text: UserText) => {
    if (!body.channel?.id) return;
    const threadTs = body.message?.thread_ts ?? body.message?.ts;
    const target = { channel: body.channel.id, user: body.user.id, ...(threadTs ? { threadTs } : {}) };
    await client.chat
      .postEphemeral(ephemeralNote(target, text, await deps.localeOf(body.user.id)))
      .catch((err) => logger.warn({ err: slackErrorCode(err) }, 'ephemeral reply failed'));
  };

  listeners.action<ButtonBody>(ACTION_STOP, async ({ ack, action, body, client }) => {
    await ack();
    const conversation = action.value ?? '';
    const presser = body.user.id;
    const outcome = await deps.relay.handle(conversation, 'stop', presser, () => core.cancel(conversation));
    logger.info({ conversation, user: presser, outcome }, 'stop pressed');
    if (outcome === 'forbidden') await ephemeral(body, client, phrase('stop.not-yours'));
    else if (outcome === 'none') await ephemeral(body, client, phrase('stop.nothing-running'));
  });

  listeners.action<ButtonBody>(ACTION_TOGGLE, async ({ ack, body, client }) => {
    await ack();
    const channel = body.channel?.id;
    const ts = body.message?.ts;
    const remembered = channel && ts ? state.steps(channel, ts) : undefined;
    if (!remembered) return;
    remembered.expanded = !remembered.expanded;
    const payload = renderSteps(remembered.view, {
      locale: remembered.locale,
      conversationId: remembered.conversationId,
      containers: false,
      expanded: remembered.expanded,
    });
    if (!payload) return;
    await client.chat
      .update({
        channel: remembered.channel,
        ts: remembered.ts,
        text: payload.text,
        blocks: payload.blocks as never,
      })
      .catch((err) => logger.warn({ err: slackErrorCode(err) }, 'details toggle failed'));
  });

  for (const [actionId, rating] of [
    [ACTION_FEEDBACK_UP, 'up'],
    [ACTION_FEEDBACK_DOWN, 'down'],
  ] as const) {
    listeners.action<ButtonBody>(actionId, async ({ ack, action, body, client }) => {
      await ack();
      logger.info(
        { conversation: action.value, user: body.user.id, rating, message: body.message?.ts },
        'answer feedback',
      );
      await ephemeral(body, client, phrase('feedback.thanks'));
    });
  }

  // A tool call's Approve / Deny answer the conversation's pending choice exactly as Run / Cancel do.
  for (const [actionId, run, notYours] of [
    [ACTION_PLAN_RUN, true, 'plan.not-yours'],
    [ACTION_PLAN_CANCEL, false, 'plan.not-yours'],
    [ACTION_TOOL_APPROVE, true, 'tool-approval.not-yours'],
    [ACTION_TOOL_DENY, false, 'tool-approval.not-yours'],
  ] as const) {
    listeners.action<ButtonBody>(actionId, async ({ ack, action, body, client }) => {
      await ack();
      const conversation = action.value ?? '';
      const presser = body.user.id;
      // The same rule as Stop: the plan is run or cancelled by the person who asked, or an admin.
      const outcome = await deps.relay.handle(conversation, run ? 'run' : 'cancel', presser, () =>
        state.answerPlan(conversation, run),
      );
      if (outcome === 'forbidden') {
        logger.info({ conversation, user: presser }, 'plan button refused');
        await ephemeral(body, client, phrase(notYours));
      } else if (outcome === 'none') logger.debug({ conversation }, 'no plan waiting');
    });
  }
}
