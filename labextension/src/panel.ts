// The sidebar: where the workers of a template would land, recomputed in the
// browser by the WebAssembly engine on every change of the form. The panel
// holds the settings and the page's cluster session, and wires its parts:
// the source header, the worker form, the answer, the scale-down forecast and
// the code that starts the workers.
import { Widget } from '@lumino/widgets';
import type { ForecastRequest } from '@tightpack/wasm';
import { AnswerView, PodChange } from './answer.js';
import { fetchTemplates } from './api.js';
import { ForecastView } from './forecast.js';
import { WorkerForm } from './form.js';
import { SourceHeader } from './header.js';
import { adviseWorkers, placeWorkers } from './place.js';
import { workerPod } from './pod.js';
import { schedulerChoices } from './schedulers.js';
import { ClusterSession } from './session.js';
import { StartView } from './start.js';
import { IPod, IWorkerTemplate } from './types.js';

export interface IPanelSettings {
  snapshotSource: string;
  refreshInterval: number;
  defaultProfile: string;
}

/** A question asked elsewhere (a notebook's preview), for the form to show. */
export interface IQuestion {
  template: IWorkerTemplate;
  workers: number;
  profile: string;
  /** A change the engine proposed, applied once the form shows the question. */
  change?: PodChange;
}

/** A shrink asked elsewhere, for the scale-down forecast to show. */
export interface IForecastQuestion {
  forecast: ForecastRequest;
  /** What leaves, for the heading ("KubeCluster alice"). */
  label: string;
}

export class TightpackPanel extends Widget {
  private settings: IPanelSettings;
  private asked: IQuestion | IForecastQuestion | null = null;
  // The first load has succeeded: the form has the server's templates.
  private ready = false;
  private version = 0;
  private refreshTimer: number | null = null;
  private opened = performance.now();
  private loading = false;

  private readonly header = new SourceHeader(() => void this.load(true));
  private readonly form = new WorkerForm(() => this.recompute());
  private readonly answer = new AnswerView();
  private readonly forecast = new ForecastView(
    () => this.session.loaded?.cluster ?? null
  );
  private readonly start = new StartView();

  constructor(
    settings: IPanelSettings,
    private readonly session: ClusterSession
  ) {
    super();
    this.settings = settings;
    this.id = 'tightpack-panel';
    this.addClass('tp-Panel');
    this.title.caption = 'Where will my Dask workers land?';
    this.answer.onApply = change => this.form.apply(change);
    this.node.append(
      this.header.node,
      this.form.node,
      this.form.error,
      this.answer.node,
      this.forecast.node,
      this.start.node
    );
  }

  updateSettings(settings: IPanelSettings): void {
    const sourceChanged =
      settings.snapshotSource !== this.settings.snapshotSource;
    this.settings = settings;
    this.scheduleRefresh();
    if (sourceChanged && this.isAttached) void this.load(true);
  }

  // The sidebar's widgets are attached, hidden, when JupyterLab starts: load
  // the engine and the cluster only when the panel is first shown, so users
  // who never open it pay nothing.
  protected onAfterShow(): void {
    if (!this.ready && !this.loading) {
      this.opened = performance.now();
      this.loading = true;
      void this.load(false).finally(() => (this.loading = false));
    }
  }

  protected onResize(): void {
    this.answer.redraw();
  }

  dispose(): void {
    if (this.refreshTimer !== null) window.clearInterval(this.refreshTimer);
    this.header.dispose();
    super.dispose();
  }

  /**
   * Shows `question` in the form, beside the server's templates: the panel
   * must be shown for it to be drawn, and loads first if it has not.
   */
  ask(question: IQuestion | IForecastQuestion): void {
    if (!this.ready) {
      this.asked = question;
      return;
    }
    if ('forecast' in question) {
      this.forecast.ask(question.forecast, question.label);
      return;
    }
    this.form.addTemplate(question.template);
    this.form.choose(question.template.id, question.workers, question.profile);
    if (question.change) this.form.apply(question.change);
  }

  private scheduleRefresh(): void {
    if (this.refreshTimer !== null) window.clearInterval(this.refreshTimer);
    this.refreshTimer = null;
    if (this.settings.refreshInterval > 0) {
      this.refreshTimer = window.setInterval(
        () => void this.load(true),
        this.settings.refreshInterval * 1000
      );
    }
  }

  private async load(refresh: boolean): Promise<void> {
    this.header.loading();
    try {
      const [loaded, templates] = await Promise.all([
        this.session.load(refresh),
        this.ready && !refresh ? Promise.resolve(null) : fetchTemplates()
      ]);
      this.form.setProfiles(
        schedulerChoices(loaded.summary, loaded.envelope),
        this.settings.defaultProfile
      );
      if (templates)
        this.form.setTemplates(templates.templates, templates.errors);
      this.header.show(loaded.envelope, loaded.summary);
      this.ready = true;
      const asked = this.asked;
      this.asked = null;
      if (asked) this.ask(asked);
      else if (!this.form.template && this.form.templates.length)
        this.form.choose(this.form.templates[0].id);
      else this.recompute();
      this.scheduleRefresh();
      this.node.dataset.firstDrawMs =
        this.node.dataset.firstDrawMs ??
        (performance.now() - this.opened).toFixed(1);
    } catch (e) {
      this.header.failed((e as Error).message);
    } finally {
      this.header.finished();
    }
  }

  /**
   * The engine's advice decides the question again for each candidate fix:
   * asked after the answer is painted, so that typing never waits on it, and
   * dropped when the form has changed since.
   */
  private scheduleAdvice(pod: IPod, workers: number): void {
    const version = this.version + 1;
    const profile = this.form.profile;
    window.setTimeout(() => {
      const loaded = this.session.loaded;
      if (!loaded || this.version !== version) return;
      const start = performance.now();
      const advice = adviseWorkers(loaded, pod, workers, profile);
      if (this.version !== version) return;
      this.answer.showAdvice(
        advice.ok ? advice.value : null,
        advice.ok ? '' : advice.error
      );
      this.node.dataset.adviceMs = (performance.now() - start).toFixed(2);
      this.node.dataset.adviceVersion = String(version);
    }, 0);
  }

  /** Everything below the form, from the engine's answer: synchronous, no server round trip. */
  private recompute(): void {
    const template = this.form.template;
    const loaded = this.session.loaded;
    if (!loaded || !template) return;
    const start = performance.now();
    const form = this.form.read(loaded.engine);
    if ('error' in form) {
      this.form.showError(form.error);
      this.answer.markStale();
      return;
    }
    const pod = workerPod(template.pod, form.settings);
    const placed = placeWorkers(
      loaded,
      pod,
      form.settings.workers,
      this.form.profile
    );
    if (!placed.ok) {
      this.form.showError(placed.error);
      this.answer.markStale();
      return;
    }
    this.form.showError('');
    this.answer.draw({
      summary: loaded.summary,
      placement: placed.value.placement,
      pod,
      source: template.source,
      name: template.name,
      claims: template.claims
    });
    this.scheduleAdvice(pod, form.settings.workers);
    this.start.show(template, pod, form.settings.workers, this.form.choice);
    this.node.dataset.answerMs = (performance.now() - start).toFixed(2);
    this.node.dataset.answerVersion = String(++this.version);
  }
}
