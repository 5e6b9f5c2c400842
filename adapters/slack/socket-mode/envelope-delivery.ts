/**
 * One Socket Mode envelope handed to Bolt with Slack's 3 s acknowledgement guaranteed: Bolt acks
 * what a listener handled, and the deadline (or the end of handling) acks everything else.
 */
import type { App } from '@slack/bolt';
import type { Logger } from '../../../src/logger.js';
import type { SocketMessage } from './envelopes.js';

/** Hands an envelope to Bolt; whatever happens, Slack gets exactly one ack. */
export async function deliverEnvelope(
  app: App | undefined,
  message: Extract<SocketMessage, { kind: 'deliver' }>,
  send: (envelopeId: string, payload?: Record<string, unknown>) => Promise<unknown>,
  ackDeadlineMs: number,
  log: Logger,
): Promise<void> {
  let acked = false;
  const ack = async (response?: unknown) => {
    if (acked) return;
    acked = true;
    clearTimeout(deadline);
    const payload =
      typeof response === 'string'
        ? { text: response }
        : typeof response === 'object' && response !== null
          ? (response as Record<string, unknown>)
          : undefined;
    await send(message.envelopeId, payload);
  };
  const deadline = setTimeout(() => {
    void ack();
  }, ackDeadlineMs);
  try {
    if (!app) throw new Error('Socket Mode receiver used before init()');
    await app.processEvent({
      body: message.body,
      ack,
      ...(message.retryNum !== undefined ? { retryNum: message.retryNum } : {}),
      ...(message.retryReason !== undefined ? { retryReason: message.retryReason } : {}),
    });
  } catch (err) {
    log.error({ err, type: message.type }, 'Slack envelope handling failed');
  } finally {
    // Nothing listened (an event type Scout does not handle, a command it does not know): ack anyway.
    await ack();
  }
}
