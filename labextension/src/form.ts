// The worker form: which template, how many workers of what size, their
// tolerations and node selector, and the scheduler profile; read() gives the
// settings workerPod() takes, or the first thing wrong with them.
import { el, labelled } from './dom.js';
import {
  parseSelector,
  parseTolerations,
  readableMemory,
  settingsOf,
  tolerationText,
  IWorkerSettings
} from './pod.js';
import type { Engine } from '@tightpack/wasm';
import { cpuError, memoryError } from './quantity.js';
import { choiceFor, ISchedulerChoice } from './schedulers.js';
import { IWorkerTemplate, Toleration } from './types.js';

export class WorkerForm {
  readonly node = el('form', 'tp-form');
  /** Under the form: what is wrong with its values, or with the pod they make. */
  readonly error = el('div', 'tp-error tp-form-error');
  private server: IWorkerTemplate[] = [];
  // Templates asked from a notebook's preview: kept when the server's are reloaded.
  private asked: IWorkerTemplate[] = [];
  private chosen: IWorkerTemplate | null = null;
  private choices: ISchedulerChoice[] = [];

  private readonly templateSelect = el('select', 'jp-mod-styled tp-template');
  // What the server extension says of the chosen template (its home claim, defaults used).
  private readonly templateNotes = el('ul', 'tp-template-notes');
  private readonly templateErrors = el('div', 'tp-error tp-template-errors');
  private readonly workers = el('input', 'jp-mod-styled tp-workers');
  private readonly cores = el('input', 'jp-mod-styled tp-cores');
  private readonly memory = el('input', 'jp-mod-styled tp-memory');
  private readonly gpus = el('input', 'jp-mod-styled tp-gpus');
  private readonly tolerations = el('textarea', 'jp-mod-styled tp-tolerations');
  private readonly selector = el('textarea', 'jp-mod-styled tp-selector');
  private readonly profileSelect = el('select', 'jp-mod-styled tp-profile');
  // What the chosen scheduler's rules are, under the select.
  private readonly profileHint = el('span', 'tp-field-hint tp-profile-hint');

  /** `onChange`: any value changed, a template chosen included. */
  constructor(private readonly onChange: () => void) {
    this.workers.type = 'number';
    this.workers.min = '1';
    this.workers.max = '10000';
    this.gpus.type = 'number';
    this.gpus.min = '0';
    this.gpus.max = '16';
    this.tolerations.rows = 2;
    this.selector.rows = 1;
    // Empty fields say so: a greyed example reads as a value already set.
    this.tolerations.placeholder = 'none';
    this.selector.placeholder = 'none';

    this.node.addEventListener('submit', e => e.preventDefault());
    const row = el('div', 'tp-row');
    row.append(
      labelled('Workers', this.workers),
      labelled('Cores', this.cores),
      labelled('Memory', this.memory),
      labelled('GPUs', this.gpus)
    );
    this.node.append(
      labelled('Template', this.templateSelect),
      this.templateNotes,
      this.templateErrors,
      row,
      labelled(
        'Tolerations',
        this.tolerations,
        'one per line, as key=value:Effect, e.g. dask=worker:NoSchedule'
      ),
      labelled(
        'Node selector',
        this.selector,
        'key=value, …, e.g. cloud.google.com/gke-nodepool=dask-workers'
      ),
      labelled('Scheduler', this.profileSelect)
    );
    this.profileSelect.parentElement!.append(this.profileHint);
    for (const input of [
      this.workers,
      this.cores,
      this.memory,
      this.gpus,
      this.tolerations,
      this.selector
    ]) {
      input.addEventListener('input', () => this.onChange());
    }
    this.profileSelect.addEventListener('change', () => {
      this.showProfileHint();
      this.onChange();
    });
    this.templateSelect.addEventListener('change', () =>
      this.choose(this.templateSelect.value)
    );
  }

  /** The server's templates, then the asked ones it does not make itself. */
  get templates(): readonly IWorkerTemplate[] {
    return [
      ...this.server,
      ...this.asked.filter(a => !this.server.some(t => t.id === a.id))
    ];
  }

  /** The chosen template, null until one is. */
  get template(): IWorkerTemplate | null {
    return this.chosen;
  }

  /** The chosen profile's name. */
  get profile(): string {
    return this.profileSelect.value;
  }

  /** The server's templates, and the ones it could not read (bad YAML in a Dask config, an unreachable gateway). */
  setTemplates(templates: IWorkerTemplate[], errors: string[]): void {
    this.server = templates;
    this.listTemplates();
    this.templateErrors.textContent = errors.join('\n');
    this.templateErrors.hidden = errors.length === 0;
    // The chosen template as the server now makes it.
    if (this.chosen) {
      const id = this.chosen.id;
      this.chosen = this.templates.find(t => t.id === id) ?? null;
      if (this.chosen) this.templateSelect.value = this.chosen.id;
    }
  }

  /** A template from elsewhere (a notebook's preview), listed after the server's. */
  addTemplate(template: IWorkerTemplate): void {
    this.asked = [...this.asked.filter(t => t.id !== template.id), template];
    this.listTemplates();
    if (this.chosen) this.templateSelect.value = this.chosen.id;
  }

  /**
   * Fills the form from template `id`'s values; `workers` and `profile`,
   * when given, instead of the template's count and the chosen profile.
   */
  choose(id: string, workers?: number, profile?: string): void {
    this.chosen = this.templates.find(t => t.id === id) ?? null;
    if (!this.chosen) return;
    this.templateSelect.value = id;
    this.templateSelect.title = this.chosen.description || this.chosen.name;
    this.templateNotes.replaceChildren(
      ...this.chosen.notes.map(n => el('li', '', n))
    );
    this.templateNotes.hidden = this.chosen.notes.length === 0;
    // Templates that start empty (dask-kubernetes' count.start is 0) show a few workers.
    const s = settingsOf(
      this.chosen.pod,
      workers ?? (this.chosen.workers || 4)
    );
    this.workers.value = String(s.workers);
    this.cores.value = s.cores;
    this.memory.value = s.memory;
    this.gpus.value = String(s.gpus);
    this.tolerations.value = s.tolerations.map(tolerationText).join('\n');
    this.selector.value = Object.entries(s.nodeSelector)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    // The template's own scheduler, when this cluster runs it: a hub
    // profile's pod names the hub's.
    const own = this.chosen.pod.spec?.schedulerName
      ? choiceFor(this.choices, this.chosen.pod.spec.schedulerName)
      : undefined;
    const wanted = profile ?? own?.value;
    if (
      wanted &&
      Array.from(this.profileSelect.options).some(o => o.value === wanted)
    )
      this.profileSelect.value = wanted;
    this.showProfileHint();
    this.onChange();
  }

  /**
   * The scheduler profiles (schedulers.ts): the cluster's own, then the
   * engine's built-in ones, each saying which scheduler here runs it. The
   * choice made is kept across reloads when it is still offered.
   */
  setProfiles(choices: ISchedulerChoice[], preferred: string): void {
    const kept = this.profileSelect.value;
    this.choices = choices;
    this.profileSelect.replaceChildren();
    for (const c of choices) {
      const o = el('option', '', c.label);
      o.value = c.value;
      o.title = c.note;
      this.profileSelect.append(o);
    }
    const offered = (v: string) => choices.some(c => c.value === v);
    this.profileSelect.value = offered(kept)
      ? kept
      : offered(preferred)
        ? preferred
        : choices[0].value;
    this.showProfileHint();
  }

  private showProfileHint(): void {
    this.profileHint.textContent = this.choice?.description ?? '';
    this.profileSelect.title = this.choice?.note ?? '';
  }

  /** The chosen profile, with the scheduler of this cluster that runs it. */
  get choice(): ISchedulerChoice | undefined {
    return this.choices.find(c => c.value === this.profileSelect.value);
  }

  private listTemplates(): void {
    this.templateSelect.replaceChildren();
    for (const t of this.templates) {
      // Short, so that the chosen one fits a narrow panel ("KubeCluster
      // worker"); a profile's is the hub's display name.
      const o = el('option', '', t.name);
      o.value = t.id;
      o.title = t.description || t.name;
      this.templateSelect.append(o);
    }
    this.templateSelect.title =
      this.templateSelect.selectedOptions[0]?.textContent ?? '';
  }

  /**
   * Puts a change the engine proposed into the form: tolerations and
   * selector labels added, the worker container's new requests, a number of
   * workers. What only the cluster's operator can change is not the form's.
   */
  apply(change: {
    addTolerations?: Toleration[];
    addNodeSelector?: Record<string, string>;
    containerRequests?: Record<string, string>;
    replicas?: number;
  }): void {
    const lines = (text: string) =>
      text
        .split('\n')
        .map(l => l.trim())
        .filter(Boolean);
    if (change.addTolerations?.length)
      this.tolerations.value = [
        ...lines(this.tolerations.value),
        ...change.addTolerations.map(tolerationText)
      ].join('\n');
    if (change.addNodeSelector) {
      const parsed = parseSelector(this.selector.value).selector;
      this.selector.value = Object.entries({
        ...parsed,
        ...change.addNodeSelector
      })
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
    }
    const r = change.containerRequests ?? {};
    if (r.cpu) this.cores.value = r.cpu;
    if (r.memory) this.memory.value = readableMemory(r.memory);
    if (change.replicas !== undefined)
      this.workers.value = String(change.replicas);
    this.onChange();
  }

  showError(text: string): void {
    this.error.textContent = text;
    this.error.hidden = !text;
  }

  /** The form's values, or the first thing wrong with them (quantities as `engine` reads them). */
  read(engine: Engine): { settings: IWorkerSettings } | { error: string } {
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
      cpuError(this.cores.value, engine) ??
      memoryError(this.memory.value, engine);
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
}
