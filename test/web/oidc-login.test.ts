/**
 * OpenID Connect login (adapters/web/auth/oidc-login.ts) against a fake provider on loopback: its
 * discovery document, a JWKS of a fresh RS256 key, and a token endpoint that checks the client's
 * credentials, the PKCE verifier against the challenge the browser carried, the redirect_uri, and
 * that each code is used once. The provider's login page is played by the test: it reads begin()'s
 * redirect, mints a code for that challenge and nonce, and calls the callback as the browser would,
 * with real HTTP requests and the state cookie.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOidcLogin, type OidcLogin } from '../../adapters/web/auth/oidc-login.js';
import { HttpError, sendError, sendJson } from '../../adapters/web/http-kit.js';

const CLIENT_ID = 'scout-web';
const CLIENT_SECRET = 'cs-5up3r-s3cret-value-never-shown';
const KID = 'key-1';

type KeyLike = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

interface Grant {
  challenge: string;
  nonce: string;
  redirectUri: string;
  claims: Record<string, unknown>;
  /** The key the ID token is signed with: the provider's own unless a test says otherwise. */
  signWith?: KeyLike;
}

interface TokenCall {
  verifierMatched: boolean;
  clientAuth: 'basic' | 'post' | 'none';
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server | undefined): Promise<void> {
  if (!server?.listening) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The fake OpenID provider. */
class FakeProvider {
  server!: Server;
  issuer = '';
  readonly grants = new Map<string, Grant>();
  readonly tokenCalls: TokenCall[] = [];
  readonly issuedTokens: string[] = [];
  privateKey!: KeyLike;
  otherKey!: KeyLike;
  #jwks: unknown;

  async start(): Promise<void> {
    const mine = await generateKeyPair('RS256', { extractable: true });
    this.privateKey = mine.privateKey;
    this.otherKey = (await generateKeyPair('RS256')).privateKey;
    this.#jwks = { keys: [{ ...(await exportJWK(mine.publicKey)), kid: KID, alg: 'RS256', use: 'sig' }] };
    this.server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        res.writeHead(500).end(String(err));
      });
    });
    this.issuer = await listen(this.server);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      sendJson(res, 200, {
        issuer: this.issuer,
        authorization_endpoint: `${this.issuer}/authorize`,
        token_endpoint: `${this.issuer}/token`,
        jwks_uri: `${this.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: ['openid', 'email', 'profile'],
      });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/jwks') {
      sendJson(res, 200, this.#jwks);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      await this.#token(req, res);
      return;
    }
    sendJson(res, 404, { error: 'not_found' });
  }

  async #token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await bodyOf(req));
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    let clientAuth: TokenCall['clientAuth'] = secret ? 'post' : 'none';
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
    if (basic) {
      const [user, pass] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      id = decodeURIComponent(user ?? '');
      secret = decodeURIComponent(pass ?? '');
      clientAuth = 'basic';
    }
    const code = form.get('code') ?? '';
    const grant = this.grants.get(code);
    this.grants.delete(code); // a code is good once
    const verifier = form.get('code_verifier') ?? '';
    const verifierMatched =
      grant !== undefined && createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
    this.tokenCalls.push({ verifierMatched, clientAuth });
    if (id !== CLIENT_ID || secret !== CLIENT_SECRET) {
      sendJson(res, 401, { error: 'invalid_client' });
      return;
    }
    if (
      form.get('grant_type') !== 'authorization_code' ||
      !grant ||
      !verifierMatched ||
      form.get('redirect_uri') !== grant.redirectUri
    ) {
      sendJson(res, 400, { error: 'invalid_grant' });
      return;
    }
    const idToken = await new SignJWT({ nonce: grant.nonce, ...grant.claims })
      .setProtectedHeader({ alg: 'RS256', kid: KID })
      .setIssuer(this.issuer)
      .setAudience(CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(grant.signWith ?? this.privateKey);
    const accessToken = `at-${randomBytes(16).toString('hex')}`;
    this.issuedTokens.push(idToken, accessToken);
    sendJson(res, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 300,
      id_token: idToken,
    });
  }
}

/** A tiny app in front of the module: /auth/login → begin, /auth/callback → callback. */
async function startApp(loginOf: () => OidcLogin): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const login = loginOf();
    const route = async () => {
      if (url.pathname === '/auth/login') return login.begin(req, res, false);
      if (url.pathname === '/auth/callback') {
        const user = await login.callback(req, res, url);
        return sendJson(res, 200, { user });
      }
      throw new HttpError(404, 'Not found.');
    };
    route().catch((err: unknown) => {
      sendError(res, err instanceof HttpError ? err : new HttpError(500, 'Something went wrong.'), 'en');
    });
  });
  return { server, url: await listen(server) };
}

const ADA = { sub: 'u-1815', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' };

describe('OpenID Connect login', () => {
  const provider = new FakeProvider();
  let app: { server: Server; url: string };
  let login: OidcLogin;
  let logs: string[];

  beforeAll(async () => {
    await provider.start();
  });

  afterAll(async () => {
    await close(provider.server);
  });

  beforeEach(async () => {
    logs = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
    // The app listens first so publicUrl is known; the module is made right after.
    app = await startApp(() => login);
    login = createOidcLogin({
      issuer: provider.issuer,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      publicUrl: app.url,
      cookieSecret: randomBytes(32),
      logger,
    });
    await login.start();
    provider.tokenCalls.length = 0;
  });

  afterEach(async () => {
    await close(app.server);
    // Nothing the provider issued, nor the client secret, ever reaches a log line.
    for (const secret of [...provider.issuedTokens, CLIENT_SECRET]) {
      expect(logs.join('\n')).not.toContain(secret);
    }
  });

  /** GET /auth/login: the redirect's parameters and the state cookie. */
  async function beginLogin() {
    const res = await fetch(`${app.url}/auth/login`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('scout_oidc='));
    expect(setCookie).toBeDefined();
    const cookie = setCookie!.split(';')[0]!;
    return { location, setCookie: setCookie!, cookie, params: location.searchParams };
  }

  /** The provider's login page, played by the test: mints a code for this request. */
  function authorize(
    params: URLSearchParams,
    claims: Record<string, unknown> = ADA,
    signWith?: KeyLike,
  ): string {
    const code = `code-${randomBytes(8).toString('hex')}`;
    provider.grants.set(code, {
      challenge: params.get('code_challenge') ?? '',
      nonce: params.get('nonce') ?? '',
      redirectUri: params.get('redirect_uri') ?? '',
      claims,
      ...(signWith ? { signWith } : {}),
    });
    return code;
  }

  async function callBack(query: Record<string, string>, cookie?: string) {
    const res = await fetch(`${app.url}/auth/callback?${new URLSearchParams(query)}`, {
      redirect: 'manual',
      headers: cookie ? { cookie } : {},
    });
    const text = await res.text();
    return { res, text, body: JSON.parse(text) as { user?: { id: string; name: string }; error?: string } };
  }

  it('logs in: PKCE S256, state and nonce in a Lax HttpOnly cookie, and returns the verified email', async () => {
    const { location, setCookie, cookie, params } = await beginLogin();
    expect(`${location.origin}${location.pathname}`).toBe(`${provider.issuer}/authorize`);
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(CLIENT_ID);
    expect(params.get('redirect_uri')).toBe(`${app.url}/auth/callback`);
    expect(params.get('scope')?.split(' ')).toContain('openid');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')).toBeTruthy();
    expect(params.get('nonce')).toBeTruthy();
    expect(params.get('client_secret')).toBeNull();
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(setCookie).toMatch(/; Path=\/auth\/callback/);
    expect(setCookie).toMatch(/; Max-Age=\d+/);
    expect(setCookie).not.toMatch(/; Secure/); // begin(…, secure=false)
    // The verifier itself never leaves in the URL.
    expect(location.href).not.toContain(cookie.slice('scout_oidc='.length, 'scout_oidc='.length + 20));

    const code = authorize(params);
    const { res, text, body } = await callBack({ code, state: params.get('state')! }, cookie);
    expect(res.status).toBe(200);
    expect(body.user).toEqual({ id: 'ada@example.com', name: 'Ada Lovelace' });
    expect(provider.tokenCalls).toEqual([
      { verifierMatched: true, clientAuth: expect.stringMatching(/basic|post/) },
    ]);
    // The cookie is spent: cleared on the callback's answer.
    expect(res.headers.getSetCookie().some((c) => /^scout_oidc=;.*Max-Age=0/.test(c))).toBe(true);
    for (const token of provider.issuedTokens) expect(text).not.toContain(token);
  });

  it('names the user by preferred_username when the email is not verified, else by subject', async () => {
    const first = await beginLogin();
    const unverified = {
      sub: 'u-2',
      email: 'who@example.com',
      email_verified: false,
      preferred_username: 'grace',
    };
    const a = await callBack(
      { code: authorize(first.params, unverified), state: first.params.get('state')! },
      first.cookie,
    );
    expect(a.body.user).toEqual({ id: 'grace', name: 'grace' });

    const second = await beginLogin();
    const b = await callBack(
      { code: authorize(second.params, { sub: 'u-3', name: 'Alan' }), state: second.params.get('state')! },
      second.cookie,
    );
    expect(b.body.user).toEqual({ id: 'u-3', name: 'Alan' });
  });

  it('refuses a wrong state with 401, before any code is exchanged', async () => {
    const { cookie, params } = await beginLogin();
    const code = authorize(params);
    const { res, body } = await callBack({ code, state: `${params.get('state')}x` }, cookie);
    expect(res.status).toBe(401);
    expect(body.error).toMatch(/sign in again/i);
    expect(provider.tokenCalls).toEqual([]);
    expect(res.headers.getSetCookie().some((c) => /^scout_oidc=;.*Max-Age=0/.test(c))).toBe(true);
  });

  it('refuses an ID token signed by another key', async () => {
    const { cookie, params } = await beginLogin();
    const code = authorize(params, ADA, provider.otherKey);
    const { res, text, body } = await callBack({ code, state: params.get('state')! }, cookie);
    expect(res.status).toBe(401);
    expect(body.error).toMatch(/sign in again/i);
    expect(body.user).toBeUndefined();
    // The exchange itself went through (so the refusal is the signature's), and no token is echoed.
    expect(provider.tokenCalls).toEqual([
      { verifierMatched: true, clientAuth: expect.stringMatching(/basic|post/) },
    ]);
    for (const token of provider.issuedTokens) expect(text).not.toContain(token);
  });

  it('refuses a callback without the state cookie, or with a tampered one', async () => {
    const { cookie, params } = await beginLogin();
    const code = authorize(params);
    const missing = await callBack({ code, state: params.get('state')! });
    expect(missing.res.status).toBe(401);
    expect(missing.body.error).toMatch(/sign in again/i);

    // Same payload, one character of the signature changed.
    const last = cookie.at(-1) === 'A' ? 'B' : 'A';
    const tampered = await callBack({ code, state: params.get('state')! }, `${cookie.slice(0, -1)}${last}`);
    expect(tampered.res.status).toBe(401);
    expect(provider.tokenCalls).toEqual([]);

    // The genuine cookie still works, proving the refusals above were the cookie's.
    const ok = await callBack({ code, state: params.get('state')! }, cookie);
    expect(ok.res.status).toBe(200);
    expect(ok.body.user?.id).toBe('ada@example.com');
  });

  it('refuses a provider error (the user cancelled) without exchanging anything', async () => {
    const { cookie, params } = await beginLogin();
    const { res, body } = await callBack({ error: 'access_denied', state: params.get('state')! }, cookie);
    expect(res.status).toBe(401);
    expect(body.error).toMatch(/cancelled|refused/i);
    expect(provider.tokenCalls).toEqual([]);
  });
});

describe('OpenID Connect discovery', () => {
  const options = (issuer: string, timeoutSeconds?: number) => ({
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    publicUrl: 'http://127.0.0.1:1',
    cookieSecret: randomBytes(32),
    logger: pino({ level: 'silent' }),
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
  });

  it('rejects naming WEB_OIDC_ISSUER when nothing answers there, without the secret', async () => {
    // A port that was just free: connection refused.
    const probe = createServer();
    const issuer = await listen(probe);
    await close(probe);
    const error = await createOidcLogin(options(issuer))
      .start()
      .then(
        () => undefined,
        (err: unknown) => err as Error,
      );
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toMatch(/^WEB_OIDC_ISSUER: could not discover/);
    expect(error!.message).toContain(issuer);
    expect(error!.message).not.toContain(CLIENT_SECRET);
  });

  it('rejects when the issuer accepts but never answers (timeout), or answers something else', async () => {
    const silent = createServer(() => {}); // holds every request open
    const hanging = await listen(silent);
    const wrong = createServer((_req, res) => sendJson(res, 200, { issuer: 'https://elsewhere.example' }));
    const mismatched = await listen(wrong);
    try {
      await expect(createOidcLogin(options(hanging, 1)).start()).rejects.toThrow(/^WEB_OIDC_ISSUER: /);
      await expect(createOidcLogin(options(mismatched)).start()).rejects.toThrow(/^WEB_OIDC_ISSUER: /);
    } finally {
      await close(silent);
      await close(wrong);
    }
  });

  it('requires https unless the issuer is on loopback', async () => {
    await expect(createOidcLogin(options('http://login.example.com/realm')).start()).rejects.toThrow(
      /^WEB_OIDC_ISSUER: must be an https:\/\/ URL/,
    );
    await expect(createOidcLogin(options('not a url')).start()).rejects.toThrow(
      /^WEB_OIDC_ISSUER: not a URL/,
    );
  });

  it('answers 503 rather than redirecting anywhere before discovery succeeded', async () => {
    const login = createOidcLogin(options('http://127.0.0.1:1'));
    await expect(login.begin({} as IncomingMessage, {} as ServerResponse, false)).rejects.toMatchObject({
      status: 503,
    });
  });
});
