/**
 * The web chat (`WEB_PORT`): the same core, commands, settings, limits and renderer events as Slack,
 * Discord and the terminal, served to a browser page (adapters/web/client) over one origin. Requests
 * are routed in api-routes.ts; this file owns the server, the pages, who is asking, and shutdown.
 * Binds WEB_HOST (loopback by default; config refuses any other address without a login).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../src/config/env.js';
import type { Logger } from '../../src/logger.js';
import type { Stores } from '../../src/store/types.js';
import type { ScoutCore, Surface } from '../../src/surface.js';
import { ApiRoutes } from './api-routes.js';
import { cleanUserName, WebAuth } from './auth/web-auth.js';
import { hashPassword } from './auth/password.js';
import type { OidcLogin } from './auth/oidc-login.js';
import { appendCookie, SessionCookies, sameSecret, sessionSecret } from './auth/session-cookie.js';
import { HttpError, readBody, readCookie, requestLocale, securityHeaders, sendError } from './http-kit.js';
import { loginPageHtml } from './login-page.js';
import { phrase, type UserText } from '../../src/i18n/phrase.js';
import { TokenBuckets } from './request-limits.js';
import { defaultAssetsDir, StaticAssets } from './static-assets.js';
import { randomBytes } from 'node:crypto';

export interface WebSurfaceOptions {
  core: ScoutCore;
  config: Config;
  logger: Logger;
  stores: Stores;
  /** Where the built page is (tests); default dist/web of this checkout. */
  assetsDir?: string;
  /** Called with the address once listening (tests bind port 0). */
  onListening?: (address: AddressInfo) => void;
}

export interface WebSurface extends Surface {
  /** The bound address, once started. */
  address(): AddressInfo | undefined;
}

/** Requests per second per address, and the burst allowed (the page makes a handful per action). */
const REQUESTS_PER_SECOND = 20;
const REQUEST_BURST = 200;
/** Login attempts: one every 6 s per address after a burst of 10 (password guessing). */
const LOGIN_PER_SECOND = 1 / 6;
const LOGIN_BURST = 10;
const LOGIN_COOKIE = 'scout_login';

export function createWebSurface(options: WebSurfaceOptions): WebSurface {
  const { config, logger } = options;
  const env = config.env;
  let server: Server | undefined;
  let routes: ApiRoutes | undefined;
  let auth: WebAuth | undefined;
  let assets: StaticAssets | undefined;
  let oidc: OidcLogin | undefined;
  const requests = new TokenBuckets(REQUESTS_PER_SECOND, REQUEST_BURST);
  const logins = new TokenBuckets(LOGIN_PER_SECOND, LOGIN_BURST);

  const page = (res: ServerResponse, status: number, html: string) => {
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(html);
  };

  const loginPage = (req: IncomingMessage, res: ServerResponse, error?: UserText, status = 200) => {
    if (!assets) return;
    const token = randomBytes(18).toString('base64url');
    appendCookie(
      res,
      `${LOGIN_COOKIE}=${token}; Path=/login; HttpOnly; SameSite=Strict; Max-Age=600${auth?.secure(req) ? '; Secure' : ''}`,
    );
    page(
      res,
      status,
      loginPageHtml(assets.text('login.html'), token, error, requestLocale(req, env.BOT_LOCALE)),
    );
  };

  const handleLogin = async (req: IncomingMessage, res: ServerResponse) => {
    if (auth?.kind !== 'password') throw new HttpError(404, phrase('web.error.not-found'));
    if (!logins.take(auth.clientAddress(req))) {
      return loginPage(req, res, phrase('web.login.too-many'), 429);
    }
    const form = new URLSearchParams((await readBody(req, 16 * 1024)).toString('utf8'));
    const expected = readCookie(req, LOGIN_COOKIE);
    if (!expected || !sameSecret(form.get('csrf') ?? '', expected)) {
      return loginPage(req, res, phrase('web.login.expired'), 403);
    }
    const user = await auth.passwordLogin(form.get('name') ?? '', form.get('password') ?? '');
    if (!user) {
      logger.info({ event: 'web.login.failed' }, 'web login refused');
      const named = cleanUserName(form.get('name') ?? '') !== '';
      return loginPage(req, res, phrase(named ? 'web.login.wrong' : 'web.login.missing'), 401);
    }
    auth.issue(req, res, user);
    res.writeHead(303, { Location: '/' });
    res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    securityHeaders(res);
    if (!auth || !routes || !assets) throw new HttpError(503, phrase('web.error.starting'));
    if (!requests.take(auth.clientAddress(req))) {
      res.setHeader('Retry-After', '5');
      throw new HttpError(429, phrase('web.error.too-many-requests'));
    }
    const url = new URL(req.url ?? '/', 'http://web');
    const path = url.pathname;
    if (path.startsWith('/assets/') && (req.method === 'GET' || req.method === 'HEAD')) {
      if (assets.serve(req, res, path.slice('/assets/'.length))) return;
      throw new HttpError(404, phrase('web.error.not-found'));
    }
    if (oidc && path === '/auth/login' && req.method === 'GET') return oidc.begin(req, res, auth.secure(req));
    if (oidc && path === '/auth/callback' && req.method === 'GET') {
      auth.issue(req, res, await oidc.callback(req, res, url));
      res.writeHead(303, { Location: '/' });
      return void res.end();
    }
    if (path === '/login') {
      if (req.method === 'POST') return handleLogin(req, res);
      if (auth.kind !== 'password') {
        res.writeHead(303, { Location: auth.kind === 'oidc' ? '/auth/login' : '/' });
        return void res.end();
      }
      return loginPage(req, res);
    }
    if (path === '/logout' && req.method === 'POST') {
      const session = auth.session(req, res);
      if (session) auth.checkChange(req, session);
      auth.logout(res);
      res.writeHead(303, { Location: auth.kind === 'password' ? '/login' : '/' });
      return void res.end();
    }
    const session = auth.session(req, res);
    if (path === '/' && req.method === 'GET') {
      if (!session) {
        if (auth.kind === 'password' || auth.kind === 'oidc') {
          res.writeHead(303, { Location: auth.kind === 'oidc' ? '/auth/login' : '/login' });
          return void res.end();
        }
        return page(res, 401, assets.text('index.html'));
      }
      return page(res, 200, assets.text('index.html'));
    }
    if (path.startsWith('/api/')) {
      if (!session) {
        throw new HttpError(
          401,
          phrase(auth.kind === 'header' ? 'web.error.sign-in-proxy' : 'web.error.log-in'),
        );
      }
      return routes.handle(req, res, url, session);
    }
    throw new HttpError(404, phrase('web.error.not-found'));
  };

  return {
    name: 'web',
    address: () => (server?.address() as AddressInfo | null) ?? undefined,
    async start() {
      assets = new StaticAssets(options.assetsDir ?? defaultAssetsDir());
      // The plain password goes as soon as it is hashed: neither the config nor the environment keeps it.
      const password = env.WEB_PASSWORD ? await hashPassword(env.WEB_PASSWORD) : undefined;
      (env as { WEB_PASSWORD?: string }).WEB_PASSWORD = undefined;
      delete process.env.WEB_PASSWORD;
      const secret = await sessionSecret(env.WEB_SESSION_SECRET, options.stores);
      const cookies = new SessionCookies(secret, env.WEB_SESSION_TTL);
      if (env.WEB_OIDC_ISSUER && env.WEB_OIDC_CLIENT_ID && env.WEB_OIDC_CLIENT_SECRET && env.WEB_PUBLIC_URL) {
        // Loaded only when configured: openid-client and jose stay off every other start.
        const { createOidcLogin } = await import('./auth/oidc-login.js');
        oidc = createOidcLogin({
          issuer: env.WEB_OIDC_ISSUER,
          clientId: env.WEB_OIDC_CLIENT_ID,
          clientSecret: env.WEB_OIDC_CLIENT_SECRET,
          publicUrl: env.WEB_PUBLIC_URL,
          cookieSecret: secret,
          logger,
        });
        await oidc.start();
      }
      auth = new WebAuth({ env, cookies, ...(password ? { password } : {}), oidc: oidc !== undefined });
      routes = new ApiRoutes({ core: options.core, config, logger, stores: options.stores, auth });
      server = createServer((req, res) => {
        handle(req, res).catch((err: unknown) => {
          const locale = requestLocale(req, env.BOT_LOCALE);
          if (err instanceof HttpError) return sendError(res, err, locale);
          logger.error({ err, path: req.url?.split('?')[0] }, 'web request failed');
          sendError(res, new HttpError(500, phrase('web.error.internal')), locale);
        });
      });
      // A browser that opens a connection and sends nothing does not hold it for long.
      server.headersTimeout = 20_000;
      server.requestTimeout = 120_000;
      await new Promise<void>((resolve, reject) => {
        server?.once('error', reject);
        server?.listen(env.WEB_PORT ?? 0, env.WEB_HOST, () => {
          server?.off('error', reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      logger.info({ host: address.address, port: address.port, auth: auth.kind }, 'web chat listening');
      options.onListening?.(address);
    },
    async stop() {
      routes?.stop();
      const closing = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      // Event streams stay open for ever: end them, and every connection with them, or a page that
      // reconnects (EventSource retries within a second, over its kept-alive connection) would hold
      // close() past the shutdown's grace. Running turns are the core's: they finish and are stored.
      routes?.closeStreams();
      server?.closeAllConnections();
      await closing;
    },
  };
}
