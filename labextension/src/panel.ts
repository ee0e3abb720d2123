// The sidebar: where the workers of a template would land, recomputed in the
// browser by the WebAssembly engine on every change of the form.
import { Widget } from '@lumino/widgets';
import type {
  BuiltInProfile,
  Cluster,
  ClusterSummary,
  Engine,
  Forecast,
  Placement
} from '@tightpack/wasm';
import { admissionNotes, fixes, warnings } from './advice.js';
import { fetchSnapshot, fetchTemplates } from './api.js';
import { startCode } from './codegen.js';
import { drawPool, nodeAt } from './draw.js';
import { loadTightpack } from './engine.js';
import {
  parseSelector,
  parseTolerations,
  settingsOf,
  tolerationText,
  workerContainer,
  workerPod,
  IWorkerSettings
} from './pod.js';
import { cpuError, formatWait, memoryError } from './quantity.js';
import { ISnapshotEnvelope, IWorkerTemplate } from './types.js';
import { answerView, IPoolView } from './view.js';

export interface IPanelSettings {
  snapshotSource: string;
  refreshInterval: number;
  defaultProfile: string;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text = ''
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text) e.textContent = text;
  return e;
}

function labelled(
  label: string,
  input: HTMLElement,
  hint = ''
): HTMLLabelElement {
  const l = el('label', 'tp-field');
  l.append(el('span', 'tp-field-label', label), input);
  if (hint) l.append(el('span', 'tp-field-hint', hint));
  return l;
}

function age(iso: string): string {
  const seconds = Math.max(
    0,
    Math.round((Date.now() - Date.parse(iso)) / 1000)
  );
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  return `${Math.floor(seconds / 3600)} h ago`;
}

export class TightpackPanel extends Widget {
  private engine: Engine | null = null;
  private cluster: Cluster | null = null;
  private summary: ClusterSummary | null = null;
  private envelope: ISnapshotEnvelope | null = null;
  private templates: IWorkerTemplate[] = [];
  private template: IWorkerTemplate | null = null;
  private settings: IPanelSettings;
  private version = 0;
  private refreshTimer: number | null = null;
  private pools: IPoolView[] = [];
  private opened = performance.now();
  private loading = false;

  private readonly source = el('div', 'tp-source');
  private readonly refresh = el('button', 'jp-Button tp-refresh', 'Refresh');
  private readonly templateSelect = el('select', 'jp-mod-styled tp-template');
  private readonly workers = el('input', 'jp-mod-styled tp-workers');
  private readonly cores = el('input', 'jp-mod-styled tp-cores');
  private readonly memory = el('input', 'jp-mod-styled tp-memory');
  private readonly gpus = el('input', 'jp-mod-styled tp-gpus');
  private readonly tolerations = el('textarea', 'jp-mod-styled tp-tolerations');
  private readonly selector = el('textarea', 'jp-mod-styled tp-selector');
  private readonly profile = el('select', 'jp-mod-styled tp-profile');
  private readonly error = el('div', 'tp-error tp-form-error');
  private readonly templateErrors = el('div', 'tp-error tp-template-errors');
  // What the server extension says of the chosen template (its home claim, defaults used).
  private readonly templateNotes = el('ul', 'tp-template-notes');
  private ageTimer: number;
  private readonly answer = el('section', 'tp-answer');
  private readonly forecastInput = el(
    'input',
    'jp-mod-styled tp-forecast-remove'
  );
  private readonly forecastButton = el(
    'button',
    'jp-Button tp-forecast-run',
    'Forecast'
  );
  private readonly forecast = el('div', 'tp-forecast');
  private readonly podSpec = el('pre', 'tp-pod-json');
  private readonly code = el('pre', 'tp-code');
  private readonly copy = el('button', 'jp-Button tp-copy', 'Copy code');

  constructor(settings: IPanelSettings) {
    super();
    this.settings = settings;
    this.id = 'tightpack-panel';
    this.addClass('tp-Panel');
    this.title.caption = 'Where will my Dask workers land?';
    this.build();
    this.ageTimer = window.setInterval(
      () => this.envelope && this.showSource(),
      15000
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
    this.redrawPools();
  }

  dispose(): void {
    if (this.refreshTimer !== null) window.clearInterval(this.refreshTimer);
    window.clearInterval(this.ageTimer);
    this.cluster?.dispose();
    super.dispose();
  }

  private build(): void {
    const header = el('header', 'tp-header');
    header.append(
      el('h2', 'tp-title', 'Dask worker placement'),
      this.source,
      this.refresh
    );
    this.refresh.addEventListener('click', () => void this.load(true));

    this.workers.type = 'number';
    this.workers.min = '1';
    this.workers.max = '10000';
    this.gpus.type = 'number';
    this.gpus.min = '0';
    this.gpus.max = '16';
    this.tolerations.rows = 2;
    this.selector.rows = 1;
    this.tolerations.placeholder = 'dask=worker:NoSchedule';
    this.selector.placeholder = 'cloud.google.com/gke-nodepool=dask-workers';

    const form = el('form', 'tp-form');
    form.addEventListener('submit', e => e.preventDefault());
    const row = el('div', 'tp-row');
    row.append(
      labelled('Workers', this.workers),
      labelled('Cores', this.cores),
      labelled('Memory', this.memory),
      labelled('GPUs', this.gpus)
    );
    form.append(
      labelled('Template', this.templateSelect),
      this.templateNotes,
      this.templateErrors,
      row,
      labelled(
        'Tolerations',
        this.tolerations,
        'one per line: key=value:Effect'
      ),
      labelled('Node selector', this.selector, 'key=value, …'),
      labelled('Scheduler', this.profile)
    );
    for (const input of [
      this.workers,
      this.cores,
      this.memory,
      this.gpus,
      this.tolerations,
      this.selector
    ]) {
      input.addEventListener('input', () => this.recompute());
    }
    this.profile.addEventListener('change', () => this.recompute());
    this.templateSelect.addEventListener('change', () =>
      this.chooseTemplate(this.templateSelect.value)
    );

    const down = el('section', 'tp-scale-down');
    down.append(el('h3', '', 'If workers leave: scale-down'));
    this.forecastInput.placeholder =
      'pods to take away, e.g. dask.org/cluster-name=mine';
    const downRow = el('div', 'tp-row');
    downRow.append(
      labelled('Remove pods matching', this.forecastInput),
      this.forecastButton
    );
    down.append(downRow, this.forecast);
    this.forecastButton.addEventListener('click', () => this.runForecast());
    this.forecastInput.addEventListener('keydown', e => {
      if (e.key === 'Enter') this.runForecast();
    });

    const code = el('section', 'tp-start');
    const podDetails = el('details', 'tp-pod');
    podDetails.append(
      el('summary', '', 'The worker pod as Kubernetes schedules it'),
      this.podSpec
    );
    code.append(
      el('h3', '', 'Start exactly this'),
      this.code,
      this.copy,
      podDetails
    );
    this.copy.addEventListener('click', () => {
      void navigator.clipboard?.writeText(this.code.textContent ?? '');
      this.copy.textContent = 'Copied';
      window.setTimeout(() => (this.copy.textContent = 'Copy code'), 1500);
    });

    this.node.append(header, form, this.error, this.answer, down, code);
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
    this.source.textContent = 'Loading the cluster…';
    this.refresh.disabled = true;
    try {
      const [engine, envelope, templates] = await Promise.all([
        this.engine ? Promise.resolve(this.engine) : loadTightpack(),
        fetchSnapshot(refresh, this.settings.snapshotSource),
        this.templates.length && !refresh
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
      this.setProfiles(summary.value.builtInProfiles);
      if (templates) {
        this.templates = templates.templates;
        this.setTemplates(templates.errors);
      }
      this.showSource();
      if (!this.template && this.templates.length)
        this.chooseTemplate(this.templates[0].id);
      else this.recompute();
      this.scheduleRefresh();
      this.node.dataset.firstDrawMs =
        this.node.dataset.firstDrawMs ??
        (performance.now() - this.opened).toFixed(1);
    } catch (e) {
      this.source.textContent = `Cannot load the cluster: ${(e as Error).message}`;
      this.source.classList.add('tp-source-error');
    } finally {
      this.refresh.disabled = false;
    }
  }

  private showSource(): void {
    const e = this.envelope!;
    const names: Record<string, string> = {
      scheduler: 'tightpack scheduler',
      kubernetes: 'Kubernetes API',
      file: 'snapshot file',
      demo: 'demo cluster'
    };
    this.source.classList.remove('tp-source-error');
    this.source.textContent = `${names[e.source.kind] ?? e.source.kind}: ${e.source.detail} · ${this.summary!.nodes.length} nodes · ${age(e.fetchedAt)}`;
    this.source.dataset.kind = e.source.kind;
    this.source.title = [...e.notes, ...(this.summary!.notes ?? [])].join('\n');
  }

  /** The engine's built-in profiles, once: what each stands for comes from the engine. */
  private setProfiles(profiles: BuiltInProfile[]): void {
    if (this.profile.options.length) return;
    for (const p of profiles) {
      const o = el('option', '', p.description);
      o.value = p.name;
      this.profile.append(o);
    }
    this.profile.value = profiles.some(
      p => p.name === this.settings.defaultProfile
    )
      ? this.settings.defaultProfile
      : profiles[0].name;
  }

  private chosenProfile(): BuiltInProfile | undefined {
    return this.summary?.builtInProfiles.find(
      p => p.name === this.profile.value
    );
  }

  private setTemplates(errors: string[]): void {
    this.templateSelect.replaceChildren();
    for (const t of this.templates) {
      const o = el('option', '', `${t.name} (${t.source})`);
      o.value = t.id;
      this.templateSelect.append(o);
    }
    // Templates that could not be read (bad YAML in a Dask config, an unreachable gateway).
    this.templateErrors.textContent = errors.join('\n');
    this.templateErrors.hidden = errors.length === 0;
  }

  private chooseTemplate(id: string): void {
    this.template = this.templates.find(t => t.id === id) ?? null;
    if (!this.template) return;
    this.templateSelect.value = id;
    this.templateNotes.replaceChildren(
      ...this.template.notes.map(n => el('li', '', n))
    );
    this.templateNotes.hidden = this.template.notes.length === 0;
    // Templates that start empty (dask-kubernetes' count.start is 0) show a few workers.
    const s = settingsOf(this.template.pod, this.template.workers || 4);
    this.workers.value = String(s.workers);
    this.cores.value = s.cores;
    this.memory.value = s.memory;
    this.gpus.value = String(s.gpus);
    this.tolerations.value = s.tolerations.map(tolerationText).join('\n');
    this.selector.value = Object.entries(s.nodeSelector)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    this.recompute();
  }

  private showError(text: string): void {
    this.error.textContent = text;
    this.error.hidden = !text;
  }

  /** The form's values, or the first thing wrong with them. */
  private readForm(): { settings: IWorkerSettings } | { error: string } {
    const workers = Number(this.workers.value);
    if (!Number.isInteger(workers) || workers < 1 || workers > 10000)
      return {
        error: `Workers "${this.workers.value}" must be a whole number from 1 to 10000`
      };
    const gpus = Number(this.gpus.value || '0');
    if (!Number.isInteger(gpus) || gpus < 0)
      return {
        error: `GPUs "${this.gpus.value}" must be a whole number, 0 or more`
      };
    const problem =
      cpuError(this.cores.value) ?? memoryError(this.memory.value);
    if (problem) return { error: problem };
    const t = parseTolerations(this.tolerations.value);
    if (t.error) return { error: t.error };
    const n = parseSelector(this.selector.value);
    if (n.error) return { error: n.error };
    return {
      settings: {
        workers,
        cores: this.cores.value,
        memory: this.memory.value,
        gpus,
        tolerations: t.tolerations,
        nodeSelector: n.selector
      }
    };
  }

  /** Everything below the form, from the engine's answer: synchronous, no server round trip. */
  private recompute(): void {
    if (!this.cluster || !this.summary || !this.template) return;
    const start = performance.now();
    const form = this.readForm();
    if ('error' in form) {
      this.showError(form.error);
      this.answer.classList.add('tp-stale');
      return;
    }
    const pod = workerPod(this.template.pod, form.settings);
    const profile = this.chosenProfile();
    const placed = this.cluster.place({
      pod,
      replicas: form.settings.workers,
      profile: this.profile.value,
      ...(profile?.release ? { release: profile.release } : {}),
      admission: {
        extendedResourceToleration:
          this.envelope!.admission?.extendedResourceToleration ?? false
      }
    });
    if (!placed.ok) {
      this.showError(placed.error);
      this.answer.classList.add('tp-stale');
      return;
    }
    this.showError('');
    this.answer.classList.remove('tp-stale');
    this.drawAnswer(placed.value, pod);
    this.code.textContent = startCode(
      this.template,
      pod,
      form.settings.workers,
      profile?.schedulerName ?? 'default-scheduler'
    );
    this.podSpec.textContent = JSON.stringify(pod, null, 2);
    this.node.dataset.answerMs = (performance.now() - start).toFixed(2);
    this.node.dataset.answerVersion = String(++this.version);
  }

  private drawAnswer(p: Placement, pod: ReturnType<typeof workerPod>): void {
    const summary = this.summary!;
    const requests = workerContainer(pod)?.resources?.requests ?? {};
    const view = answerView(summary, p, requests);
    this.pools = view.pools;
    const children: HTMLElement[] = [];

    // A profile's pod is the user's notebook server, usually one.
    const notebook = this.template?.source === 'profile' && p.replicas === 1;
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

    const warned = warnings(p, pod, this.template?.source);
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
    for (const pool of view.pools) children.push(this.poolElement(pool));

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
      const fixed = fixes(summary, p, pod, this.template?.claims ?? []);
      if (fixed.length) {
        const list = el('ul', 'tp-fixes');
        for (const f of fixed) list.append(el('li', '', f));
        never.append(el('p', '', 'To fix:'), list);
      }
      children.push(never);
    }
    this.answer.replaceChildren(...children);
    this.redrawPools();
  }

  private poolElement(pool: IPoolView): HTMLElement {
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

  private redrawPools(): void {
    const canvases = this.answer.querySelectorAll<HTMLCanvasElement>(
      'canvas.tp-pool-nodes'
    );
    canvases.forEach((c, i) => {
      if (this.pools[i]) drawPool(c, this.pools[i]);
    });
  }

  private runForecast(): void {
    if (!this.cluster) return;
    const remove = this.forecastInput.value.trim();
    // cluster-autoscaler lets kube-system pods go an hour after their creation.
    const now = new Date().toISOString();
    const r = this.cluster.forecast(remove ? { remove, now } : { now });
    this.forecast.replaceChildren();
    if (!r.ok) {
      this.forecast.append(el('p', 'tp-error', r.error));
      return;
    }
    this.forecast.append(this.forecastElement(r.value));
  }

  private forecastElement(f: Forecast): HTMLElement {
    const box = el('div');
    const removable = f.nodes.filter(n => n.removable);
    box.append(
      el(
        'p',
        'tp-forecast-summary',
        `${f.summary.removable} of ${f.summary.nodes} nodes can be removed after ${f.unneededTime} unneeded` +
          (f.removedPods
            ? ` (with ${f.removedPods.length} pods taken away)`
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
}
