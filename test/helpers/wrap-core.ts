/**
 * The test Scout as a surface's core, with each turn's sink wrapped: a test sees or changes what the
 * core hands the renderer (a slow final, a rewritten answer) without a core of its own.
 */
import type { Scout } from '../../src/core/scout.js';
import type { IncomingMessage, ScoutCore, TurnSink } from '../../src/surface.js';

/** `change` returns the sink calls to replace; every other call goes to the surface's sink. */
export function wrapCore(
  scout: Scout,
  change: (sink: TurnSink, message: IncomingMessage) => Partial<TurnSink>,
): ScoutCore {
  return {
    get locale() {
      return scout.locale;
    },
    handleMessage: (message, sink) =>
      scout.handleMessage(message, {
        update: (view) => sink.update(view),
        done: (view) => sink.done(view),
        reply: (text, options) => sink.reply(text, options),
        ...(sink.replyPrivately ? { replyPrivately: sink.replyPrivately.bind(sink) } : {}),
        ...(sink.confirmPlan ? { confirmPlan: sink.confirmPlan.bind(sink) } : {}),
        ...(sink.confirmTool ? { confirmTool: sink.confirmTool.bind(sink) } : {}),
        ...change(sink, message),
      }),
    runCommand: (name, args, context) => scout.runCommand(name, args, context),
    cancel: (id) => scout.cancel(id),
    firstDelivery: (key, ttl) => scout.firstDelivery(key, ttl),
    getSettings: (id) => scout.getSettings(id),
  };
}
