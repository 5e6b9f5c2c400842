/**
 * Bytes of a fetched document as text, in the charset the page declares: the Content-Type header,
 * else a byte-order mark, else `<meta charset>` or `<meta http-equiv="content-type">` in the first
 * bytes (where HTML says the declaration must be), else UTF-8. Node's TextDecoder (full ICU) knows
 * every WHATWG encoding: windows-1252, Shift_JIS, EUC-JP, GBK, GB18030, Big5, KOI8-R …
 */

/** HTML puts the charset declaration within the first 1024 bytes; some pages are sloppy. */
const SNIFF_BYTES = 4096;

export function decodeDocument(body: Uint8Array, contentType: string): { text: string; charset: string } {
  const charset = declaredCharset(body, contentType);
  try {
    return { text: new TextDecoder(charset).decode(body), charset };
  } catch {
    // An unknown label: WHATWG says treat it as the default, UTF-8.
    return { text: new TextDecoder('utf-8').decode(body), charset: 'utf-8' };
  }
}

export function declaredCharset(body: Uint8Array, contentType: string): string {
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
  return 'utf-8';
}
