// "If workers leave": which nodes cluster-autoscaler removes once the pods a
// selector matches are gone, and what keeps each other node.
import type {
  Cluster,
  Forecast,
  ForecastRequest,
  Result
} from '@tightpack/wasm';
import { el, labelled, plural } from './dom.js';

/**
 * The engine's forecast for `request` with pods' ages judged now, by the
 * browser's clock (the engine reads none): cluster-autoscaler lets
 * kube-system pods go an hour after their creation.
 */
export function forecastNow(
  cluster: Cluster,
  request: ForecastRequest
): Result<Forecast> {
  return cluster.forecast({ ...request, now: new Date().toISOString() });
}

export function forecastElement(f: Forecast): HTMLElement {
  const box = el('div');
  const removable = f.nodes.filter(n => n.removable);
  box.append(
    el(
      'p',
      'tp-forecast-summary',
      `${f.summary.removable} of ${f.summary.nodes} nodes can be removed after ${f.unneededTime} unneeded` +
        (f.removedPods
          ? ` (with ${plural(f.removedPods.length, 'pod')} taken away)`
          : '') +
        '.'
    )
  );
  if (removable.length)
    box.append(
      el('p', '', `Removed: ${removable.map(n => n.node).join(', ')}`)
    );
  const kept = el('ul', 'tp-forecast-kept');
  for (const n of f.nodes.filter(
    x => !x.removable && x.reason !== 'NotUnderutilized'
  )) {
    kept.append(
      el('li', '', `${n.node}: ${n.message}${n.fix ? ` — ${n.fix}` : ''}`)
    );
  }
  const busy = f.nodes.filter(x => x.reason === 'NotUnderutilized').length;
  if (busy)
    kept.append(
      el(
        'li',
        '',
        `${busy} nodes stay because they are busy enough (${f.nodes.find(x => x.reason === 'NotUnderutilized')?.message ?? ''})`
      )
    );
  box.append(kept);
  for (const note of f.notes) box.append(el('p', 'tp-note', note));
  return box;
}

export class ForecastView {
  readonly node = el('section', 'tp-scale-down');
  private readonly remove = el('input', 'jp-mod-styled tp-forecast-remove');
  private readonly run = el('button', 'jp-Button tp-forecast-run', 'Forecast');
  private readonly result = el('div', 'tp-forecast');

  /** `cluster`: the loaded cluster when the user asks, null before one is. */
  constructor(private readonly cluster: () => Cluster | null) {
    this.node.append(el('h3', '', 'If workers leave: scale-down'));
    this.remove.placeholder =
      'pods to take away, e.g. dask.org/cluster-name=mine';
    const row = el('div', 'tp-row');
    row.append(labelled('Remove pods matching', this.remove), this.run);
    this.node.append(row, this.result);
    this.run.addEventListener('click', () => this.forecast());
    this.remove.addEventListener('keydown', e => {
      if (e.key === 'Enter') this.forecast();
    });
  }

  /**
   * A removal asked elsewhere (a notebook's preview of a shrink): named pods
   * or Deployments, which the selector box cannot hold.
   */
  ask(request: ForecastRequest, label: string): void {
    this.remove.value = '';
    this.show(
      request,
      `If the workers of ${label} that scale() retires leave:`
    );
  }

  private forecast(): void {
    const remove = this.remove.value.trim();
    this.show(remove ? { remove } : {}, null);
  }

  private show(request: ForecastRequest, heading: string | null): void {
    const cluster = this.cluster();
    if (!cluster) return;
    const r = forecastNow(cluster, request);
    this.result.replaceChildren();
    if (heading) this.result.append(el('p', 'tp-forecast-asked', heading));
    if (!r.ok) {
      this.result.append(el('p', 'tp-error', r.error));
      return;
    }
    this.result.append(forecastElement(r.value));
    this.node.scrollIntoView?.({ block: 'nearest' });
  }
}
