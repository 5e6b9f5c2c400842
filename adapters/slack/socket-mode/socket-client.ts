/**
 * One Socket Mode connection: upstream's SocketModeClient (apps.connections.open, the WebSocket,
 * ping/pong) with its message handler replaced through the `onWebSocketMessage` extension point.
 * Upstream closes the socket the moment Slack sends `disconnect` and cannot ack what it fails to
 * parse; here the pool decides when to close (after a replacement is ready) and every envelope is
 * handed over with an ack that goes back on this connection. Automatic reconnects are off: one
 * client is one connection, and the pool opens the next.
 */
import { createRequire } from 'node:module';
import type { SocketModeClient, SocketModeOptions } from '@slack/socket-mode';
import { parseSocketMessage, type SocketMessage } from './envelopes.js';

export interface SocketClientEvents {
  /** Slack asked for this connection to be closed (`refresh_requested`, `warning`, `link_disabled` …). */
  disconnect_requested: (reason: string) => void;
  /** Anything else Slack sent, already classified. */
  socket_message: (message: Exclude<SocketMessage, { kind: 'hello' | 'disconnect' }>) => void;
}

/** What the pool uses of a connection: upstream's client plus the `hello` count and acks. */
export type SocketClient = SocketModeClient & {
  /** `num_connections` from this connection's `hello`: every open connection of the app, this one included. */
  readonly numConnections: number | undefined;
  /** Acknowledges an envelope on this connection (`payload` answers a slash command inline). */
  ack(envelopeId: string, payload?: Record<string, unknown>): Promise<void>;
};

// @slack/socket-mode loads undici's index and, through it, Node's bundled fetch with its WebAssembly
// parser (13-16 MiB resident): it is required with the first connection, so a Slack app in HTTP
// mode never loads it (see defer-socket-mode.ts for Bolt's own require of it).
const load = createRequire(import.meta.url);
let SocketClientClass: (new (options: SocketModeOptions) => SocketClient) | undefined;

export function createSocketClient(options: SocketModeOptions): SocketClient {
  SocketClientClass ??= defineSocketClient();
  return new SocketClientClass(options);
}

function defineSocketClient() {
  const { SocketModeClient: Upstream } = load('@slack/socket-mode') as typeof import('@slack/socket-mode');
  return class SocketClient extends Upstream {
    numConnections: number | undefined;

    protected override async onWebSocketMessage(
      data: string | ArrayBuffer,
      isBinary: boolean,
    ): Promise<void> {
      if (isBinary) return;
      const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
      const message = parseSocketMessage(text);
      switch (message.kind) {
        case 'hello':
          this.numConnections = message.numConnections;
          // Upstream turns `hello` into its `connected` event, which resolves start().
          return super.onWebSocketMessage(data, isBinary);
        case 'disconnect':
          this.emit('disconnect_requested', message.reason);
          return;
        default:
          this.emit('socket_message', message);
      }
    }

    ack(envelopeId: string, payload: Record<string, unknown> = {}): Promise<void> {
      return new Promise((resolve, reject) => {
        const socket = this.websocket;
        if (!socket?.isActive()) {
          reject(new Error('connection closed before the ack could be sent'));
          return;
        }
        socket.send(JSON.stringify({ envelope_id: envelopeId, payload }), (err?: Error) =>
          err ? reject(err) : resolve(),
        );
      });
    }
  };
}
