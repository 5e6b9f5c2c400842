/**
 * The Message Content intent is privileged: without it Discord closes the gateway with 4014 when
 * Scout asks for it, or (when the intent was dropped later) thread follow-ups arrive empty. Both
 * cases log one clear hint saying how to turn it on.
 */
import type { Logger } from '../../src/logger.js';

/** Gateway close code for "disallowed intents" (a privileged intent not enabled for the app). */
export const DISALLOWED_INTENTS_CLOSE_CODE = 4014;

export const MESSAGE_CONTENT_HINT =
  'Discord refused the Message Content intent. Open https://discord.com/developers/applications → your app → ' +
  'Bot → Privileged Gateway Intents, turn on "Message Content Intent" and save, then restart Scout. ' +
  'Without it Scout cannot read follow-up messages in threads that do not mention it.';

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
