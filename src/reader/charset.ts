/**
 * Bytes of a fetched document as text, in the charset the page declares: the Content-Type header,
 * else a byte-order mark, else `<meta charset>` or `<meta http-equiv="content-type">` in the first
 * bytes (where HTML says the declaration must be). A page that declares nothing is UTF-8 when its
 * bytes are; otherwise (an old site in Latin-1, Shift_JIS …) its charset is guessed from the bytes
 * with chardet, as browsers guess (the HTML standard lets them; read as UTF-8 every ü came out as
 * U+FFFD), windows-1252 when the guess is no charset TextDecoder knows. Node's TextDecoder (full ICU)
 * knows every WHATWG encoding: windows-1252, Shift_JIS, EUC-JP, GBK, GB18030, Big5, KOI8-R …
 */
import chardet from 'chardet';

/** HTML puts the charset declaration within the first 1024 bytes; some pages are sloppy. */
const SNIFF_BYTES = 4096;

export function decodeDocument(body: Uint8Array, contentType: string): { text: string; charset: string } {
  const declared = declaredCharset(body, contentType);
  if (declared === undefined) {
    const text = asUtf8(body);
    if (text !== undefined) return { text, charset: 'utf-8' };
  }
  const charset = declared ?? guessedCharset(body);
  try {
    const decoder = new TextDecoder(charset);
    if (decoder.encoding === 'windows-1252') return { text: decodeWindows1252(body), charset };
    return { text: decoder.decode(body), charset };
  } catch {
    // An unknown label: WHATWG says treat it as the default, UTF-8.
    return { text: new TextDecoder('utf-8').decode(body), charset: 'utf-8' };
  }
}

/**
 * The bytes as text when they are UTF-8 (decoded once, here); a body cut inside its last character
 * (fetch_url's byte cap) is still UTF-8, that character U+FFFD.
 */
function asUtf8(body: Uint8Array): string | undefined {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let text: string;
  try {
    text = utf8.decode(body, { stream: true });
  } catch {
    return undefined;
  }
  try {
    utf8.decode();
    return text;
  } catch {
    return `${text}\uFFFD`;
  }
}

/** Bytes chardet looks at to guess a charset: enough text for its statistics, bounded work. */
const GUESS_BYTES = 65_536;

/** The charset chardet guesses from bytes that are not UTF-8; windows-1252 when it knows none TextDecoder does. */
function guessedCharset(body: Uint8Array): string {
  const guess = chardet.detect(body.subarray(0, GUESS_BYTES));
  try {
    return guess ? new TextDecoder(guess.toLowerCase()).encoding : 'windows-1252';
  } catch {
    return 'windows-1252';
  }
}

/** The charset the response or the page declares, if any. */
export function declaredCharset(body: Uint8Array, contentType: string): string | undefined {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
  if (fromHeader) return fromHeader.toLowerCase();
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (/html|xml/i.test(contentType) || contentType === '') {
    // ASCII-compatible bytes read as latin1 keep every byte, so the declaration can be found.
    const head = Buffer.from(body.subarray(0, SNIFF_BYTES)).toString('latin1');
    const meta =
      /<meta[^>]{0,200}?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1] ??
      /<\?xml[^>]{0,100}encoding\s*=\s*["']([\w.:-]+)/i.exec(head)?.[1];
    if (meta) return meta.toLowerCase();
  }
  return undefined;
}

/**
 * The Encoding Standard's windows-1252 index for bytes 0x80–0x9F (the rest is ISO-8859-1). Node 20's
 * TextDecoder decodes this range as C1 controls (fixed in Node 22), which lost every ’ “ ” – — œ € of
 * the pages that declare iso-8859-1, latin1, us-ascii or windows-1252 — labels that all mean this.
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];

function decodeWindows1252(body: Uint8Array): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    .toString('latin1')
    .replace(/[\u0080-\u009f]/g, (c) =>
      String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] as number),
    );
}
