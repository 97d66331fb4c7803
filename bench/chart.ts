// A hand-written SVG of latency distributions: one horizontal box per tool × mode (box p25–p75, line at the
// median, whiskers min–p99), on a log scale so that sub-millisecond and 100 ms figures fit one chart.
import type { Summary } from './stats.js';

export interface BoxSeries {
  readonly group: string;
  readonly label: string;
  readonly summary: Summary;
}

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#b07aa1', '#edc948', '#9c755f'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Renders the box plots; `title` goes on top. */
export function boxPlotSvg(title: string, series: readonly BoxSeries[]): string {
  const labels = [...new Set(series.map((s) => s.label))];
  const color = (l: string) => COLORS[labels.indexOf(l) % COLORS.length] as string;
  const values = series.flatMap((s) => [s.summary.min, s.summary.p99]).filter((v) => v > 0 && Number.isFinite(v));
  const lo = Math.pow(10, Math.floor(Math.log10(Math.min(...values))));
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...values))));
  const left = 300;
  const width = 1000;
  const plotW = width - left - 30;
  const row = 16;
  const x = (v: number) =>
    left + ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotW;
  const parts: string[] = [];
  let y = 50;
  let group = '';
  for (const s of series) {
    if (s.group !== group) {
      group = s.group;
      y += 10;
      parts.push(`<text x="10" y="${y + 4}" font-weight="bold">${esc(group)}</text>`);
      y += 14;
    }
    const c = color(s.label);
    const m = s.summary;
    parts.push(
      `<text x="${left - 8}" y="${y + 4}" text-anchor="end">${esc(s.label)} (n=${m.n})</text>`,
      `<line x1="${x(m.min)}" x2="${x(m.p99)}" y1="${y}" y2="${y}" stroke="${c}"/>`,
      `<rect x="${x(m.p25)}" y="${y - 5}" width="${Math.max(1, x(m.p75) - x(m.p25))}" height="10" fill="${c}" fill-opacity="0.5" stroke="${c}"/>`,
      `<line x1="${x(m.median)}" x2="${x(m.median)}" y1="${y - 6}" y2="${y + 6}" stroke="#000" stroke-width="2"/>`,
      `<text x="${x(m.p99) + 4}" y="${y + 4}" fill="#555">${m.median} ms</text>`,
    );
    y += row;
  }
  const axis: string[] = [];
  for (let d = lo; d <= hi * 1.0001; d *= 10) {
    axis.push(
      `<line x1="${x(d)}" x2="${x(d)}" y1="40" y2="${y}" stroke="#ddd"/>`,
      `<text x="${x(d)}" y="${y + 16}" text-anchor="middle">${d >= 1 ? d : d.toPrecision(1)} ms</text>`,
    );
  }
  const height = y + 30;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`,
    `<text x="10" y="36" fill="#555">box: p25–p75, black line: median, whisker: min–p99, log scale</text>`,
    ...axis,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
