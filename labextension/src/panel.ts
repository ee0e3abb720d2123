// The sidebar: where the workers of a template would land, recomputed in the
// browser by the WebAssembly engine on every change of the form. The panel
// holds the engine, the cluster and the settings, and wires its parts: the
// source header, the worker form, the answer, the scale-down forecast and the
// code that starts the workers.
import { Widget } from '@lumino/widgets';
import type { Cluster, ClusterSummary, Engine } from '@tightpack/wasm';
import { AnswerView } from './answer.js';
import { fetchSnapshot, fetchTemplates } from './api.js';
import { loadTightpack } from './engine.js';
import { ForecastView } from './forecast.js';
import { WorkerForm } from './form.js';
import { SourceHeader } from './header.js';
import { workerPod } from './pod.js';
import { StartView } from './start.js';
import { ISnapshotEnvelope } from './types.js';

export interface IPanelSettings {
  snapshotSource: string;
  refreshInterval: number;
  defaultProfile: string;
}

export class TightpackPanel extends Widget {
  private engine: Engine | null = null;
  private cluster: Cluster | null = null;
  private summary: ClusterSummary | null = null;
  private envelope: ISnapshotEnvelope | null = null;
  private settings: IPanelSettings;
  private version = 0;
  private refreshTimer: number | null = null;
  private opened = performance.now();
  private loading = false;

  private readonly header = new SourceHeader(() => void this.load(true));
  private readonly form = new WorkerForm(() => this.recompute());
  private readonly answer = new AnswerView();
  private readonly forecast = new ForecastView(() => this.cluster);
  private readonly start = new StartView();

  constructor(settings: IPanelSettings) {
    super();
    this.settings = settings;
    this.id = 'tightpack-panel';
    this.addClass('tp-Panel');
    this.title.caption = 'Where will my Dask workers land?';
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
    if (!this.envelope && !this.loading) {
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
    this.cluster?.dispose();
    super.dispose();
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
      const [engine, envelope, templates] = await Promise.all([
        this.engine ? Promise.resolve(this.engine) : loadTightpack(),
        fetchSnapshot(refresh, this.settings.snapshotSource),
        this.form.templates.length && !refresh
          ? Promise.resolve(null)
          : fetchTemplates()
      ]);
      this.engine = engine;
      const loaded = engine.loadCluster(envelope.cluster, {
        pools: envelope.pools,
        schedulerConfig: envelope.schedulerConfiguration
      });
      if (!loaded.ok)
        throw new Error(
          `the ${envelope.source.kind} snapshot: ${loaded.error}`
        );
      const summary = loaded.value.summary();
      if (!summary.ok) throw new Error(summary.error);
      this.cluster?.dispose();
      this.cluster = loaded.value;
      this.summary = summary.value;
      this.envelope = envelope;
      this.form.setProfiles(
        summary.value.builtInProfiles,
        this.settings.defaultProfile
      );
      if (templates)
        this.form.setTemplates(templates.templates, templates.errors);
      this.header.show(envelope, summary.value);
      if (!this.form.template && this.form.templates.length)
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

  /** Everything below the form, from the engine's answer: synchronous, no server round trip. */
  private recompute(): void {
    const template = this.form.template;
    if (!this.cluster || !this.summary || !template) return;
    const start = performance.now();
    const form = this.form.read();
    if ('error' in form) {
      this.form.showError(form.error);
      this.answer.markStale();
      return;
    }
    const pod = workerPod(template.pod, form.settings);
    const profile = this.summary.builtInProfiles.find(
      p => p.name === this.form.profile
    );
    const placed = this.cluster.place({
      pod,
      replicas: form.settings.workers,
      profile: this.form.profile,
      ...(profile?.release ? { release: profile.release } : {}),
      admission: {
        extendedResourceToleration:
          this.envelope!.admission?.extendedResourceToleration ?? false
      }
    });
    if (!placed.ok) {
      this.form.showError(placed.error);
      this.answer.markStale();
      return;
    }
    this.form.showError('');
    this.answer.draw({
      summary: this.summary,
      placement: placed.value,
      pod,
      source: template.source,
      claims: template.claims
    });
    this.start.show(
      template,
      pod,
      form.settings.workers,
      profile?.schedulerName ?? 'default-scheduler'
    );
    this.node.dataset.answerMs = (performance.now() - start).toFixed(2);
    this.node.dataset.answerVersion = String(++this.version);
  }
}
