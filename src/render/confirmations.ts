/**
 * The turn's questions to the user: a plan shown whole with Run / Cancel, and a tool call waiting
 * for Approve / Deny. Each posts its messages through the turn's writer and pace, waits for the
 * answer, then replaces the buttons with the outcome (a final write: retried until it lands). Apart
 * from the turn renderer, which draws the turn's steps and answer and only hands these its writer.
 */
import type { PlanProposal } from '../modes/plan/plan-types.js';
import type { ToolApprovalRequest } from '../tools/types.js';
import type { Locale } from '../i18n/locale.js';
import type { Logger } from '../logger.js';
import type { ChannelPace } from './channel-pacer.js';
import { describeDeliveryError, landFinal } from './delivery.js';
import type { MessageWriter } from './message-writer.js';
import type { PayloadBuilders } from './renderer-options.js';
import { splitMessage } from './split-text.js';
import { approvalMarkdown, planMarkdown } from './turn-markdown.js';
import { wellFormed } from './well-formed.js';

/** What a question needs of its turn: the guarded writer, the turn's pace and the surface's builders. */
export interface QuestionContext<P, R> {
  writer: MessageWriter<P, R>;
  pace: ChannelPace;
  build: PayloadBuilders<P>;
  answerChars: number;
  locale: Locale;
  logger: Logger;
}

/**
 * Shows a plan whole (split across messages when long, Run/Cancel on the last part), waits for
 * `choose`, then replaces the buttons with the outcome.
 */
export async function confirmPlan<P, R>(
  q: QuestionContext<P, R>,
  plan: PlanProposal,
  choose: () => Promise<boolean>,
): Promise<boolean> {
  const { writer, pace } = q;
  const parts = splitMessage(wellFormed(planMarkdown(plan, q.locale)), q.answerChars);
  const refs: R[] = [];
  try {
    for (const [i, part] of parts.entries()) {
      const payload = q.build.planPart(part, i === parts.length - 1 ? 'choose' : null);
      refs.push(await pace.run('post', () => writer.post(payload)));
    }
  } catch (err) {
    q.logger.warn({ err: describeDeliveryError(err) }, 'plan could not be shown');
    return false;
  }
  const run = await choose();
  const last = refs.at(-1);
  if (last !== undefined) {
    const outcome = q.build.planPart(parts.at(-1)!, run ? 'run' : 'cancel');
    await landFinal(() => pace.run('edit', () => writer.edit(last, outcome), true)).catch((err) =>
      q.logger.warn({ err: describeDeliveryError(err) }, 'plan outcome could not be shown'),
    );
  }
  return run;
}

/**
 * Shows a tool call waiting for Approve / Deny, waits for `choose`, then replaces the buttons with
 * the outcome. A message that cannot be posted is a denial: nothing that changes the world runs
 * unasked. `build` is the surface's `approvalPart`.
 */
export async function confirmTool<P, R>(
  q: QuestionContext<P, R>,
  build: NonNullable<PayloadBuilders<P>['approvalPart']>,
  request: ToolApprovalRequest,
  choose: () => Promise<boolean>,
): Promise<boolean> {
  const { writer, pace } = q;
  const markdown = approvalMarkdown(request, q.locale, q.answerChars);
  let ref: R;
  try {
    ref = await pace.run('post', () => writer.post(build(markdown, 'choose')));
  } catch (err) {
    q.logger.warn({ err: describeDeliveryError(err) }, 'tool approval could not be shown');
    return false;
  }
  const approved = await choose();
  const outcome = build(markdown, approved ? 'approved' : 'denied');
  await landFinal(() => pace.run('edit', () => writer.edit(ref, outcome), true)).catch((err) =>
    q.logger.warn({ err: describeDeliveryError(err) }, 'tool approval outcome could not be shown'),
  );
  return approved;
}
