/**
 * Keeps secrets out of error messages and logs. Provider error bodies sometimes echo part of the
 * key ("Incorrect API key provided: sk-abc***"), so every provider message passes through here.
 */

/** Shapes of keys and tokens we know: OpenAI/DeepSeek `sk-…`, Anthropic `sk-ant-…`, Google `AIza…`, Bearer headers. */
const SECRET_PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_\-*.]{4,}/g,
  /\bAIza[0-9A-Za-z_-]{10,}/g,
  /\b(?:xox[abpr]|xapp|tvly)-[A-Za-z0-9_-]{4,}/g,
  /Bearer\s+[A-Za-z0-9_\-.=]+/gi,
];

export function redactSecrets(text: string, knownSecrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of knownSecrets) {
    // Short values (e.g. "x" placeholders) would redact random words; real keys are long.
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[redacted]');
  return out;
}
