/**
 * 512 KB pages built to hurt an HTML-to-text converter (the attack kinds), shared by the
 * conversion test and the `npm run bench` HTML scenario.
 */
export const HOSTILE_PAGE_BYTES = 512 * 1024;

function fill(unit: string, prefix = ''): string {
  const body = unit.repeat(Math.ceil((HOSTILE_PAGE_BYTES - prefix.length) / unit.length));
  return (prefix + body).slice(0, HOSTILE_PAGE_BYTES);
}

export const HOSTILE_PAGES: Record<string, string> = {
  'runs of <': fill('<'),
  'unclosed comment': fill('a-', '<!--'),
  'unclosed script': fill('x<', '<html><body><p>Before</p><script>'),
  'deeply nested tags': fill('<div><span>'),
  'nested, then stray closes':
    fill('<b>').slice(0, HOSTILE_PAGE_BYTES / 2) + fill('</x>').slice(0, HOSTILE_PAGE_BYTES / 2),
  'attribute storm': fill(' a="b"', '<div'),
  'unquoted attribute storm': fill(' a=b', '<p'),
  'entity storm': fill('&amp;&#x41;&lt;&'),
  'CDATA markers': fill('<![CDATA[ x'),
};

/** An ordinary article of the same size, for the throughput baseline. */
export const NORMAL_PAGE = fill(
  '<section><h2>Heading</h2><p>Some <b>ordinary</b> text with a <a href="/x?a=1&amp;b=2">link</a> and an entity &mdash; fine.</p><ul><li>one</li><li>two</li></ul></section>\n',
  '<!doctype html><html><head><title>An article</title><style>p{margin:0}</style></head><body>',
);
