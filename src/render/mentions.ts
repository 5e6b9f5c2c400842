/**
 * Text that must never ping anyone, on any surface: model output, web text and operator text shown
 * back in a chat.
 */

const ZERO_WIDTH_SPACE = '\u200B';

/**
 * Defuses every way text could mention people: Slack's `<@U…>`, `<!channel>`, `<#C…>` and
 * `<!subteam^…>` tokens, Discord's `<@id>`, `<@!id>` and role `<@&id>`, and the plain `@everyone` /
 * `@here` / `@channel` words (Slack turns those into pings in markdown and mrkdwn). A zero-width space
 * keeps the text readable but inert.
 */
export function neutraliseMentions(text: string): string {
  // Runs on the whole answer at every redraw, and most answers hold neither character: looking for
  // it is far cheaper than a regular expression over every character.
  let safe = text;
  if (safe.includes('<')) safe = safe.replace(/<([!@#])/g, `<${ZERO_WIDTH_SPACE}$1`);
  if (safe.includes('@'))
    safe = safe.replace(/(^|[^\w])@(channel|here|everyone)\b/gi, `$1@${ZERO_WIDTH_SPACE}$2`);
  return safe;
}
