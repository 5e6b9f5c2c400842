/**
 * Files for the context tests, generated here (never fixtures): PNGs made with sharp, PDFs written
 * byte by byte, a PDF bomb, and an "elsewhere" server that records whoever reaches it (a URL on it
 * must never be fetched, and never with a token).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import sharp from 'sharp';

export function makePng(width = 8, height = 8, color = '#3366ff'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
}

/**
 * A one-page PDF whose page shows `text` (Helvetica); `content` replaces the page's content stream.
 * `encrypt` is an Encrypt dictionary, added as an object with the trailer's /Encrypt and /ID.
 */
export function makePdf(
  text: string,
  options: { content?: Buffer; filter?: string; pages?: number; image?: Buffer; encrypt?: string } = {},
): Buffer {
  const stream = options.content ?? Buffer.from(`BT /F1 24 Tf 72 700 Td (${text}) Tj ET`, 'latin1');
  const pages = options.pages ?? 1;
  const kids = Array.from({ length: pages }, () => '3 0 R').join(' ');
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`),
    Buffer.from(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    ),
    Buffer.concat([
      Buffer.from(
        `<< /Length ${stream.length}${options.filter ? ` /Filter /${options.filter}` : ''} >>\nstream\n`,
      ),
      stream,
      Buffer.from('\nendstream'),
    ]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  // An embedded image's bytes (what makes most real PDFs large); text extraction never decodes it.
  if (options.image)
    objects.push(
      Buffer.concat([
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${options.image.length} >>\nstream\n`,
        ),
        options.image,
        Buffer.from('\nendstream'),
      ]),
    );
  const encryptRef = options.encrypt ? `${objects.push(Buffer.from(options.encrypt))} 0 R` : '';
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')]);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encryptRef ? ` /Encrypt ${encryptRef} /ID [<${'ab'.repeat(16)}> <${'ab'.repeat(16)}>]` : ''} >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(xref));
  return Buffer.concat(parts);
}

/**
 * A PDF bomb: a small file whose content stream inflates to `inflatedMb` MB, on a page tree that
 * claims a million pages. Reading it must cost a bounded time off the event loop.
 */
export function makePdfBomb(inflatedMb = 64): Buffer {
  const zeros = deflateSync(Buffer.alloc(inflatedMb * 1024 * 1024, 0x20), { level: 9 });
  const pdf = makePdf('', { content: zeros, filter: 'FlateDecode' });
  return Buffer.from(pdf.toString('latin1').replace('/Count 1 ', '/Count 1000000 '), 'latin1');
}

/**
 * A zlib stream of `inflatedMb` MB of zero bytes, made without holding them: one MB compressed with a
 * full flush ends byte-aligned and independent of what came before, so the same bytes repeated are a
 * valid stream of that many MB (about 1 KB each). Ends with an empty final block and the Adler-32 of
 * n zero bytes (a = 1, b = n mod 65521).
 */
export function zerosDeflated(inflatedMb: number): Buffer {
  const mb = 1024 * 1024;
  const block = deflateRawSync(Buffer.alloc(mb), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const total = inflatedMb * mb;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((total % 65521) << 16) | 1) >>> 0);
  const chunks: Buffer[] = [Buffer.from([0x78, 0xda])];
  for (let i = 0; i < inflatedMb; i++) chunks.push(block);
  // A final stored block of length 0: BFINAL=1, BTYPE=00, aligned, LEN=0, NLEN=0xffff.
  chunks.push(Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]), adler);
  return Buffer.concat(chunks);
}

/**
 * The issue's bomb: a one-page PDF of about 1 MB whose content stream inflates to `inflatedMb` MB
 * (1 GB by default) of zero bytes, which a PDF lexer reads as whitespace to the end.
 */
export function makeGigabytePdfBomb(inflatedMb = 1024): Buffer {
  return makePdf('', { content: zerosDeflated(inflatedMb), filter: 'FlateDecode' });
}

/**
 * A PDF protected by a user password nobody here knows (standard security handler, RC4 40-bit):
 * a reader can open it only by asking for the password.
 */
export function makeEncryptedPdf(): Buffer {
  const hex = (byte: string) => byte.repeat(32);
  return makePdf('secret plans', {
    encrypt: `<< /Filter /Standard /V 1 /R 2 /Length 40 /O <${hex('5c')}> /U <${hex('a7')}> /P -44 >>`,
  });
}

/** A zip archive's first bytes, under whatever name the test gives it. */
export function zipBytes(): Buffer {
  return Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 1)]);
}

/** A PNG signature followed by garbage: the header lies. */
export function brokenPng(): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(300, 7)]);
}

export interface ElsewhereServer {
  url: string;
  /** Every request that reached it, with its Authorization header. */
  hits: { path: string; authorization?: string }[];
  close(): Promise<void>;
}

/** A host that is not the platform's: anything reaching it is a failure of the host checks. */
export async function startElsewhere(): Promise<ElsewhereServer> {
  const hits: ElsewhereServer['hits'] = [];
  const server = createServer((req: IncomingMessage, res) => {
    hits.push({
      path: req.url ?? '',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end('not really');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The user-role texts of a chat.completions request body. */
// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
export function userContents(body: any): unknown[] {
  return body.messages
    .filter((m: { role: string }) => m.role === 'user')
    .map((m: { content: unknown }) => m.content);
}

/** All text of a request body, for "did it reach the model" checks. */
export function allText(body: unknown): string {
  return JSON.stringify(body);
}
