/**
 * The regular-expression engine ajv uses for `pattern` and `patternProperties` in MCP schemas:
 * RE2 (re2js, a pure-JS port), whose matching time is linear in the input. A server chooses the
 * pattern and the model chooses the string; with JavaScript's backtracking engine `^(a+)+$` against
 * 32 characters blocks the event loop for about a minute. A pattern RE2 cannot express (lookahead,
 * backreferences) is not checked at all rather than checked by a backtracking engine.
 */
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

const UNCHECKED: RegExpLike = { test: () => true };

function compileLinear(pattern: string): RegExpLike {
  try {
    // JSON Schema patterns are ECMA-262 syntax; translateRegExp rewrites the few spellings RE2 reads
    // differently (`\d`-style escapes are shared).
    const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    return { test: (s) => re.test(s) };
  } catch {
    return UNCHECKED;
  }
}

/** ajv's `code.regExp` option: `code` names the engine in standalone output (which Scout never emits). */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string) => compileLinear(pattern), {
  code: 'linearRegExp',
});
