/**
 * A throwaway redis-server that a test can stop (kill) and start again, reached on a loopback port
 * from the OS: redis-server listens on a Unix socket in a folder of its own, and a TCP relay bound
 * on port 0 forwards to it. The relay keeps its port for the whole test, so no other process can take
 * it while Redis is down (a redis-server killed and restarted on a TCP port would have to bind the
 * same number again); while Redis is down, the relay's connections are cut as soon as they open.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class RedisProcess {
  private child: ChildProcess | undefined;
  private relay: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly dir = mkdtempSync(join(tmpdir(), 'scout-redis-'));
  private readonly socketPath = join(this.dir, 'redis.sock');
  private port = 0;

  get url(): string {
    if (!this.port) throw new Error('RedisProcess: start() it first');
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.relay) await this.listen();
    const child = spawn(
      'redis-server',
      ['--port', '0', '--unixsocket', this.socketPath, '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    this.child = child;
    // Ready when it says so (an event), or failed when it exits first.
    await new Promise<void>((resolve, reject) => {
      let said = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        said += chunk;
        if (/ready to accept connections/i.test(said)) resolve();
      });
      child.once('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`redis-server exited (${code}) before it was ready:\n${said}`)),
      );
    });
    child.stdout?.resume();
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /** Stops Redis, closes the relay and removes the socket's folder. */
  async close(): Promise<void> {
    await this.stop();
    const relay = this.relay;
    this.relay = undefined;
    if (relay) await new Promise<void>((resolve) => relay.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async listen(): Promise<void> {
    const relay = createServer((client) => {
      if (!this.child) {
        client.destroy();
        return;
      }
      const upstream = connect(this.socketPath);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    this.relay = relay;
    this.port = (relay.address() as { port: number }).port;
  }
}
