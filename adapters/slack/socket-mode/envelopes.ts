/**
 * What a Socket Mode message from Slack asks of us, decided before anything else touches it:
 * `hello` (a connection is ready), `disconnect` (Slack wants this connection closed, and why), an
 * envelope to deliver to Bolt, or an envelope only to acknowledge — malformed, of an unknown type,
 * or `app_rate_limited` — so Slack never waits on an ack that would not come (upstream
 * @slack/socket-mode 3.1 throws on an `events_api` envelope without `payload.event`).
 * https://docs.slack.dev/apis/events-api/using-socket-mode
 */

/** Slack's Events API limit that `app_rate_limited` reports exceeding (per workspace, per app). */
export const EVENTS_PER_HOUR_LIMIT = 30_000;

export type SocketMessage =
  | { kind: 'hello'; numConnections: number | undefined }
  | { kind: 'disconnect'; reason: string }
  | {
      kind: 'deliver';
      envelopeId: string;
      type: 'events_api' | 'slash_commands' | 'interactive';
      body: Record<string, unknown>;
      retryNum: number | undefined;
      retryReason: string | undefined;
    }
  /** Acknowledge and do nothing else; `problem` says why (logged at warn). */
  | { kind: 'ack-only'; envelopeId: string; type: string; problem: string }
  | {
      kind: 'rate-limited';
      envelopeId: string | undefined;
      team: string | undefined;
      minute: Date | undefined;
    }
  /** Nothing to acknowledge (no envelope id): logged and dropped. */
  | { kind: 'ignore'; problem: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

export function parseSocketMessage(text: string): SocketMessage {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'ignore', problem: 'not JSON' };
  }
  if (!isObject(message)) return { kind: 'ignore', problem: 'not a JSON object' };
  const type = typeof message.type === 'string' ? message.type : '';
  if (type === 'hello') {
    const n = message.num_connections;
    return { kind: 'hello', numConnections: typeof n === 'number' ? n : undefined };
  }
  if (type === 'disconnect') {
    return { kind: 'disconnect', reason: nonEmpty(message.reason) ? message.reason : 'unknown' };
  }
  const envelopeId = nonEmpty(message.envelope_id) ? message.envelope_id : undefined;
  const payload = message.payload;
  if (type === 'app_rate_limited' || (isObject(payload) && payload.type === 'app_rate_limited')) {
    const source = isObject(payload) && payload.type === 'app_rate_limited' ? payload : message;
    const minute = source.minute_rate_limited;
    return {
      kind: 'rate-limited',
      envelopeId,
      team: nonEmpty(source.team_id) ? source.team_id : undefined,
      minute: typeof minute === 'number' ? new Date(minute * 1000) : undefined,
    };
  }
  if (!envelopeId)
    return { kind: 'ignore', problem: `message of type "${type || '(none)'}" without envelope_id` };
  const ackOnly = (problem: string): SocketMessage => ({ kind: 'ack-only', envelopeId, type, problem });
  if (!isObject(payload)) return ackOnly('envelope without a payload object');
  const deliver = (kind: 'events_api' | 'slash_commands' | 'interactive'): SocketMessage => ({
    kind: 'deliver',
    envelopeId,
    type: kind,
    body: payload,
    retryNum: typeof message.retry_attempt === 'number' ? message.retry_attempt : undefined,
    retryReason: nonEmpty(message.retry_reason) ? message.retry_reason : undefined,
  });
  switch (type) {
    case 'events_api':
      return isObject(payload.event) && nonEmpty(payload.event.type)
        ? deliver('events_api')
        : ackOnly('events_api envelope without payload.event.type');
    case 'slash_commands':
      return nonEmpty(payload.command)
        ? deliver('slash_commands')
        : ackOnly('slash command without `command`');
    case 'interactive':
      return nonEmpty(payload.type)
        ? deliver('interactive')
        : ackOnly('interactive envelope without payload.type');
    default:
      return ackOnly(`unknown envelope type "${type || '(none)'}"`);
  }
}
