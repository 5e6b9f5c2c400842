/**
 * The readiness registry behind /healthz and /readyz: each part Scout needs to do its job — the
 * store, every surface's connection — registers a named check, and the endpoints answer 200 only
 * when every check passes, naming the failing ones otherwise. /livez does not look here.
 *
 * A check is a function answering `{ ok, detail }`; it may be async, but it is bounded: a check
 * that has not answered within CHECK_TIMEOUT_MS (or throws) counts as failing, so a probe never
 * hangs on a stuck dependency.
 */

/** Orchestrators time probes out after a few seconds (Docker's HEALTHCHECK here: 5 s). */
const CHECK_TIMEOUT_MS = 2_000;

export interface CheckResult {
  ok: boolean;
  /** What an operator reads: "connected (2 sockets)", "not connected: invalid_auth", … */
  detail?: string;
}

export type ReadinessCheck = () => CheckResult | Promise<CheckResult>;

export interface ReadinessReport {
  ok: boolean;
  /** Names of the failing checks, in registration order. */
  failing: string[];
  checks: Record<string, CheckResult>;
}

export class Readiness {
  readonly #checks = new Map<string, ReadinessCheck>();

  constructor(private readonly timeoutMs = CHECK_TIMEOUT_MS) {}

  /**
   * Adds (or replaces) the check called `name` — "store", "slack", "discord" …; the returned
   * function removes it again.
   */
  register(name: string, check: ReadinessCheck): () => void {
    this.#checks.set(name, check);
    return () => {
      if (this.#checks.get(name) === check) this.#checks.delete(name);
    };
  }

  get names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Runs every check at once; never throws. */
  async evaluate(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.#checks].map(async ([name, check]) => [name, await this.#bounded(check)] as const),
    );
    const checks = Object.fromEntries(entries);
    const failing = entries.filter(([, result]) => !result.ok).map(([name]) => name);
    return { ok: failing.length === 0, failing, checks };
  }

  async #bounded(check: ReadinessCheck): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, detail: `no answer within ${this.timeoutMs} ms` }),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([Promise.resolve().then(check), timeout]);
    } catch (err) {
      return { ok: false, detail: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  }
}
