// A notebook's preview (jupyterlab_tightpack.preview()): the output keeps the
// question (what the kernel was about to scale, how many, under which
// scheduler profile); this renderer has the server extension make its pod,
// as it makes the sidebar's templates, and draws the engine's answer on the
// sidebar's cluster, in the cell's output. A saved notebook keeps only the
// question, so it is answered again, on the cluster as it is, when opened.
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import type { ForecastRequest } from '@tightpack/wasm';
import { AnswerView } from './answer.js';
import { el, plural } from './dom.js';
import { forecastElement, forecastNow } from './forecast.js';
import { adviseWorkers, placeWorkers } from './place.js';
import type { IForecastQuestion, IQuestion } from './panel.js';
import { ClusterSession, ILoadedCluster } from './session.js';
import { IWorkerTemplate } from './types.js';

export const MIME_TYPE = 'application/vnd.tightpack.preview+json';
// The question's formats (notebook.py's VERSION and VERSION_RUNNING).
const VERSIONS = [1, 2];
const MAX_WORKERS = 10000;

/** A cluster already running (version 2): what its scale(workers) changes. */
export interface IRunning {
  /** The workers it has. */
  workers: number;
  /** Below them: the workers its scheduler would retire, by name. */
  retiring?: string[];
  /** Below them: the engine's request for what their deletion takes away. */
  forecast?: ForecastRequest;
}

export interface IPreviewQuestion {
  version: number;
  target: { kind: string; [key: string]: unknown };
  workers: number;
  /** A built-in scheduler profile's name; null: the sidebar's setting. */
  profile: string | null;
  label: string;
  running?: IRunning;
}

function readRunning(r: unknown): IRunning | string {
  const x = r as Partial<IRunning> | null;
  if (typeof x !== 'object' || x === null)
    return `running ${JSON.stringify(r)}: expected an object`;
  if (!Number.isInteger(x.workers) || x.workers! < 0)
    return `running.workers ${JSON.stringify(x.workers)}: expected a whole number`;
  if (
    x.retiring !== undefined &&
    !(Array.isArray(x.retiring) && x.retiring.every(n => typeof n === 'string'))
  )
    return `running.retiring ${JSON.stringify(x.retiring)}: expected worker names`;
  if (
    x.forecast !== undefined &&
    (typeof x.forecast !== 'object' || x.forecast === null)
  )
    return `running.forecast ${JSON.stringify(x.forecast)}: expected an object`;
  return { workers: x.workers!, retiring: x.retiring, forecast: x.forecast };
}

/** The question an output holds, or what is wrong with it, naming the field. */
export function readQuestion(
  data: unknown
): { question: IPreviewQuestion } | { error: string } {
  const q = data as Partial<IPreviewQuestion> | null;
  if (typeof q !== 'object' || q === null)
    return { error: 'the output holds no preview question' };
  if (!VERSIONS.includes(q.version as number))
    return {
      error: `version ${JSON.stringify(q.version)}: this jupyterlab-tightpack reads versions ${VERSIONS.join(' and ')}; update it to draw this preview`
    };
  let running: IRunning | undefined;
  if (q.running !== undefined && q.version !== 1) {
    const r = readRunning(q.running);
    if (typeof r === 'string') return { error: r };
    running = r;
  }
  // scale(0) is a question only of a running cluster.
  const fewest = running ? 0 : 1;
  if (typeof q.target !== 'object' || q.target === null || !q.target.kind)
    return {
      error: `target ${JSON.stringify(q.target)}: expected an object with a kind`
    };
  if (
    !Number.isInteger(q.workers) ||
    q.workers! < fewest ||
    q.workers! > MAX_WORKERS
  )
    return {
      error: `workers ${JSON.stringify(q.workers)}: expected a whole number from ${fewest} to ${MAX_WORKERS}`
    };
  if (q.profile !== null && typeof q.profile !== 'string')
    return {
      error: `profile ${JSON.stringify(q.profile)}: expected a scheduler profile's name or null`
    };
  return {
    question: {
      version: q.version!,
      target: q.target,
      workers: q.workers!,
      profile: q.profile ?? null,
      label: typeof q.label === 'string' ? q.label : q.target.kind,
      ...(running ? { running } : {})
    }
  };
}

export interface IPreviewDeps {
  session: Pick<ClusterSession, 'load' | 'loaded'>;
  /** The template of a target (the server extension's POST /tightpack/preview). */
  resolve(target: object): Promise<IWorkerTemplate>;
  /** The sidebar's default scheduler profile. */
  defaultProfile(): string;
  /** Shows the question in the sidebar. */
  openInSidebar(question: IQuestion | IForecastQuestion): void;
}

/** The workers a scale to q.workers adds: all of them, or those beyond the running. */
export function added(q: IPreviewQuestion): number {
  return q.workers - (q.running?.workers ?? 0);
}

/** "tightpack: where 20 workers of KubeCluster alice land". */
export function titleOf(q: IPreviewQuestion): string {
  const r = q.running;
  if (r && q.workers < r.workers)
    return `tightpack: what scale(${q.workers}) of ${q.label} frees`;
  if (r && q.workers === r.workers)
    return `tightpack: scale(${q.workers}) leaves ${q.label} as it is`;
  if (r) {
    const more = added(q);
    return `tightpack: where ${plural(more, 'more worker')} of ${q.label} ${more === 1 ? 'lands' : 'land'} (${r.workers} running)`;
  }
  if (q.target.kind === 'profile' && q.workers === 1)
    return `tightpack: where a notebook server of ${q.label} lands`;
  const what = q.target.kind === 'profile' ? 'servers' : 'workers';
  return q.workers === 1
    ? `tightpack: where 1 ${what.slice(0, -1)} of ${q.label} lands`
    : `tightpack: where ${q.workers} ${what} of ${q.label} land`;
}

function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** "live snapshot of … · 1000 nodes · scheduler profile tightpack". */
function sourceLine(loaded: ILoadedCluster, how: string): HTMLElement {
  const { envelope, summary } = loaded;
  const line = el(
    'div',
    'tp-source',
    `${envelope.source.kind} snapshot of ${when(envelope.fetchedAt)} · ${summary.nodes.length} nodes · ${how}`
  );
  line.dataset.kind = envelope.source.kind;
  return line;
}

export class PreviewRenderer extends Widget implements IRenderMime.IRenderer {
  private readonly answer = new AnswerView();

  constructor(private readonly deps: IPreviewDeps) {
    super();
    this.addClass('tp-Preview');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const started = performance.now();
    this.node.dataset.state = 'loading';
    const read = readQuestion(model.data[MIME_TYPE]);
    if ('error' in read) return this.fail('tightpack preview', read.error);
    const q = read.question;
    const title = titleOf(q);
    this.node.replaceChildren(
      el('div', 'tp-preview-title', title),
      el('div', 'tp-source', 'Loading the cluster…')
    );
    const drawn =
      q.running && q.workers <= q.running.workers
        ? await this.drawShrink(q, q.running, title)
        : await this.drawPlacement(q, title);
    if (!drawn) return;
    this.node.dataset.state = 'drawn';
    this.node.dataset.drawMs = (performance.now() - started).toFixed(1);
  }

  /** Where the added workers land; false when it failed (drawn as an error). */
  private async drawPlacement(
    q: IPreviewQuestion,
    title: string
  ): Promise<boolean> {
    let loaded: ILoadedCluster;
    let template: IWorkerTemplate;
    try {
      [loaded, template] = await Promise.all([
        this.deps.session.load(),
        this.deps.resolve(q.target)
      ]);
    } catch (e) {
      this.fail(title, (e as Error).message);
      return false;
    }
    // A refresh that ended while the server made the pod has disposed that cluster.
    loaded = this.deps.session.loaded ?? loaded;
    const profileName = q.profile ?? this.deps.defaultProfile();
    const placed = placeWorkers(loaded, template.pod, added(q), profileName);
    if (!placed.ok) {
      this.fail(title, placed.error);
      return false;
    }
    this.answer.draw({
      summary: loaded.summary,
      placement: placed.value.placement,
      pod: template.pod,
      source: template.source,
      name: template.name,
      claims: template.claims
    });
    const question = {
      template,
      workers: added(q),
      profile: placed.value.profile.name
    };
    // A fix or a shape goes to the sidebar's form, and its code, from here.
    this.answer.onApply = change =>
      this.deps.openInSidebar({ ...question, change });
    const advice = adviseWorkers(
      loaded,
      template.pod,
      added(q),
      placed.value.profile.name
    );
    this.answer.showAdvice(
      advice.ok ? advice.value : null,
      advice.ok ? '' : advice.error
    );
    const open = this.openButton(() => this.deps.openInSidebar(question));
    this.node.replaceChildren(
      el('div', 'tp-preview-title', title),
      sourceLine(loaded, `scheduler profile ${placed.value.profile.name}`),
      this.answer.node,
      open
    );
    if (this.isAttached) this.answer.redraw();
    return true;
  }

  /**
   * A running cluster scaled to its size or below: the workers its scheduler
   * retires and the nodes cluster-autoscaler then removes.
   */
  private async drawShrink(
    q: IPreviewQuestion,
    r: IRunning,
    title: string
  ): Promise<boolean> {
    let loaded: ILoadedCluster;
    try {
      loaded = await this.deps.session.load();
    } catch (e) {
      this.fail(title, (e as Error).message);
      return false;
    }
    const source = sourceLine(loaded, "cluster-autoscaler's scale-down rules");
    if (q.workers === r.workers) {
      this.node.replaceChildren(
        el('div', 'tp-preview-title', title),
        source,
        el(
          'p',
          'tp-preview-unchanged',
          `${plural(r.workers, 'worker')} running: scale(${q.workers}) adds none and retires none.`
        )
      );
      return true;
    }
    const request: ForecastRequest = r.forecast ?? {};
    const f = forecastNow(loaded.cluster, request);
    if (!f.ok) {
      this.fail(title, f.error);
      return false;
    }
    const retiring = r.retiring ?? [];
    const who = el(
      'p',
      'tp-preview-retiring',
      `Retiring ${retiring.length} of ${plural(r.workers, 'worker')}, as the cluster's scheduler chooses them (workers_to_close): ${retiring.join(', ') || 'none'}.`
    );
    const open = this.openButton(() =>
      this.deps.openInSidebar({ forecast: request, label: q.label })
    );
    this.node.replaceChildren(
      el('div', 'tp-preview-title', title),
      source,
      who,
      forecastElement(f.value),
      open
    );
    return true;
  }

  private openButton(open: () => void): HTMLElement {
    const button = el(
      'button',
      'jp-Button tp-preview-open',
      'Open in the sidebar'
    );
    button.addEventListener('click', open);
    return button;
  }

  protected onAfterAttach(): void {
    this.answer.redraw();
  }

  protected onResize(): void {
    this.answer.redraw();
  }

  /** The error in the output, where the user is looking, not in the console. */
  private fail(title: string, message: string): void {
    this.node.replaceChildren(
      el('div', 'tp-preview-title', title),
      el('p', 'tp-error tp-preview-error', message)
    );
    this.node.dataset.state = 'error';
  }
}
