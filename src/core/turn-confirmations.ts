/**
 * The questions a turn may put to the asker — Run / Cancel for a plan, Approve / Deny for a tool
 * call — wired from the surface's sink to the mode, with the turn's limits: each waits at most its
 * timeout, ends with the turn (Stop, time limit), and a plan waiting is declined by a new message.
 */
import type { TurnContext } from '../modes/types.js';
import type { TurnSink } from '../surface.js';
import type { ToolApprovalRequest } from '../tools/types.js';
import { type HearStep, heard } from '../turn-steps.js';

/**
 * A plan nobody runs or cancels is declined after this: the turn holds the conversation's lock while
 * it waits, and later messages of the conversation queue behind it (for at most the lock wait).
 */
export const PLAN_CONFIRM_TIMEOUT_MS = 5 * 60_000;
/** A tool call waiting for Approve / Deny is denied after this (the turn's own limit may end it first). */
export const TOOL_CONFIRM_TIMEOUT_MS = 5 * 60_000;

/**
 * Run / Cancel for a plan. While it waits, `awaiting` holds its controller under the conversation's
 * id, so a new message there declines the plan and frees the conversation.
 */
export function planConfirmation(
  sink: TurnSink,
  options: {
    conversationId: string;
    turnSignal: AbortSignal;
    awaiting: Map<string, AbortController>;
    timeoutMs: number;
    /** The turn's scope hears the wait (traces: a `wait_for_user` span). */
    hearStep?: HearStep | undefined;
  },
): TurnContext['confirmPlan'] {
  if (!sink.confirmPlan) return undefined;
  const confirmPlan = sink.confirmPlan.bind(sink);
  const { conversationId: id, turnSignal, awaiting, timeoutMs, hearStep } = options;
  const confirm: typeof confirmPlan = (plan, signal) =>
    heard(hearStep, { kind: 'confirm-plan' }, () => confirmPlan(plan, signal));
  return async (plan) => {
    const waiting = new AbortController();
    const timeout = AbortSignal.timeout(timeoutMs);
    awaiting.set(id, waiting);
    try {
      return await confirm(plan, AbortSignal.any([turnSignal, waiting.signal, timeout]));
    } finally {
      if (awaiting.get(id) === waiting) awaiting.delete(id);
    }
  };
}

/**
 * Approve / Deny for tool calls. The prompt says the model chose the call, while answering whose
 * message, and whether the turn read earlier messages (a message planted there can ask for calls
 * nobody wanted). Asked one at a time, and one Deny (or no answer) answers every call of the turn
 * waiting or yet to come: the asker saw a call they did not want, and the turn goes on at once
 * instead of showing more questions.
 */
export function toolConfirmation(
  sink: TurnSink,
  options: {
    origin: NonNullable<ToolApprovalRequest['origin']>;
    turnSignal: AbortSignal;
    hearStep?: HearStep | undefined;
  },
): TurnContext['confirmTool'] {
  if (!sink.confirmTool) return undefined;
  const confirmTool = sink.confirmTool.bind(sink);
  const { origin, turnSignal, hearStep } = options;
  const confirm: typeof confirmTool = (request, signal) =>
    heard(hearStep, { kind: 'confirm-tool', tool: request.tool }, () => confirmTool(request, signal));
  const denied = new AbortController();
  let previous: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    const asked = previous.then(async () => {
      if (denied.signal.aborted || signal.aborted) return false;
      const approved = await confirm(
        { ...request, origin },
        AbortSignal.any([signal, turnSignal, denied.signal, AbortSignal.timeout(TOOL_CONFIRM_TIMEOUT_MS)]),
      );
      if (!approved) denied.abort();
      return approved;
    });
    previous = asked.catch(() => undefined);
    return asked;
  };
}
