// The answer to "where will my workers land?", verdict first: how many run
// now, how many after which scale-up and when, how many never, and the one
// fix; then what else can be done, the warnings, why the rest never run, and
// the pools. From the engine's answers alone (its placement, then its
// advice), so that it can be drawn wherever those are.
import type { Advice, ClusterSummary, Fix, Placement } from '@tightpack/wasm';
import {
  admissionNotes,
  fixText,
  INoun,
  nounOf,
  tilingOf,
  tilingShape,
  tilingText,
  volumeFix,
  warnings
} from './advice.js';
import { claimNote, claimsOf, IClaim } from './claims.js';
import { el, plural } from './dom.js';
import { PoolsView } from './pools.js';
import { formatBytes, formatCores, formatWait } from './quantity.js';
import { IPod, ITemplateClaim, IWorkerTemplate } from './types.js';
import { answerView, IAnswerView } from './view.js';

export interface IAnswer {
  summary: ClusterSummary;
  placement: Placement;
  /** The pod placed, as the user would create it. */
  pod: IPod;
  /** Where its template comes from: a profile's pod is a notebook server. */
  source?: IWorkerTemplate['source'];
  /** The template's name: a profile's, for its server's sentences. */
  name?: string;
  /** Whose the claims the pod mounts are, as the server extension knows it. */
  claims?: ITemplateClaim[];
}

/** A change to the pod the user can make from the answer (a fix's, or a shape's). */
export type PodChange = Fix['change'];

function hasPodChange(c: PodChange): boolean {
  return (
    !!c.addTolerations?.length ||
    !!Object.keys(c.addNodeSelector ?? {}).length ||
    !!c.containerRequests ||
    c.replicas !== undefined
  );
}

export class AnswerView {
  readonly node = el('section', 'tp-answer');
  /** Applies a change to the pod: the sidebar puts it into its form. */
  onApply: ((change: PodChange) => void) | null = null;
  private readonly pools = new PoolsView();
  private readonly advice = el('div', 'tp-advice');
  private readonly warned = el('ul', 'tp-warnings');
  private current: IAnswer | null = null;

  /** Shows `answer`; the advice follows with showAdvice(). */
  draw(answer: IAnswer): void {
    this.current = answer;
    this.node.classList.remove('tp-stale');
    this.advice.replaceChildren();
    this.advice.dataset.state = 'pending';
    this.node.replaceChildren(...this.elements(answer));
    this.showWarnings(null);
    this.redraw();
  }

  /**
   * The engine's advice for the answer drawn: the fix, the others folded,
   * and the shape that tiles the node. `error`: advice could not be had
   * (the answer stands without it).
   */
  showAdvice(advice: Advice | null, error = ''): void {
    const a = this.current;
    if (!a) return;
    const noun = this.noun(a);
    const children: HTMLElement[] = [];
    if (advice) {
      const fixes = advice.fixes ?? [];
      if (fixes.length) {
        children.push(
          this.fixLine('tp-fix', 'The fix: ', fixes[0], noun, advice)
        );
        const self = fixes.find(f => !f.byOperator);
        if (fixes[0].byOperator && self)
          children.push(
            this.fixLine(
              'tp-fix-self',
              'Without your operator: ',
              self,
              noun,
              advice
            )
          );
        const rest = fixes.filter(f => f !== fixes[0] && f !== self);
        if (rest.length) {
          const more = el('details', 'tp-more-fixes');
          const items = el('ul');
          for (const f of rest)
            items.append(this.fixLine('', '', f, noun, advice, 'li'));
          more.append(
            el('summary', '', `${plural(rest.length, 'other fix')}`),
            items
          );
          children.push(more);
        }
      }
      const tiled = tilingOf(advice);
      if (tiled) children.push(this.tilingLine(tiled, noun, advice));
    } else if (error) {
      children.push(el('p', 'tp-error tp-advice-error', `No advice: ${error}`));
    }
    this.advice.replaceChildren(...children);
    this.advice.dataset.state = error ? 'failed' : 'drawn';
    this.showWarnings(advice);
  }

  /** Greys the answer out: it is not for what the form now says. */
  markStale(): void {
    this.node.classList.add('tp-stale');
  }

  /** Paints the pools' bars again, at the width they now have. */
  redraw(): void {
    this.pools.redraw();
  }

  private noun(a: IAnswer): INoun {
    return nounOf(a.source);
  }

  private notebook(a: IAnswer): string | null {
    if (a.source !== 'profile' || a.placement.replicas !== 1) return null;
    return a.name ? `Your “${a.name}” server` : 'Your notebook server';
  }

  private fixLine(
    className: string,
    lead: string,
    f: Fix,
    noun: INoun,
    advice: Advice,
    tag: 'p' | 'li' = 'p'
  ): HTMLElement {
    const line = el(tag, className);
    if (lead) line.append(el('strong', '', lead));
    line.append(fixText(f, noun, advice));
    if (hasPodChange(f.change) && this.onApply) {
      const apply = el('button', 'jp-Button tp-apply', 'Apply');
      apply.title = 'Put this change into the form and the code below';
      apply.addEventListener('click', () => this.onApply?.(f.change));
      line.append(' ', apply);
    }
    return line;
  }

  private tilingLine(
    t: Advice['pools'][number],
    noun: INoun,
    advice: Advice
  ): HTMLElement {
    const line = el('p', 'tp-tiling', tilingText(t, noun, advice.asIs));
    line.dataset.pool = t.pool;
    const s = tilingShape(t);
    if (s && this.onApply) {
      const use = el(
        'button',
        'jp-Button tp-apply tp-apply-shape',
        `Use ${Object.entries(s.containerRequests)
          .filter(([r]) => (s.change[r] ?? 0) !== 0)
          .map(([, v]) => v)
          .join(', ')}`
      );
      use.addEventListener('click', () =>
        this.onApply?.({
          requests: s.requests,
          container: s.container,
          containerRequests: s.containerRequests,
          requestChange: s.change,
          perNode: s.perNode
        })
      );
      line.append(' ', use);
    }
    return line;
  }

  private showWarnings(advice: Advice | null): void {
    const a = this.current;
    if (!a) return;
    const items = warnings(a.placement, a.source, advice).map(w => {
      const li = el('li', `tp-warning tp-warning-${w.kind}`);
      if (w.more) {
        const d = el('details');
        d.append(el('summary', '', w.text), el('p', '', w.more));
        li.append(d);
      } else li.textContent = w.text;
      return li;
    });
    this.warned.replaceChildren(...items);
    this.warned.hidden = items.length === 0;
  }

  private headline(
    a: IAnswer,
    view: IAnswerView,
    claims: IClaim[]
  ): HTMLElement[] {
    const p = a.placement;
    const noun = this.noun(a);
    const notebook = this.notebook(a);
    const waits = view.pools
      .filter(x => x.adds > 0)
      .map(x => `${x.name} +${x.adds}, ${formatWait(x.readyInSeconds ?? 0)}`);
    const headline = el('p', 'tp-headline');
    headline.dataset.placed = String(view.placedNow);
    const running = view.placedNow + view.placedAfterScaleUp;
    if (notebook)
      headline.textContent = view.placedNow
        ? `${notebook} fits on a node now.`
        : view.placedAfterScaleUp
          ? `${notebook} starts after cluster-autoscaler adds a node (${waits.join('; ')}).`
          : `${notebook} fits on no node now: it waits, Pending.`;
    else if (view.placedNow === p.replicas)
      headline.textContent = `All ${plural(p.replicas, noun.one)} fit now, without any scale-up.`;
    else if (view.placedAfterScaleUp)
      headline.textContent = `${running} of ${p.replicas} ${noun.many} run: ${view.placedNow} now, ${view.placedAfterScaleUp} after cluster-autoscaler adds nodes (${waits.join('; ')}).`;
    else
      headline.textContent = `${view.placedNow} of ${p.replicas} ${noun.many} fit now.`;
    const out = [headline];
    const never = p.scaleUp ? view.never : p.replicas - p.placed;
    if (never > 0 && !notebook) {
      const reasons = [
        ...new Set((p.scaleUp?.unplaced ?? []).map(u => u.reason))
      ];
      const line = el(
        'p',
        'tp-never',
        `${never} never run${reasons.length ? ` (${reasons.join('; ')})` : ''}.`
      );
      line.dataset.count = String(never);
      out.push(line);
    }
    // A disk in the wrong zone is what keeps these: said first, in full.
    for (const u of p.scaleUp?.unplaced ?? [])
      if (u.blockedByVolumes?.length)
        out.push(el('p', 'tp-volume', volumeFix(u, claims)));
    return out;
  }

  /** Why copies never run, folded: kube-scheduler's message, the pools' reasons, the facts. */
  private why(a: IAnswer, never: number): HTMLElement | null {
    const p = a.placement;
    if (!(never > 0 || (p.unschedulable && !p.scaleUp))) return null;
    const d = el('details', 'tp-why');
    d.append(
      el(
        'summary',
        '',
        'Why, in kube-scheduler’s and cluster-autoscaler’s words'
      )
    );
    if (p.unschedulable)
      d.append(el('p', 'tp-message', p.unschedulable.message));
    for (const u of p.scaleUp?.unplaced ?? [])
      d.append(el('p', 'tp-reason', `Node pools: ${u.reason}`));
    const facts = p.unschedulable?.facts;
    if (facts) {
      const items: string[] = [];
      for (const t of facts.untoleratedTaints)
        items.push(
          `${plural(t.nodes, 'node')} tainted ${t.taint} that the pod does not tolerate${t.pools.length ? ` (${t.pools.join(', ')})` : ''}`
        );
      for (const s of facts.insufficient)
        items.push(
          `short of ${s.resource}: the most free on a node that passes the other filters is ${s.resource === 'memory' ? formatBytes(s.largestFree) : s.resource === 'cpu' ? formatCores(s.largestFree) : s.largestFree} (${s.node})`
        );
      if (facts.nodeAffinityMismatch)
        items.push(
          `${plural(facts.nodeAffinityMismatch, 'node')} not matching the node selector or affinity`
        );
      for (const r of facts.unoffered) items.push(`no node offers ${r}`);
      if (items.length) {
        const ul = el('ul', 'tp-facts');
        for (const i of items) ul.append(el('li', '', i));
        d.append(ul);
      }
    }
    return d;
  }

  private elements(a: IAnswer): HTMLElement[] {
    const { summary, placement: p } = a;
    const view = answerView(summary, p);
    // What the engine says of each claim, with whose it is.
    const claims = claimsOf(p.claims, a.claims);
    const verdict = el('div', 'tp-verdict');
    verdict.append(...this.headline(a, view, claims), this.advice);
    const children: HTMLElement[] = [verdict, this.warned];
    const never = p.scaleUp ? view.never : p.replicas - p.placed;
    const why = this.why(a, never);
    if (why) children.push(why);
    if (claims.length) {
      const ul = el('ul', 'tp-claims');
      for (const c of claims) ul.append(el('li', '', claimNote(c, a.source)));
      children.push(ul);
    }
    const admitted = admissionNotes(p.admission);
    if (admitted.length)
      children.push(
        el('p', 'tp-admission', `The API server ${admitted.join('; ')}.`)
      );
    children.push(
      el(
        'p',
        'tp-legend',
        'Each bar is a node: grey is requested today, blue the new ones, red over capacity, dashed a node cluster-autoscaler adds.'
      )
    );
    children.push(...this.pools.render(view.pools));
    return children;
  }
}
