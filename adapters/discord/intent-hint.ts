/**
 * The Message Content intent is privileged: without it Discord closes the gateway with 4014 when
 * Scout asks for it (Scout then starts without it), or (when the intent was dropped later) thread
 * follow-ups arrive empty. Both cases log one clear warning: what works, what does not, how to fix.
 */
import type { Logger } from '../../src/logger.js';

/** Gateway close code for "disallowed intents" (a privileged intent not enabled for the app). */
export const DISALLOWED_INTENTS_CLOSE_CODE = 4014;

export const MESSAGE_CONTENT_HINT =
  'Discord refused the Message Content intent, so Scout runs without it: mentions, DMs and slash commands ' +
  'still work; follow-up messages in its threads that do not mention Scout are not seen. To enable it, open ' +
  'https://discord.com/developers/applications → your app → Bot → Privileged Gateway Intents, turn on ' +
  '"Message Content Intent", save, then restart Scout.';

/** Discord closed the gateway because Scout asked for a privileged intent the app may not use. */
export class DisallowedIntentsError extends Error {
  constructor() {
    super('Discord refused a privileged gateway intent (close code 4014)');
    this.name = 'DisallowedIntentsError';
  }
}

export class MessageContentHint {
  private logged = false;
  constructor(private readonly logger: Logger) {}

  /** Logs the hint once per process (the same cause repeats for every empty message). */
  warn(context: Record<string, unknown> = {}): void {
    if (this.logged) return;
    this.logged = true;
    this.logger.warn({ ...context, hint: 'message-content-intent' }, MESSAGE_CONTENT_HINT);
  }
}
