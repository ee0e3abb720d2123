// A notebook's preview (jupyterlab_tightpack.preview()): the output keeps the
// question (what the kernel was about to scale, how many, under which
// scheduler profile); this renderer has the server extension make its pod,
// as it makes the sidebar's templates, and draws the engine's answer on the
// sidebar's cluster, in the cell's output. A saved notebook keeps only the
// question, so it is answered again, on the cluster as it is, when opened.
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import { AnswerView } from './answer.js';
import { el } from './dom.js';
import { placeWorkers } from './place.js';
import type { IQuestion } from './panel.js';
import { ClusterSession, ILoadedCluster } from './session.js';
import { IWorkerTemplate } from './types.js';

export const MIME_TYPE = 'application/vnd.tightpack.preview+json';
// The question's format (notebook.py's VERSION).
const VERSION = 1;
const MAX_WORKERS = 10000;

export interface IPreviewQuestion {
  version: number;
  target: { kind: string; [key: string]: unknown };
  workers: number;
  /** A built-in scheduler profile's name; null: the sidebar's setting. */
  profile: string | null;
  label: string;
}

/** The question an output holds, or what is wrong with it, naming the field. */
export function readQuestion(
  data: unknown
): { question: IPreviewQuestion } | { error: string } {
  const q = data as Partial<IPreviewQuestion> | null;
  if (typeof q !== 'object' || q === null)
    return { error: 'the output holds no preview question' };
  if (q.version !== VERSION)
    return {
      error: `version ${JSON.stringify(q.version)}: this jupyterlab-tightpack reads version ${VERSION}; update it to draw this preview`
    };
  if (typeof q.target !== 'object' || q.target === null || !q.target.kind)
    return {
      error: `target ${JSON.stringify(q.target)}: expected an object with a kind`
    };
  if (
    !Number.isInteger(q.workers) ||
    q.workers! < 1 ||
    q.workers! > MAX_WORKERS
  )
    return {
      error: `workers ${JSON.stringify(q.workers)}: expected a whole number from 1 to ${MAX_WORKERS}`
    };
  if (q.profile !== null && typeof q.profile !== 'string')
    return {
      error: `profile ${JSON.stringify(q.profile)}: expected a scheduler profile's name or null`
    };
  return {
    question: {
      version: q.version,
      target: q.target,
      workers: q.workers!,
      profile: q.profile ?? null,
      label: typeof q.label === 'string' ? q.label : q.target.kind
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
  openInSidebar(question: IQuestion): void;
}

/** "tightpack: where 20 workers of KubeCluster alice land". */
export function titleOf(q: IPreviewQuestion): string {
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
    let loaded: ILoadedCluster;
    let template: IWorkerTemplate;
    try {
      [loaded, template] = await Promise.all([
        this.deps.session.load(),
        this.deps.resolve(q.target)
      ]);
    } catch (e) {
      return this.fail(title, (e as Error).message);
    }
    // A refresh that ended while the server made the pod has disposed that cluster.
    loaded = this.deps.session.loaded ?? loaded;
    const profileName = q.profile ?? this.deps.defaultProfile();
    const placed = placeWorkers(loaded, template.pod, q.workers, profileName);
    if (!placed.ok) return this.fail(title, placed.error);

    this.answer.draw({
      summary: loaded.summary,
      placement: placed.value.placement,
      pod: template.pod,
      source: template.source,
      claims: template.claims
    });
    const { envelope, summary } = loaded;
    const source = el(
      'div',
      'tp-source',
      `${envelope.source.kind} snapshot of ${when(envelope.fetchedAt)} · ${summary.nodes.length} nodes · scheduler profile ${placed.value.profile.name}`
    );
    source.dataset.kind = envelope.source.kind;
    const open = el(
      'button',
      'jp-Button tp-preview-open',
      'Open in the sidebar'
    );
    open.addEventListener('click', () =>
      this.deps.openInSidebar({
        template,
        workers: q.workers,
        profile: placed.value.profile.name
      })
    );
    this.node.replaceChildren(
      el('div', 'tp-preview-title', title),
      source,
      this.answer.node,
      open
    );
    if (this.isAttached) this.answer.redraw();
    this.node.dataset.state = 'drawn';
    this.node.dataset.drawMs = (performance.now() - started).toFixed(1);
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
