/**
 * Spend per day as a bar chart: an SVG drawn here, turned into a PNG by sharp (libvips, already used
 * for images in src/context). sharp is loaded on the first chart, not at start-up. The few labels
 * are digits and dates, which any fallback font draws.
 */
import { formatUsd } from './format.js';

const WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 64, right: 16, top: 16, bottom: 32 };

let sharpModule: Promise<typeof import('sharp')> | undefined;

export interface ChartLabels {
  unit: 'usd' | 'tokens';
  /** ISO dates of the first and the last bar. */
  from: string;
  to: string;
}

/** The SVG alone (tests read its bars; the PNG is made from it). */
export function spendChartSvg(values: readonly number[], labels: ChartLabels): string {
  const max = Math.max(0, ...values);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, values.length);
  const bars = values
    .map((v, i) => {
      const h = max > 0 ? Math.max(v > 0 ? 1 : 0, (v / max) * plotH) : 0;
      const x = PAD.left + i * slot + slot * 0.15;
      const y = PAD.top + plotH - h;
      return `<rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="#4f7cff"/>`;
    })
    .join('');
  const top = labels.unit === 'usd' ? formatUsd(max) : `${Math.round(max)} tok`;
  const text = (x: number, y: number, anchor: string, s: string) =>
    `<text x="${x}" y="${y}" font-family="sans-serif" font-size="12" fill="#444" text-anchor="${anchor}">${escapeXml(s)}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${WIDTH - PAD.right}" y2="${PAD.top + plotH}" stroke="#999"/>`,
    `<line x1="${PAD.left}" y1="${PAD.top}" x2="${WIDTH - PAD.right}" y2="${PAD.top}" stroke="#ddd"/>`,
    bars,
    text(PAD.left - 6, PAD.top + 4, 'end', top),
    text(PAD.left - 6, PAD.top + plotH + 4, 'end', '0'),
    text(PAD.left, HEIGHT - 10, 'start', labels.from),
    text(WIDTH - PAD.right, HEIGHT - 10, 'end', labels.to),
    '</svg>',
  ].join('');
}

export async function renderSpendChart(values: readonly number[], labels: ChartLabels): Promise<Buffer> {
  sharpModule ??= import('sharp');
  const sharp = (await sharpModule).default;
  return sharp(Buffer.from(spendChartSvg(values, labels)))
    .png()
    .toBuffer();
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);
}
