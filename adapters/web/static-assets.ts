/**
 * The page's files (dist/web/, built by scripts/build-web.mjs from adapters/web/client/): read once,
 * compressed once (gzip and Brotli), served with an ETag; the HTML is never cached, the hashed-free
 * assets are revalidated (they change with every build).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

interface Asset {
  type: string;
  raw: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
}

/** dist/web of the checkout or image this code runs from (sources, tsc's dist/ or the bundle). */
export function defaultAssetsDir(): string {
  let dir = import.meta.dirname;
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'web');
    dir = dirname(dir);
  }
  return join(process.cwd(), 'dist', 'web');
}

export class StaticAssets {
  readonly #assets = new Map<string, Asset>();

  constructor(dir: string) {
    if (!existsSync(join(dir, 'index.html'))) {
      throw new Error(`the web page is not built (${dir} has no index.html): run npm run build`);
    }
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)];
      if (!type) continue;
      const raw = readFileSync(join(dir, name));
      this.#assets.set(name, {
        type,
        raw,
        gzip: gzipSync(raw, { level: 9 }),
        brotli: brotliCompressSync(raw),
        etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`,
      });
    }
  }

  /** The text of a file (the HTML pages the server fills in). */
  text(name: string): string {
    const asset = this.#assets.get(name);
    if (!asset) throw new Error(`web asset ${name} is missing`);
    return asset.raw.toString('utf8');
  }

  /** Serves `name`; false when there is no such file. */
  serve(req: IncomingMessage, res: ServerResponse, name: string): boolean {
    const asset = this.#assets.get(name);
    if (!asset || name.endsWith('.html')) return false;
    if (req.headers['if-none-match'] === asset.etag) {
      res.writeHead(304, { ETag: asset.etag });
      res.end();
      return true;
    }
    const accepts = String(req.headers['accept-encoding'] ?? '');
    const [body, encoding] = /\bbr\b/.test(accepts)
      ? [asset.brotli, 'br']
      : /\bgzip\b/.test(accepts)
        ? [asset.gzip, 'gzip']
        : [asset.raw, undefined];
    res.writeHead(200, {
      'Content-Type': asset.type,
      'Content-Length': body.length,
      ETag: asset.etag,
      'Cache-Control': 'no-cache',
      Vary: 'Accept-Encoding',
      ...(encoding ? { 'Content-Encoding': encoding } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }
}
