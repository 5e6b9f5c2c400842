/**
 * Keeps secrets out of error messages and logs. Provider error bodies sometimes echo part of the
 * key ("Incorrect API key provided: sk-abc***"), and network errors quote the URL they failed on
 * (credentials in `https://user:pass@host`, Google-style `?key=…`), so every provider message passes
 * through here.
 */

/**
 * Shapes of keys and tokens we know, with what replaces them: OpenAI/DeepSeek `sk-…`, Anthropic
 * `sk-ant-…`, Google `AIza…`, Slack/Tavily tokens, Bearer headers, URL credentials and key-like
 * query parameters (only the value goes; the URL stays readable).
 */
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_\-*.]{4,}/g, '[redacted]'],
  [/\bAIza[0-9A-Za-z_-]{10,}/g, '[redacted]'],
  [/\b(?:xox[abpr]|xapp|tvly)-[A-Za-z0-9_-]{4,}/g, '[redacted]'],
  [/Bearer\s+[A-Za-z0-9_\-.=]+/gi, '[redacted]'],
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, '$1[redacted]@'],
  [/([?&](?:key|api[_-]?key|access[_-]?token|token|auth|password)=)[^&\s#"'<>]+/gi, '$1[redacted]'],
];

export function redactSecrets(text: string, knownSecrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of knownSecrets) {
    // Short values (e.g. "x" placeholders) would redact random words; real keys are long.
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
