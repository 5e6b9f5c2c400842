/**
 * Whether a value someone typed where a model id goes (`/model tool openai/…`, a model variable) is
 * more likely a pasted API key or token. Such a value is refused without being shown back or saved:
 * a settings reply would otherwise repeat the key to the channel, and every later reply would too.
 *
 * Two signs: a shape providers and platforms give their credentials (a known prefix followed by a
 * long random part, a JWT), or a long run of letters and digits that mixes upper case, lower case and
 * digits, which no model name has (model names are words and numbers cut by `-`, `.`, `:` or `/`,
 * and digests are lower-case hex).
 */

/** Credential shapes: OpenAI/DeepSeek/Anthropic `sk-…`, Slack, GitHub, GitLab, AWS, Google, and others. */
const KNOWN_SHAPES: readonly RegExp[] = [
  /(?:^|[^A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}/,
  /(?:^|[^A-Za-z0-9])(?:xox[abeoprs]|xapp|xoxe\.xox[bp])-[A-Za-z0-9-]{10,}/,
  /(?:^|[^A-Za-z0-9])(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}/,
  /(?:^|[^A-Za-z0-9])glpat-[A-Za-z0-9_-]{16,}/,
  /(?:^|[^A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/,
  /(?:^|[^A-Za-z0-9])AIza[0-9A-Za-z_-]{30,}/,
  /(?:^|[^A-Za-z0-9])(?:gsk|hf|r8|xai|tvly|pplx|nvapi|csk|fw)[_-][A-Za-z0-9]{20,}/,
  // A JWT: base64url header `{"…` (eyJ), payload, signature.
  /(?:^|[^A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
];

/** A run of letters and digits at least this long that mixes cases and digits is taken for random. */
const RANDOM_RUN_CHARS = 24;

function hasRandomRun(value: string): boolean {
  for (const run of value.split(/[^A-Za-z0-9]+/)) {
    if (run.length < RANDOM_RUN_CHARS) continue;
    if (/[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run)) return true;
  }
  return false;
}

export function looksLikeSecret(value: string): boolean {
  return KNOWN_SHAPES.some((shape) => shape.test(value)) || hasRandomRun(value);
}

/** The problem line, for the places that list problems in English (variables at start-up). */
export const SECRET_MODEL_PROBLEM =
  'the model name looks like an API key or token, not a model id (not shown here); if it is a real key, revoke it';
