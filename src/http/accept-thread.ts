/**
 * An HTTP server whose TCP connections are accepted on a worker thread and handed to the main
 * thread's `http.Server` as in-process streams.
 *
 * Why: Node accepts one connection per event-loop iteration while the loop is busy (strace: every
 * accept4 succeeds, none returns EAGAIN; reproduced with a bare node:http server on Node 20 and 24).
 * With 1,000 turns streaming, an iteration takes 50–100 ms, so a burst of Slack events waited up to
 * 20 s in the kernel's accept queue before Scout even saw them (bench scenario 12). The worker's loop
 * does nothing else, so it accepts a burst at once; its messages reach the main thread in batches (a
 * MessagePort drains its queue per wake-up), so a busy main loop still takes every waiting request
 * in one iteration. A worker thread cannot hand a socket to the main thread, hence the bytes are
 * relayed; requests here are small (Slack's events, button presses, health checks).
 *
 * The main thread keeps everything HTTP: parsing, timeouts, keep-alive, the request handler. The
 * worker only moves bytes. Flow control is a window: the worker stops reading a socket once it has
 * relayed WINDOW bytes the main thread has not confirmed, and the main thread confirms bytes as its
 * HTTP side takes them — so a peer uploading fast to a busy (or unread) request is held back by TCP,
 * as with a socket read on the main thread, instead of piling up in the message queue.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';

export interface AcceptThreadOptions {
  port: number;
  host?: string;
  /** Listen backlog (the kernel caps it at net.core.somaxconn). */
  backlog: number;
  /** The acceptor thread ended without being asked to (it then accepts nothing more). */
  onFailure?: (err: Error) => void;
}

export interface AcceptThread {
  /** The port bound (useful with port 0). */
  readonly port: number;
  /** Connections open right now. */
  readonly connections: number;
  /**
   * Stops accepting, closes idle keep-alive connections, lets requests in flight finish for up to
   * `graceMs`, then drops what is left and ends the thread.
   */
  close(graceMs?: number): Promise<void>;
}

type FromAcceptor =
  | { t: 'listening'; port: number }
  | { t: 'failed'; code?: string; message: string }
  | { t: 'open'; id: number; remoteAddress?: string; remotePort?: number; remoteFamily?: string }
  | { t: 'data'; id: number; chunk: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'close'; id: number }
  | { t: 'stopped' };

type ToAcceptor =
  | { t: 'data'; id: number; chunk: Uint8Array }
  | { t: 'ack'; id: number; bytes: number }
  | { t: 'end' | 'destroy'; id: number }
  | { t: 'stop' };

/** The worker's code, plain CommonJS so that it runs the same under tsx, vitest, tsc output and the bundle. */
const ACCEPTOR_SOURCE = `
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const WINDOW = workerData.window;
const sockets = new Map();
let nextId = 0;
const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
  const id = nextId++;
  sockets.set(id, socket);
  socket.inFlight = 0;
  parentPort.postMessage({ t: 'open', id, remoteAddress: socket.remoteAddress, remotePort: socket.remotePort, remoteFamily: socket.remoteFamily });
  socket.on('data', (chunk) => {
    // An exact-size copy, moved rather than cloned: a clone of a slice copies its whole backing store.
    const bytes = new Uint8Array(chunk);
    socket.inFlight += bytes.byteLength;
    parentPort.postMessage({ t: 'data', id, chunk: bytes }, [bytes.buffer]);
    if (socket.inFlight >= WINDOW) socket.pause();
  });
  socket.on('end', () => parentPort.postMessage({ t: 'end', id }));
  socket.on('error', () => {});
  socket.on('close', () => {
    sockets.delete(id);
    parentPort.postMessage({ t: 'close', id });
  });
});
server.on('error', (err) => {
  parentPort.postMessage({ t: 'failed', code: err.code, message: err.message });
});
parentPort.on('message', (m) => {
  if (m.t === 'stop') {
    // close() releases the listening socket at once (its callback waits for every connection):
    // from 'stopped' on, a new connection is refused by the kernel.
    server.close();
    parentPort.postMessage({ t: 'stopped' });
    return;
  }
  const socket = sockets.get(m.id);
  if (!socket) return;
  if (m.t === 'data') socket.write(m.chunk);
  else if (m.t === 'end') socket.end();
  // node:http ends then destroys a connection it closes; a net.Socket would flush what was written
  // first (destroySoon), so a response is not cut by the destroy that follows it at once.
  else if (m.t === 'destroy') {
    if (socket.writableEnded && !socket.writableFinished) socket.once('finish', () => socket.destroy());
    else socket.destroy();
  }
  else if (m.t === 'ack') {
    socket.inFlight -= m.bytes;
    if (socket.inFlight < WINDOW && socket.isPaused()) socket.resume();
  }
});
server.listen({ port: workerData.port, host: workerData.host, backlog: workerData.backlog }, () => {
  parentPort.postMessage({ t: 'listening', port: server.address().port });
});
`;

/**
 * Bytes per connection relayed and not yet taken by the HTTP side before the acceptor stops reading
 * that socket (a Slack event is a few KiB; Bolt refuses bodies over 4 MiB).
 */
const RELAY_WINDOW_BYTES = 256 * 1024;

/** The acceptor's heap: it holds sockets and byte chunks in transit, nothing else. */
const ACCEPTOR_HEAP_MB = 64;

/**
 * One accepted connection as the main thread's HTTP server sees it: a duplex stream whose bytes
 * travel to and from the real socket on the acceptor thread, with the socket methods node:http uses.
 */
class RelayedSocket extends Duplex {
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  readonly remoteFamily: string | undefined;
  /** Bytes received from the acceptor and not yet confirmed to it. */
  #unconfirmed = 0;
  /** The HTTP side's buffer is full: confirm nothing until it asks for more. */
  #full = false;
  #closedByPeer = false;
  #idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly id: number,
    private readonly send: (message: ToAcceptor, transfer?: ArrayBuffer[]) => void,
    private readonly forget: (id: number) => void,
    peer: { remoteAddress?: string; remotePort?: number; remoteFamily?: string },
  ) {
    super({ allowHalfOpen: true });
    this.remoteAddress = peer.remoteAddress;
    this.remotePort = peer.remotePort;
    this.remoteFamily = peer.remoteFamily;
  }

  /** Bytes from the peer, confirmed to the acceptor once the HTTP side has room for more. */
  receive(chunk: Uint8Array): void {
    this.#idle?.refresh();
    this.#unconfirmed += chunk.byteLength;
    this.#full = !this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (!this.#full) this.#confirm();
  }

  /** Confirms in steps of a quarter window, so small requests cost no message back. */
  #confirm(): void {
    if (this.#unconfirmed < RELAY_WINDOW_BYTES / 4) return;
    this.send({ t: 'ack', id: this.id, bytes: this.#unconfirmed });
    this.#unconfirmed = 0;
  }

  /** The real socket closed (peer gone or reset): nothing more can be sent or received. */
  peerClosed(): void {
    this.#closedByPeer = true;
    this.destroy();
  }

  override _read(): void {
    if (!this.#full) return;
    this.#full = false;
    this.#confirm();
  }

  /**
   * Every write lands here (Writable sends a single write to _writev when there is no _write).
   * node:http corks a response's head and body: one message for all of it. Written at once, without
   * a window: what Scout answers on this server (acknowledgements, health, metrics) is small.
   */
  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (err?: Error | null) => void): void {
    this.#idle?.refresh();
    // An exact-size copy, moved rather than cloned: small Buffers are slices of an 8 KiB pool, and a
    // clone would copy the whole pool.
    let size = 0;
    for (const { chunk } of chunks) size += chunk.byteLength;
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const { chunk } of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    this.send({ t: 'data', id: this.id, chunk: bytes }, [bytes.buffer]);
    callback();
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.send({ t: 'end', id: this.id });
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    clearTimeout(this.#idle);
    if (!this.#closedByPeer) this.send({ t: 'destroy', id: this.id });
    this.forget(this.id);
    callback(err);
  }

  /**
   * node:http arms this for keep-alive and request timeouts: 'timeout' after `ms` without bytes
   * either way, as on a net.Socket.
   */
  setTimeout(ms: number, onTimeout?: () => void): this {
    if (onTimeout) {
      if (ms === 0) this.removeListener('timeout', onTimeout);
      else this.once('timeout', onTimeout);
    }
    clearTimeout(this.#idle);
    this.#idle = ms > 0 ? setTimeout(() => this.emit('timeout'), ms).unref() : undefined;
    return this;
  }

  // Set on the real socket by the acceptor (noDelay) or not meaningful for a relayed one.
  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }
}

/**
 * Serves `server` on `options.port` with connections accepted on a worker thread. The server itself
 * must not listen; its 'connection' event receives every accepted connection.
 */
export function serveFromAcceptThread(server: Server, options: AcceptThreadOptions): Promise<AcceptThread> {
  const worker = new Worker(ACCEPTOR_SOURCE, {
    eval: true,
    workerData: {
      port: options.port,
      host: options.host,
      backlog: options.backlog,
      window: RELAY_WINDOW_BYTES,
    },
    resourceLimits: { maxOldGenerationSizeMb: ACCEPTOR_HEAP_MB },
    stdout: true,
    stderr: true,
  });
  const sockets = new Map<number, RelayedSocket>();
  const send = (message: ToAcceptor, transfer?: ArrayBuffer[]) => worker.postMessage(message, transfer);
  const forget = (id: number) => sockets.delete(id);
  // Real sockets still open on the acceptor (a relayed socket is forgotten when destroyed here, its
  // real one closes there a moment later, once what was written has been flushed).
  const real = new Set<number>();
  let realClosed: (() => void) | undefined;
  let stopping = false;
  let port = 0;
  let exited = false;
  let portClosed: (() => void) | undefined;
  // Responses not yet started when close() begins say `Connection: close`, so that no client keeps
  // their connection for a next request that would meet a closing socket ("socket hang up") instead
  // of a refusal.
  const inFlight = new Set<ServerResponse>();
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (stopping) {
      res.setHeader('connection', 'close');
      return;
    }
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });

  return new Promise<AcceptThread>((resolve, reject) => {
    let listening = false;
    const fail = (err: Error) => {
      if (!listening) {
        reject(err);
        void worker.terminate();
        return;
      }
      if (!stopping) options.onFailure?.(err);
    };
    worker.on('message', (message: FromAcceptor) => {
      switch (message.t) {
        case 'open': {
          real.add(message.id);
          const socket = new RelayedSocket(message.id, send, forget, message);
          sockets.set(message.id, socket);
          server.emit('connection', socket);
          return;
        }
        case 'data':
          sockets.get(message.id)?.receive(message.chunk);
          return;
        case 'end':
          sockets.get(message.id)?.push(null);
          return;
        case 'close':
          real.delete(message.id);
          if (real.size === 0) realClosed?.();
          sockets.get(message.id)?.peerClosed();
          return;
        case 'listening':
          listening = true;
          port = message.port;
          // node:http starts its connection tracking on 'listening' (headers and request timeouts,
          // closeIdleConnections); the server is listening, through the acceptor.
          server.emit('listening');
          resolve(thread);
          return;
        case 'stopped':
          portClosed?.();
          return;
        case 'failed': {
          const err = Object.assign(new Error(message.message), message.code ? { code: message.code } : {});
          fail(err);
          return;
        }
      }
    });
    worker.on('error', (err) => fail(err));
    worker.on('exit', (code) => {
      exited = true;
      real.clear();
      for (const socket of sockets.values()) socket.peerClosed();
      portClosed?.();
      realClosed?.();
      fail(new Error(`the HTTP acceptor thread exited (code ${code})`));
    });

    const thread: AcceptThread = {
      get port() {
        return port;
      },
      get connections() {
        return sockets.size;
      },
      async close(graceMs = 10_000) {
        if (stopping) return;
        stopping = true;
        for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
        inFlight.clear();
        const stopped = new Promise<void>((r) => {
          portClosed = r;
        });
        send({ t: 'stop' });
        // Resolve only once the port refuses connections (or the thread is gone, which closes it too).
        if (!exited) await stopped;
        // Closes idle keep-alive connections and ends the timeout checks; the error it reports
        // (ERR_SERVER_NOT_RUNNING: the server has no socket of its own) says nothing here.
        server.close(() => {});
        const deadline = Date.now() + graceMs;
        while (sockets.size > 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 25));
          server.closeIdleConnections();
        }
        for (const socket of sockets.values()) socket.destroy();
        // Let the acceptor flush and close the real sockets (a last response must not be cut by the
        // thread's end), within what is left of the grace period.
        if (real.size > 0 && !exited) {
          const flushed = new Promise<void>((r) => {
            realClosed = r;
          });
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<void>((r) => {
            timer = setTimeout(r, Math.max(0, deadline - Date.now()));
          });
          await Promise.race([flushed, late]);
          clearTimeout(timer);
        }
        await worker.terminate();
      },
    };
  });
}
