/**
 * Downloads one page for fetch_url: the hostname resolved and every address checked (ssrf-guard.ts)
 * before connecting, the socket pinned to the checked address, each redirect checked again, the body
 * capped in size (a PDF kept whole or refused) under the caller's time limit.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { loadHttps } from '../http/lazy-https.js';
import { http } from '../http/node-http.js';
import {
  bodyLimit,
  FETCH_MAX_BYTES,
  FETCH_MAX_REDIRECTS,
  FetchProblem,
  type FetchUrlOptions,
  parseHttpUrl,
  pdfTooBig,
} from './fetch-policy.js';
import { resolvePublicAddress } from './ssrf-guard.js';

const USER_AGENT = 'ScoutBot/0.1 (+fetch_url)';

export interface RawPage {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

export async function fetchFollowing(
  start: string,
  signal: AbortSignal,
  options: FetchUrlOptions,
): Promise<{ page: RawPage; finalUrl: URL }> {
  let url = parseHttpUrl(start);
  for (let redirects = 0; ; redirects++) {
    const page = await fetchOnce(url, signal, options);
    const location = page.headers.location;
    if (page.status >= 300 && page.status < 400 && location) {
      if (redirects >= FETCH_MAX_REDIRECTS)
        throw new FetchProblem(`more than ${FETCH_MAX_REDIRECTS} redirects`);
      url = parseHttpUrl(new URL(location, url).href);
      continue;
    }
    if (page.status >= 400) throw new FetchProblem(`the server answered HTTP ${page.status}`);
    return { page, finalUrl: url };
  }
}

async function fetchOnce(url: URL, signal: AbortSignal, options: FetchUrlOptions): Promise<RawPage> {
  const isAllowed = options.allowPrivate ? () => true : options.isAllowedAddress;
  const target = await resolvePublicAddress(url.hostname, { resolver: options.resolver, isAllowed });
  // Pin the connection to the address we checked (no second DNS query, so no rebinding).
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        target,
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  const pageMaxBytes = options.maxBytes ?? FETCH_MAX_BYTES;
  const client = url.protocol === 'https:' ? await loadHttps() : http;
  return new Promise<RawPage>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'GET',
        lookup,
        signal,
        headers: {
          'user-agent': USER_AGENT,
          accept: 'text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.9,*/*;q=0.5',
        },
      },
      (response) => {
        const { isPdf, maxBytes } = bodyLimit(String(response.headers['content-type'] ?? ''), pageMaxBytes);
        const declared = Number(response.headers['content-length'] ?? 0);
        if (isPdf && declared > maxBytes) {
          response.destroy();
          reject(pdfTooBig(maxBytes, declared));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            truncated,
          });
        response.on('data', (chunk: Buffer) => {
          if (truncated) return;
          const room = maxBytes - size;
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(chunk.length, room);
          if (size >= maxBytes) {
            if (isPdf) {
              // A cut PDF has no cross-reference table: nothing of it could be read.
              response.destroy();
              reject(pdfTooBig(maxBytes));
              return;
            }
            truncated = true;
            finish();
            response.destroy();
          }
        });
        response.on('end', finish);
        response.on('error', (err) => (truncated ? undefined : reject(err)));
      },
    );
    request.on('error', reject);
    request.end();
  });
}
