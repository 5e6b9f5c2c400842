/**
 * WEB_PASSWORD, kept only as a scrypt hash from the moment the web surface starts: the plain text is
 * dropped from the configuration and the environment, so neither a heap dump nor a child process
 * holds it. Checked in constant time.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const KEY_BYTES = 32;
/** Longer passwords are refused before hashing: scrypt's cost grows with its input. */
export const MAX_PASSWORD_CHARS = 1024;

export interface PasswordHash {
  salt: Buffer;
  hash: Buffer;
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  return { salt, hash: await scryptAsync(password, salt, KEY_BYTES) };
}

export async function passwordMatches(given: string, stored: PasswordHash): Promise<boolean> {
  if (given.length === 0 || given.length > MAX_PASSWORD_CHARS) return false;
  const hash = await scryptAsync(given, stored.salt, KEY_BYTES);
  return timingSafeEqual(hash, stored.hash);
}
