/** The context a turn's tools run in (agent rounds and plan steps alike). */
import type { ToolContext } from '../tools/types.js';
import type { TurnContext } from './types.js';

/** `signal` is the turn's own (Stop and its time limit), not just the user's Stop. */
export function turnToolContext(ctx: TurnContext, signal: AbortSignal): ToolContext {
  return {
    sessionKey: ctx.sessionKey,
    signal,
    ...(ctx.message.channelName ? { channelName: ctx.message.channelName } : {}),
    ...(ctx.message.userName ? { userName: ctx.message.userName } : {}),
  };
}
