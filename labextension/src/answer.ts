// The answer to "where will my workers land?" in words and bars: how many fit
// now, which pools cluster-autoscaler grows and when they are ready, what the
// API server changed, the warnings, the pools, and the workers that never run
// with kube-scheduler's message and the fixes. From the engine's answer alone,
// so that it can be drawn wherever that answer is.
import type { ClusterSummary, Placement } from '@tightpack/wasm';
import { admissionNotes, fixes, warnings } from './advice.js';
import { el } from './dom.js';
import { workerContainer } from './pod.js';
import { PoolsView } from './pools.js';
import { formatWait } from './quantity.js';
import { IPod, ITemplateClaim, IWorkerTemplate } from './types.js';
import { answerView } from './view.js';

export interface IAnswer {
  summary: ClusterSummary;
  placement: Placement;
  /** The pod placed, as the user would create it. */
  pod: IPod;
  /** Where its template comes from: a profile's pod is a notebook server. */
  source?: IWorkerTemplate['source'];
  /** The claims the pod mounts, as the server extension describes them. */
  claims?: ITemplateClaim[];
}

export class AnswerView {
  readonly node = el('section', 'tp-answer');
  private readonly pools = new PoolsView();

  /** Shows `answer`; the pools' bars are painted if the view is in the page. */
  draw(answer: IAnswer): void {
    this.node.classList.remove('tp-stale');
    this.node.replaceChildren(...this.elements(answer));
    this.redraw();
  }

  /** Greys the answer out: it is not for what the form now says. */
  markStale(): void {
    this.node.classList.add('tp-stale');
  }

  /** Paints the pools' bars again, at the width they now have. */
  redraw(): void {
    this.pools.redraw();
  }

  private elements({
    summary,
    placement: p,
    pod,
    source,
    claims
  }: IAnswer): HTMLElement[] {
    const requests = workerContainer(pod)?.resources?.requests ?? {};
    const view = answerView(summary, p, requests);
    const children: HTMLElement[] = [];

    // A profile's pod is the user's notebook server, usually one.
    const notebook = source === 'profile' && p.replicas === 1;
    const headline = el('p', 'tp-headline');
    if (notebook)
      headline.textContent = view.placedNow
        ? 'Your notebook server fits without any scale-up.'
        : 'Your notebook server fits on no node now.';
    else if (view.placedNow === p.replicas)
      headline.textContent = `All ${p.replicas} workers fit without any scale-up.`;
    else
      headline.textContent = `${view.placedNow} of ${p.replicas} workers fit without any scale-up.`;
    headline.dataset.placed = String(view.placedNow);
    children.push(headline);

    if (view.placedAfterScaleUp > 0) {
      const grow = el('p', 'tp-grow');
      const waits = view.pools
        .filter(x => x.adds > 0)
        .map(
          x => `${x.name} +${x.adds} (${formatWait(x.readyInSeconds ?? 0)})`
        );
      grow.textContent = notebook
        ? `It starts after cluster-autoscaler adds a node: ${waits.join(', ')}.`
        : `${view.placedAfterScaleUp} more after cluster-autoscaler adds nodes: ${waits.join(', ')}.`;
      children.push(grow);
    }

    const admitted = admissionNotes(p.admission);
    if (admitted.length)
      children.push(
        el('p', 'tp-admission', `The API server ${admitted.join('; ')}.`)
      );

    const warned = warnings(p, pod, source);
    if (warned.length) {
      const list = el('ul', 'tp-warnings');
      for (const w of warned) {
        const li = el('li', `tp-warning tp-warning-${w.kind}`, w.text);
        list.append(li);
      }
      children.push(list);
    }

    children.push(
      el(
        'p',
        'tp-legend',
        'Each bar is a node: grey is requested today, blue your new workers, red over capacity, dashed a node cluster-autoscaler adds.'
      )
    );
    children.push(...this.pools.render(view.pools));

    if (view.never > 0 || (p.unschedulable && !p.scaleUp)) {
      const never = el('div', 'tp-never');
      const count = p.scaleUp ? view.never : p.replicas - p.placed;
      never.dataset.count = String(count);
      // Pending, not failed: kube-scheduler tries again as the cluster changes.
      never.append(
        el(
          'h3',
          '',
          notebook
            ? 'Your notebook server waits: it stays Pending'
            : `${count} workers will never run`
        )
      );
      if (p.unschedulable)
        never.append(el('p', 'tp-message', p.unschedulable.message));
      for (const u of p.scaleUp?.unplaced ?? [])
        never.append(el('p', 'tp-reason', `Node pools: ${u.reason}`));
      const fixed = fixes(summary, p, pod, claims ?? []);
      if (fixed.length) {
        const list = el('ul', 'tp-fixes');
        for (const f of fixed) list.append(el('li', '', f));
        never.append(el('p', '', 'To fix:'), list);
      }
      children.push(never);
    }
    return children;
  }
}
