/**
 * What a surface tells operations about its link to the platform: how many connections are ready
 * (Slack Socket Mode sockets, Discord gateway shards), how many it needs, reconnects and gaps.
 * It feeds the readiness registry (as the surface's check) and the connection metrics; adapters
 * update it, main.ts wires it. Platform-free: adapters pass plain numbers and words.
 */
import type { ScoutMetrics, SurfaceName } from './metrics.js';
import type { CheckResult, ReadinessCheck } from './readiness.js';

export interface ConnectionUpdate {
  /** Connections ready to receive right now. */
  ready: number;
  /** How many must be ready for the surface to be ready (Slack: 1 socket; Discord: every shard). */
  needed?: number;
  /** Why it is not ready, or what it is ("Socket Mode, 2 sockets"); shown by /healthz. */
  detail?: string;
}

export class SurfaceConnection {
  #ready = 0;
  #needed = 1;
  #detail = 'not started';

  constructor(
    readonly surface: SurfaceName,
    private readonly metrics?: ScoutMetrics,
  ) {
    this.#publish();
  }

  get isReady(): boolean {
    return this.#needed > 0 && this.#ready >= this.#needed;
  }

  get ready(): number {
    return this.#ready;
  }

  update(update: ConnectionUpdate): void {
    const before = this.#ready;
    this.#ready = Math.max(0, update.ready);
    if (update.needed !== undefined) this.#needed = update.needed;
    if (update.detail !== undefined) this.#detail = update.detail;
    // A gap: nothing left that the platform could deliver to (Slack holds or drops what it sends now).
    if (before > 0 && this.#ready === 0) this.metrics?.surfaceGaps.inc({ surface: this.surface });
    this.#publish();
  }

  /** A deliberate stop (shutdown): not ready any more, but not a gap either. */
  stopped(): void {
    this.#ready = 0;
    this.#detail = 'stopped';
    this.#publish();
  }

  /** One attempt to open a new connection after a drop or a refresh. */
  reconnecting(): void {
    this.metrics?.surfaceReconnects.inc({ surface: this.surface });
  }

  readonly check: ReadinessCheck = (): CheckResult =>
    this.isReady ? { ok: true, detail: this.#detail } : { ok: false, detail: this.#detail };

  #publish(): void {
    this.metrics?.surfaceConnections.set({ surface: this.surface }, this.#ready);
    this.metrics?.surfaceReady.set({ surface: this.surface }, this.isReady ? 1 : 0);
  }
}
