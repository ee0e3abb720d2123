// The pools of an answer: a box per pool with its figures (kept in data-*
// attributes for tests and tools too), and a canvas with a bar per node that
// says its fill before and after the new workers when the pointer is on it.
import { el } from './dom.js';
import { drawPool, nodeAt } from './draw.js';
import { formatWait } from './quantity.js';
import { IPoolView } from './view.js';

export function poolElement(pool: IPoolView): HTMLElement {
  const box = el('div', 'tp-pool');
  box.dataset.pool = pool.name;
  box.dataset.workers = String(pool.workers);
  box.dataset.adds = String(pool.adds);
  box.dataset.addedWorkers = String(pool.addedWorkers);
  const title = el('div', 'tp-pool-title');
  const name = el('strong', '', pool.name);
  const facts = [
    `${pool.nodes.length} ${pool.nodes.length === 1 ? 'node' : 'nodes'}`
  ];
  if (pool.preemptible) facts.push('preemptible');
  if (pool.workers) facts.push(`${pool.workers} workers now`);
  if (pool.adds)
    facts.push(
      `+${pool.adds} nodes for ${pool.addedWorkers} workers, ready in ${formatWait(pool.readyInSeconds ?? 0)}`
    );
  if (pool.atMaxSize) facts.push(`at max size ${pool.maxSize ?? ''}`.trim());
  title.append(name, el('span', 'tp-pool-facts', facts.join(' · ')));
  const canvas = el('canvas', 'tp-pool-nodes');
  canvas.setAttribute('role', 'img');
  const busy = pool.nodes.filter(n => n.workers > 0);
  canvas.setAttribute(
    'aria-label',
    `${pool.name}: ${pool.nodes.length} nodes; new workers on ${busy.map(n => `${n.name} (${n.workers})`).join(', ') || 'none'}`
  );
  canvas.addEventListener('mousemove', e => {
    const hit = nodeAt(canvas, pool, e.offsetX, e.offsetY);
    if (hit === 'new')
      canvas.title = `a node cluster-autoscaler adds to ${pool.name}`;
    else if (hit)
      canvas.title = `${hit.name}: ${Math.round(hit.before * 100)}% → ${Math.round(hit.after * 100)}% requested${hit.workers ? `, ${hit.workers} new workers` : ''}${hit.cordoned ? ', cordoned' : ''}`;
    else canvas.title = '';
  });
  box.append(title, canvas);
  return box;
}

/**
 * The last pools rendered, whose canvases are painted at the width they have
 * in the page: redraw() once they are in it, and whenever that width changes.
 */
export class PoolsView {
  private drawn: [HTMLCanvasElement, IPoolView][] = [];

  /** The pools' boxes, in order, for the caller to put in the page. */
  render(pools: IPoolView[]): HTMLElement[] {
    const boxes = pools.map(poolElement);
    this.drawn = boxes.map((box, i) => [
      box.querySelector('canvas.tp-pool-nodes')!,
      pools[i]
    ]);
    return boxes;
  }

  redraw(): void {
    for (const [canvas, pool] of this.drawn) drawPool(canvas, pool);
  }
}
