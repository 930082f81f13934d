/**
 * The soak's plot: one small chart per series against minutes, the warm-up
 * shaded, as an SVG (pure, so it can be checked) and as a PNG rendered by
 * Debian's Chromium through playwright-core.
 */
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../mcp-servers/browser/chromium.js';
import type { SoakPlan, SoakSample, SoakTurn } from '../../test/support/soak-figures.js';

interface Point {
  x: number;
  y: number;
}

interface Panel {
  title: string;
  points: Point[];
  /** A horizontal line at the goal, where there is one. */
  goal?: number;
  dots?: boolean;
}

const PANEL_W = 460;
const PANEL_H = 200;
const MARGIN = { left: 56, right: 16, top: 28, bottom: 30 };
const COLUMNS = 2;

export function soakPanels(samples: readonly SoakSample[], turns: readonly SoakTurn[]): Panel[] {
  const at = (s: { atS: number }): number => s.atS / 60;
  return [
    { title: 'RSS (MiB)', points: samples.map((s) => ({ x: at(s), y: s.rssBytes / 2 ** 20 })) },
    { title: 'V8 heap used (MiB)', points: samples.map((s) => ({ x: at(s), y: s.heapUsedBytes / 2 ** 20 })) },
    { title: 'open descriptors', points: samples.map((s) => ({ x: at(s), y: s.fds })) },
    { title: 'child processes', points: samples.map((s) => ({ x: at(s), y: s.children })) },
    { title: 'event-loop delay p99 (ms), goal 10', points: samples.map((s) => ({ x: at(s), y: s.loopDelayP99Ms })), goal: 10 },
    { title: 'turn latency, end of speech to first sound (ms)', points: turns.map((t) => ({ x: at(t), y: t.latencyMs })), dots: true },
  ];
}

export function soakSvg(samples: readonly SoakSample[], turns: readonly SoakTurn[], plan: SoakPlan, title: string): string {
  const panels = soakPanels(samples, turns);
  const rows = Math.ceil(panels.length / COLUMNS);
  const width = PANEL_W * COLUMNS;
  const height = PANEL_H * rows + 30;
  const xMax = Math.max(plan.durationS / 60, ...panels.flatMap((p) => p.points.map((q) => q.x)));
  const body = panels.map((panel, i) => drawPanel(panel, (i % COLUMNS) * PANEL_W, 30 + Math.floor(i / COLUMNS) * PANEL_H, xMax, plan.warmUpS / 60)).join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(title)}</text>`,
    body,
    '</svg>',
  ].join('\n');
}

function drawPanel(panel: Panel, left: number, top: number, xMax: number, warmUpMin: number): string {
  const w = PANEL_W - MARGIN.left - MARGIN.right;
  const h = PANEL_H - MARGIN.top - MARGIN.bottom;
  const ys = panel.points.map((p) => p.y);
  const [yMin, yMax] = yRange(panel.goal === undefined ? ys : [...ys, panel.goal]);
  const sx = (x: number): number => left + MARGIN.left + (x / xMax) * w;
  const sy = (y: number): number => top + MARGIN.top + h - ((y - yMin) / (yMax - yMin)) * h;
  const parts = [
    `<text x="${left + MARGIN.left}" y="${top + 18}" font-size="12">${escapeXml(panel.title)}</text>`,
    `<rect x="${sx(0)}" y="${top + MARGIN.top}" width="${sx(warmUpMin) - sx(0)}" height="${h}" fill="#eee"/>`,
    `<rect x="${sx(0)}" y="${top + MARGIN.top}" width="${w}" height="${h}" fill="none" stroke="#999"/>`,
  ];
  for (const y of [yMin, (yMin + yMax) / 2, yMax]) parts.push(`<text x="${sx(0) - 4}" y="${sy(y) + 4}" text-anchor="end">${label(y)}</text>`);
  for (const x of ticks(xMax)) parts.push(`<text x="${sx(x)}" y="${top + MARGIN.top + h + 14}" text-anchor="middle">${label(x)}</text>`);
  parts.push(`<text x="${sx(xMax)}" y="${top + MARGIN.top + h + 26}" text-anchor="end">minutes</text>`);
  if (panel.goal !== undefined) parts.push(`<line x1="${sx(0)}" x2="${sx(xMax)}" y1="${sy(panel.goal)}" y2="${sy(panel.goal)}" stroke="#c33" stroke-dasharray="4 3"/>`);
  if (panel.dots) for (const p of panel.points) parts.push(`<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="1.8" fill="#2a6"/>`);
  else if (panel.points.length > 0) parts.push(`<polyline fill="none" stroke="#25c" stroke-width="1.5" points="${panel.points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ')}"/>`);
  return parts.join('\n');
}

/** From zero when the values sit near it (counts, delays), else around them; never an empty range. */
function yRange(values: readonly number[]): [number, number] {
  if (values.length === 0) return [0, 1];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const from = lo < (hi - lo) * 2 ? 0 : lo - (hi - lo) * 0.2;
  const to = hi === from ? from + 1 : hi + (hi - from) * 0.1;
  return [from, to];
}

function ticks(max: number): number[] {
  const step = [1, 2, 5, 10, 15, 30].find((s) => max / s <= 8) ?? 60;
  const out: number[] = [];
  for (let x = 0; x <= max + 1e-9; x += step) out.push(x);
  return out;
}

function label(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : Number(value.toPrecision(3)).toString();
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The SVG as a PNG of its own size, by Chromium (CHROMIUM_PATH, else Debian's /usr/bin/chromium). */
export async function renderPng(svg: string, pngPath: string): Promise<void> {
  const size = /width="(\d+)" height="(\d+)"/.exec(svg);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
  try {
    const page = await browser.newPage({ viewport: { width: Number(size?.[1] ?? 920), height: Number(size?.[2] ?? 640) } });
    await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
    await page.screenshot({ path: pngPath, fullPage: true });
  } finally {
    await browser.close();
  }
}
