/**
 * Text from the web (fetched pages, search results) on its way to a model. Two jobs:
 * - `stripControlChars`: control bytes and invisible formatting characters go (they hide instructions
 *   from people reading the page, and smuggle them past checks like the one below).
 * - `escapeDelimiters`: nothing in the text can close or open the `<tool_output>` block the text is
 *   shown in, whatever the case, spacing, look-alike characters or hidden bytes.
 */

/**
 * C0 controls except tab and newline, DEL, C1 controls, bidirectional overrides and isolates,
 * zero-width and invisible operators, the BOM, interlinear annotation marks, and Unicode tag
 * characters (U+E0000–U+E007F, invisible ASCII copies used to hide prompts). ZWJ/ZWNJ stay: emoji
 * sequences and several scripts need them.
 */
const CONTROL_CHARS =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

export function stripControlChars(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL_CHARS, '');
}

/**
 * Characters that read as "<": the ASCII one, its compatibility forms (fullwidth, small) and the
 * angle brackets and arrows a model may take for one.
 */
const LESS_THAN_LIKE =
  '<\uff1c\ufe64\u2039\u276e\u276c\u27e8\u2329\u3008\u02c2\u1438\u16b2\u226e\u2a79\u2a7b';
/** Characters that read as "/" (solidus look-alikes) or a backslash standing in for one. */
const SLASH_LIKE = '/\\\\\uff0f\u2215\u2044\u29f8\u2571\u30ce\u31d3\u4e3f\u2cc6\u0338\u337a';

/** A plain "<" always; a look-alike only when a slash (after spaces) follows, i.e. it imitates a closing tag. */
const DELIMITER_LIKE = new RegExp(`<|[${LESS_THAN_LIKE.slice(1)}](?=\\s*[${SLASH_LIKE}])`, 'g');

/**
 * Escapes every "<" as `&lt;` (a form models read as text, not markup) and every look-alike that
 * starts something like a closing tag. Control characters are stripped first, so `<\u0000/…` and a
 * zero-width space between "<" and "/" do not slip through.
 */
export function escapeDelimiters(text: string): string {
  return stripControlChars(text).replace(DELIMITER_LIKE, '&lt;');
}
