/**
 * Downloads an attachment for an adapter: only from hosts the adapter allows (Slack's file hosts,
 * Discord's CDN, or the configured API host), following redirects only to allowed hosts, so a
 * credential header never leaves for another host. Bounded in size and time.
 */
import type { DownloadResult } from './types.js';

/** A redirect chain longer than this is refused. */
const MAX_REDIRECTS = 3;
/** A download that takes longer than this is given up (the turn goes on without the file). */
const DOWNLOAD_TIMEOUT_MS = 20_000;

export interface DownloadPolicy {
  /** True for a URL the credentials may be sent to. */
  allowed(url: URL): boolean;
  /** Sent with every request (e.g. `Authorization: Bearer xoxb-…`); only ever to allowed URLs. */
  headers?: Record<string, string>;
  maxBytes: number;
  signal: AbortSignal;
  timeoutMs?: number;
}

export async function downloadAllowed(rawUrl: string, policy: DownloadPolicy): Promise<DownloadResult> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: 'host-not-allowed' };
  }
  const signal = AbortSignal.any([
    policy.signal,
    AbortSignal.timeout(policy.timeoutMs ?? DOWNLOAD_TIMEOUT_MS),
  ]);
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (!policy.allowed(url)) return { ok: false, reason: 'host-not-allowed' };
      const response = await fetch(url, { headers: policy.headers, redirect: 'manual', signal });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (!location) return { ok: false, reason: 'failed' };
        url = new URL(location, url);
        continue;
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        return { ok: false, reason: 'failed' };
      }
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      if (declared > policy.maxBytes) {
        await response.body.cancel();
        return { ok: false, reason: 'too-large' };
      }
      const bytes = await readCapped(response.body, policy.maxBytes);
      if (!bytes) return { ok: false, reason: 'too-large' };
      const mimeType = response.headers.get('content-type')?.split(';')[0]?.trim() || undefined;
      return { ok: true, bytes, ...(mimeType ? { mimeType } : {}) };
    }
    return { ok: false, reason: 'failed' };
  } catch (err) {
    // Stop ends the turn; a timeout or a network error costs only this file.
    if (policy.signal.aborted) throw err;
    return { ok: false, reason: 'failed' };
  }
}

/** Reads a body up to `max` bytes; undefined (and the stream cancelled) when it is longer. */
async function readCapped(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** True when `url`'s host is `host` or one of its subdomains (https only, or the exact override origin). */
export function hostMatches(url: URL, hosts: readonly string[]): boolean {
  if (url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  return hosts.some((h) => host === h || host.endsWith(`.${h}`));
}

/** True when `url` has the same origin as `base` (the SLACK_API_URL / DISCORD_API_URL override). */
export function sameOrigin(url: URL, base: string | undefined): boolean {
  if (!base) return false;
  try {
    return new URL(base).origin === url.origin;
  } catch {
    return false;
  }
}
