/**
 * A page's charset: what the response or the page declares; for a page that declares nothing, UTF-8
 * when its bytes are, else the charset its bytes show (old sites in Latin-1, Shift_JIS …), as a
 * browser guesses — not UTF-8 with every ü turned into U+FFFD.
 */
import { describe, expect, it } from 'vitest';
import { decodeDocument } from '../../src/reader/charset.js';

const page = (head: string, body: string) =>
  `<html><head>${head}<title>Datenschutz</title></head><body><p>${body}</p></body></html>`;
const GERMAN =
  'Aus datenschutzrechtlichen Gründen wird in den Logfiles der Hostname bzw. die IP-Adresse des Clients gekürzt gespeichert. Die Größe der Dateien und die Übertragungsmenge werden für statistische Zwecke ausgewertet; eine Zusammenführung mit anderen Datenquellen wird nicht vorgenommen.';
const JAPANESE =
  '東京都は本日、新しい図書館の開館時間を発表しました。利用者は平日の午前九時から午後八時まで、週末は午前十時から午後六時まで本を借りることができます。館内には子ども向けの読書室も設けられています。';

describe('decodeDocument', () => {
  it('reads an undeclared Latin-1 page as Latin-1, not as UTF-8 with U+FFFD for each umlaut', () => {
    const bytes = Buffer.from(page('', GERMAN), 'latin1');
    const { text, charset } = decodeDocument(bytes, 'text/html');
    expect(text).toContain('Aus datenschutzrechtlichen Gründen wird');
    expect(text).not.toContain('\uFFFD');
    expect(charset).toBe('windows-1252');
  });

  it('reads an undeclared Shift_JIS page as Shift_JIS', () => {
    const bytes = new Uint8Array([...page('', JAPANESE)].flatMap((c) => [...shiftJis(c)]));
    const { text, charset } = decodeDocument(bytes, '');
    expect(text).toContain('東京都は本日、新しい図書館の開館時間を発表しました。');
    expect(charset).toBe('shift_jis');
  });

  it('reads an undeclared UTF-8 page as UTF-8, a last character cut by the byte cap as U+FFFD', () => {
    const bytes = Buffer.from(page('', `${GERMAN} ${JAPANESE}`), 'utf8');
    expect(decodeDocument(bytes, 'text/html')).toEqual({
      text: page('', `${GERMAN} ${JAPANESE}`),
      charset: 'utf-8',
    });
    // Cut inside 。 (three bytes): everything before it whole.
    const cut = bytes.subarray(0, bytes.indexOf(Buffer.from('。', 'utf8')) + 2);
    const { text, charset } = decodeDocument(cut, 'text/html');
    expect(charset).toBe('utf-8');
    expect(text.endsWith('図書館の開館時間を発表しました\uFFFD')).toBe(true);
  });

  it('keeps to what the response or the page declares', () => {
    const latin1 = Buffer.from(page('', GERMAN), 'latin1');
    // Declared UTF-8 (wrongly): read as UTF-8, as browsers do.
    expect(decodeDocument(latin1, 'text/html; charset=utf-8').text).toContain('Gr\uFFFDnden');
    const declared = Buffer.from(page('<meta charset="iso-8859-1">', GERMAN), 'latin1');
    expect(decodeDocument(declared, 'text/html')).toMatchObject({ charset: 'iso-8859-1' });
    expect(decodeDocument(declared, 'text/html').text).toContain('Gründen');
  });
});

/** A character's Shift_JIS bytes (ASCII as itself), from Node's own decoder run backwards. */
function shiftJis(char: string): Uint8Array {
  if (char.charCodeAt(0) < 0x80) return Uint8Array.of(char.charCodeAt(0));
  const decoder = new TextDecoder('shift_jis');
  for (let lead = 0x81; lead <= 0xfc; lead++)
    for (let trail = 0x40; trail <= 0xfc; trail++)
      if (decoder.decode(Uint8Array.of(lead, trail)) === char) return Uint8Array.of(lead, trail);
  throw new Error(`no Shift_JIS bytes for ${char}`);
}
