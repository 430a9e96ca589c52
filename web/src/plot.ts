// A small SVG line chart: time on x, one or more series on y (linear or log scale).

import { clock } from './common';
export interface Series {
  name: string;
  color: string;
  points: [number, number][];
}

const NS = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function timeLabel(ms: number, span: number): string {
  // The pages' one clock format (HH:MM:SS), with the date when the plot spans days.
  const d = new Date(ms);
  return span > 2 * 86400e3 ? `${d.getMonth() + 1}/${d.getDate()} ${clock(ms)}` : clock(ms);
}

function short(v: number): string {
  if (v >= 1e9) return `${(v / 1e9).toFixed(v >= 1e10 ? 0 : 1)}G`;
  if (v >= 1e6) return `${(v / 1e6).toFixed(v >= 1e7 ? 0 : 1)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(v >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(v * 100) / 100);
}

/** Draws the series into `box` (replacing what is there). */
export function plot(box: HTMLElement, series: Series[], options: { log?: boolean; empty?: string } = {}): void {
  const width = 640;
  const height = 240;
  const m = { l: 52, r: 12, t: 10, b: 26 };
  const all = series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y) && (!options.log || y > 0));
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none', role: 'img' });
  if (all.length === 0) {
    const t = svg('text', { x: width / 2, y: height / 2, 'text-anchor': 'middle' });
    t.textContent = options.empty ?? 'no data yet';
    root.append(t);
    box.replaceChildren(root, legend(series));
    return;
  }
  let [x0, x1] = [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))];
  if (x1 - x0 < 100) x1 = x0 + 100;
  const f = options.log ? (v: number) => Math.log10(v) : (v: number) => v;
  let y0 = Math.min(...all.map((p) => f(p[1])));
  let y1 = Math.max(...all.map((p) => f(p[1])));
  if (!options.log) y0 = Math.min(0, y0);
  if (y1 - y0 < 1e-9) y1 = y0 + 1;
  if (options.log) {
    y0 = Math.floor(y0);
    y1 = Math.ceil(y1 + 1e-9);
  }
  const X = (x: number) => m.l + ((x - x0) / (x1 - x0)) * (width - m.l - m.r);
  const Y = (y: number) => height - m.b - ((f(y) - y0) / (y1 - y0)) * (height - m.t - m.b);
  // Grid and y labels.
  const ticks: number[] = [];
  if (options.log) for (let e = y0; e <= y1; e++) ticks.push(10 ** e);
  else for (let i = 0; i <= 4; i++) ticks.push(y0 + ((y1 - y0) * i) / 4);
  for (const v of ticks) {
    const y = Y(v);
    root.append(svg('line', { x1: m.l, x2: width - m.r, y1: y, y2: y, class: 'grid' }));
    const t = svg('text', { x: m.l - 6, y: y + 4, 'text-anchor': 'end' });
    t.textContent = short(v);
    root.append(t);
  }
  for (let i = 0; i <= 4; i++) {
    const x = x0 + ((x1 - x0) * i) / 4;
    const t = svg('text', { x: X(x), y: height - 8, 'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle' });
    t.textContent = timeLabel(x, x1 - x0);
    root.append(t);
  }
  root.append(svg('line', { x1: m.l, x2: m.l, y1: m.t, y2: height - m.b, class: 'axis' }));
  root.append(svg('line', { x1: m.l, x2: width - m.r, y1: height - m.b, y2: height - m.b, class: 'axis' }));
  for (const s of series) {
    const pts = s.points.filter(([, y]) => Number.isFinite(y) && (!options.log || y > 0));
    if (!pts.length) continue;
    const d = pts.map(([x, y], i) => `${i ? 'L' : 'M'}${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' ');
    root.append(svg('path', { d, fill: 'none', stroke: s.color, 'stroke-width': 2, 'vector-effect': 'non-scaling-stroke' }));
    if (pts.length === 1) root.append(svg('circle', { cx: X(pts[0][0]), cy: Y(pts[0][1]), r: 3, fill: s.color }));
  }
  box.replaceChildren(root, legend(series));
}

function legend(series: Series[]): HTMLElement {
  const div = document.createElement('div');
  div.className = 'legend';
  for (const s of series) {
    const span = document.createElement('span');
    const i = document.createElement('i');
    i.style.background = s.color;
    span.append(i, s.name);
    div.append(span);
  }
  return div;
}
