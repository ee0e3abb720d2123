// One canvas per pool, one bar per node: a canvas stays fast at 1,000 nodes
// where a DOM element per node would not. Colours come from JupyterLab's CSS
// variables, so the drawing follows the light and dark themes.
import { INodeView, IPoolView } from './view.js';

const GAP = 2;

/** Bars are wider while a pool is small, and thin enough for 1,000 nodes in a row or two. */
export function barWidth(count: number): number {
  return count <= 40 ? 14 : 7;
}
const HEIGHT = 28;

interface IPalette {
  empty: string;
  used: string;
  added: string;
  over: string;
  cordoned: string;
  newNode: string;
}

function palette(element: HTMLElement): IPalette {
  const style = getComputedStyle(element);
  const v = (name: string, fallback: string) =>
    style.getPropertyValue(name).trim() || fallback;
  return {
    empty: v('--jp-layout-color3', '#ccc'),
    used: v('--jp-ui-font-color2', '#777'),
    added: v('--jp-brand-color1', '#1976d2'),
    over: v('--jp-error-color1', '#d32f2f'),
    cordoned: v('--jp-layout-color4', '#999'),
    newNode: v('--jp-success-color1', '#388e3c')
  };
}

/** Draws `pool` into `canvas`, wrapping bars to the canvas's CSS width. */
export function drawPool(canvas: HTMLCanvasElement, pool: IPoolView): void {
  const count = pool.nodes.length + pool.adds;
  const BAR = barWidth(count);
  const width = Math.max(canvas.clientWidth || 240, BAR + GAP);
  const perRow = Math.max(1, Math.floor((width + GAP) / (BAR + GAP)));
  const rows = count ? Math.ceil(count / perRow) : 0;
  const ratio = window.devicePixelRatio || 1;
  const height = rows * (HEIGHT + GAP);
  canvas.style.height = `${height}px`;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  const colours = palette(canvas);
  const bar = (i: number, draw: (x: number, y: number) => void) => {
    draw((i % perRow) * (BAR + GAP), Math.floor(i / perRow) * (HEIGHT + GAP));
  };
  const fill = (
    x: number,
    y: number,
    from: number,
    to: number,
    colour: string
  ) => {
    const a = Math.min(from, 1);
    const b = Math.min(to, 1);
    if (b <= a) return;
    ctx.fillStyle = colour;
    ctx.fillRect(x, y + HEIGHT * (1 - b), BAR, HEIGHT * (b - a));
  };
  pool.nodes.forEach((n: INodeView, i: number) =>
    bar(i, (x, y) => {
      ctx.fillStyle = n.cordoned || !n.ready ? colours.cordoned : colours.empty;
      ctx.fillRect(x, y, BAR, HEIGHT);
      fill(x, y, 0, n.before, colours.used);
      fill(x, y, n.before, n.after, n.after > 1 ? colours.over : colours.added);
    })
  );
  for (let k = 0; k < pool.adds; ++k) {
    bar(pool.nodes.length + k, (x, y) => {
      ctx.strokeStyle = colours.newNode;
      ctx.setLineDash([2, 2]);
      ctx.strokeRect(x + 0.5, y + 0.5, BAR - 1, HEIGHT - 1);
      ctx.setLineDash([]);
    });
  }
}

/** The node under a point of the canvas, for its tooltip. */
export function nodeAt(
  canvas: HTMLCanvasElement,
  pool: IPoolView,
  x: number,
  y: number
): INodeView | 'new' | null {
  const BAR = barWidth(pool.nodes.length + pool.adds);
  const width = Math.max(canvas.clientWidth || 240, BAR + GAP);
  const perRow = Math.max(1, Math.floor((width + GAP) / (BAR + GAP)));
  const i =
    Math.floor(y / (HEIGHT + GAP)) * perRow + Math.floor(x / (BAR + GAP));
  if (i < pool.nodes.length) return pool.nodes[i];
  return i < pool.nodes.length + pool.adds ? 'new' : null;
}
