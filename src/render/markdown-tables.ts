/**
 * Markdown tables as a monospaced code block, for platforms that show table syntax raw (Discord):
 * the columns still line up and nothing is lost. Tables inside code blocks are left alone.
 */
export function tablesAsCode(markdown: string): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === null ? marker : null;
      out.push(line);
      continue;
    }
    const isRow = (l: string | undefined) => l !== undefined && /^\s*\|.*\|\s*$/.test(l);
    const isRule = (l: string | undefined) =>
      l !== undefined && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(l);
    if (fence === null && isRow(line) && isRule(lines[i + 1])) {
      const table: string[] = [];
      while (i < lines.length && (isRow(lines[i]) || isRule(lines[i]))) table.push(lines[i++]!);
      i--;
      out.push('```', ...table, '```');
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
