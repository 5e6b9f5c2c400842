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
  return text
    .replace(/<([!@#])/g, `<${ZERO_WIDTH_SPACE}$1`)
    .replace(/(^|[^\w])@(channel|here|everyone)\b/gi, `$1@${ZERO_WIDTH_SPACE}$2`);
}
