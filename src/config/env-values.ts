/**
 * The kinds of environment variable EnvSchema (env.ts) is built from: each turns the variable's text
 * into a value, or into an issue that names what the variable accepts (never the value it had).
 */
import * as z from '../schema/zod.js';
import { parseDuration } from './duration.js';

export const bool = z.pipe(
  z._default(z.enum(['true', 'false', '1', '0', 'yes', 'no', '']), 'false'),
  z.transform((v) => v === 'true' || v === '1' || v === 'yes'),
);
export const optionalString = z.pipe(
  z.optional(z.string()),
  z.transform((v) => (v && v.trim() !== '' ? v.trim() : undefined)),
);
export const url = (fallback?: string) =>
  z
    .pipe(
      z.optional(z.string()),
      z.transform((v) => (v && v.trim() !== '' ? v.trim() : fallback)),
    )
    .check(z.refine((v) => v === undefined || /^https?:\/\//.test(v), 'must be an http(s) URL'));
/** A number within [min, max]: "must be a number", "must be a whole number", "must be between …". */
export const number = (min: number, max: number, whole: boolean) => {
  const range = `must be between ${min} and ${max}`;
  return z.coerce
    .number({ error: 'must be a number' })
    .check(...(whole ? [z.int('must be a whole number')] : []), z.gte(min, range), z.lte(max, range));
};
export const intIn = (fallback: number, min: number, max: number) =>
  z._default(number(min, max, true), fallback);
/** "24h", "3m", "500ms", or a bare number of seconds (parseDuration), above zero. */
export const duration = (fallback: string) =>
  z.pipe(
    z._default(z.string(), fallback),
    z.transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === undefined || ms <= 0) {
        ctx.issues.push({
          code: 'custom',
          message: 'must be a duration such as 24h, 30m or 3600 (seconds)',
          input: v,
        });
        return z.NEVER;
      }
      return ms;
    }),
  );
export const list = z.pipe(
  z.optional(z.string()),
  z.transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
);
/** A limit within [min, max], or unset (empty means unset too, as `.env.example` leaves it). */
export const optionalLimit = (min: number, max: number, whole: boolean) =>
  z.pipe(
    z.transform((v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)),
    z.optional(number(min, max, whole)),
  );
/** A string with a default, accepted when `valid` says so. */
export const checkedString = (fallback: string, valid: (v: string) => boolean, message: string) =>
  z._default(z.string(), fallback).check(z.refine(valid, message));
/** One of `values`, `fallback` when unset. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z._default(z.enum(values), fallback);
