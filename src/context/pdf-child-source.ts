/**
 * The program a PDF is read in (pdf-text.ts runs it as its own `node -e` process). Plain CommonJS in
 * a string, so it runs the same from the bundle, compiled JS, tsx and vitest, with no file to find.
 *
 * The process's heap limit does not cover ArrayBuffers, and pdf.js decodes a stream into one typed
 * array that it doubles as it goes: a 1 MB bomb became a 1 GB buffer. So, before pdf.js loads, every
 * typed-array and ArrayBuffer constructor is wrapped: one larger than SCOUT_PDF's `maxArray`, or all
 * of them together past `maxAllocated`, throws, and the reading stops with 'too-much-memory' at the
 * next page (native decompression, which would bypass this, is taken away). The parent also watches this process's resident memory and kills it past a cap, for
 * whatever gets around these counters.
 *
 * Protocol: the parent writes the file to stdin (a pipe: no serialization blocking its event loop);
 * this process answers one PdfResult IPC message and exits. pdf.js prints warnings on stdout, which
 * the parent ignores.
 */
export const PDF_CHILD_SOURCE = String.raw`
'use strict';
const limits = JSON.parse(process.env.SCOUT_PDF);
let allocated = 0;
let maxArray = limits.maxArray;
let overBudget = false;
const OriginalArrayBuffer = ArrayBuffer;
for (const name of ['ArrayBuffer', 'SharedArrayBuffer', 'Uint8Array', 'Uint8ClampedArray', 'Int8Array',
  'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float32Array', 'Float64Array',
  'BigInt64Array', 'BigUint64Array']) {
  const Original = globalThis[name];
  if (typeof Original !== 'function') continue;
  const unit = Original.BYTES_PER_ELEMENT || 1;
  globalThis[name] = new Proxy(Original, {
    construct(target, args, newTarget) {
      const first = args[0];
      // A number allocates; an array or typed array is copied; a view over a buffer allocates nothing.
      const bytes = typeof first === 'number' ? first * unit
        : first && typeof first === 'object' && !(first instanceof OriginalArrayBuffer) && typeof first.length === 'number'
          ? first.length * unit : 0;
      allocated += bytes;
      if (bytes > maxArray || allocated > limits.maxAllocated) {
        overBudget = true;
        throw new RangeError('PDF allocation over budget');
      }
      return Reflect.construct(target, args, newTarget);
    },
  });
}

// pdf.js inflates with the native DecompressionStream when there is one, into buffers no counter
// sees (1 GB from a 1 MB file); without it, it falls back to its own decoder, whose buffers are
// the typed arrays counted above.
delete globalThis.DecompressionStream;

const send = (result) => process.send(result, () => process.exit(0));
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => read(Buffer.concat(chunks)));

async function read(bytes) {
  try {
    // The document's own bytes may be copied once by pdf.js: that copy is allowed whatever its size.
    maxArray = Math.max(maxArray, bytes.byteLength);
    const { getDocumentProxy } = require(limits.unpdf);
    // pdf.js refuses a Buffer: a plain view of the same memory.
    const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const pdf = await getDocumentProxy(data, {
      isEvalSupported: false,
      stopAtErrors: false,
      disableFontFace: true,
      useSystemFonts: false,
      maxImageSize: 0,
    });
    const pages = pdf.numPages;
    const pagesRead = Math.min(pages, limits.maxPages);
    const parts = [];
    let chars = 0;
    for (let n = 1; n <= pagesRead && chars < limits.maxChars; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      if (overBudget) return send({ ok: false, reason: 'too-much-memory' });
      const text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
      parts.push(text);
      chars += text.length;
      page.cleanup();
    }
    if (overBudget) return send({ ok: false, reason: 'too-much-memory' });
    // The document's own title and author (its Info dictionary), for References and fetch_url.
    const info = await pdf.getMetadata().then((m) => m && m.info, () => undefined);
    const field = (value) => (typeof value === 'string' && value.trim() ? value.trim().slice(0, 300) : undefined);
    await pdf.destroy();
    send({ ok: true, text: parts.join('\n\n').slice(0, limits.maxChars), pages, pagesRead,
      title: field(info && info.Title), author: field(info && info.Author) });
  } catch (err) {
    const reason = overBudget ? 'too-much-memory'
      : err && err.name === 'PasswordException' ? 'encrypted' : 'unreadable';
    send({ ok: false, reason });
  }
}
`;
