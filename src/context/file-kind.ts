/**
 * What kind of attachment a file is, from its platform MIME type and name. The bytes are checked
 * again later (an image is decoded by sharp, a PDF needs its header, text must not be binary): a
 * name or a type is a claim, not a fact.
 */
import type { AttachmentRef } from './types.js';

export type FileKind = 'image' | 'pdf' | 'text' | 'other';

const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);
const TEXT_EXTENSIONS = new Set([
  'txt',
  'text',
  'md',
  'markdown',
  'rst',
  'csv',
  'tsv',
  'json',
  'jsonl',
  'ndjson',
  'log',
  'yaml',
  'yml',
  'toml',
  'ini',
  'cfg',
  'conf',
  'env',
  'xml',
  'html',
  'htm',
  'css',
  'scss',
  'sql',
  'graphql',
  'proto',
  'ts',
  'tsx',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'py',
  'rb',
  'go',
  'rs',
  'java',
  'kt',
  'kts',
  'scala',
  'swift',
  'c',
  'h',
  'cc',
  'cpp',
  'hpp',
  'cs',
  'php',
  'pl',
  'lua',
  'r',
  'sh',
  'bash',
  'zsh',
  'ps1',
  'bat',
  'diff',
  'patch',
  'tf',
  'hcl',
  'dockerfile',
  'makefile',
  'gradle',
  'vue',
  'svelte',
  'tex',
  'srt',
  'vtt',
]);
const TEXT_MIME =
  /^(text\/|application\/(json|x-ndjson|xml|yaml|x-yaml|javascript|typescript|x-sh|sql|toml))/;

export function extensionOf(name: string): string {
  const base = name.toLowerCase().split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot >= 0 ? base.slice(dot + 1) : base;
}

export function fileKind(file: Pick<AttachmentRef, 'name' | 'mimeType'>): FileKind {
  const ext = extensionOf(file.name);
  const mime = (file.mimeType ?? '').toLowerCase();
  if (ext === 'pdf' || mime === 'application/pdf') return 'pdf';
  if (IMAGE_EXTENSIONS.has(ext) || /^image\/(png|jpe?g|gif|webp)$/.test(mime)) return 'image';
  if (TEXT_EXTENSIONS.has(ext) || TEXT_MIME.test(mime)) return 'text';
  return 'other';
}

/** UTF-8 text of a file, or undefined when the bytes are binary (a NUL byte in the first 8 KB). */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}
