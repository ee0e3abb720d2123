// "Start exactly this": the Python that starts the workers the answer is for,
// with a Copy button, and the worker pod as Kubernetes schedules it.
import { startCode } from './codegen.js';
import { el } from './dom.js';
import { ISchedulerChoice } from './schedulers.js';
import { IPod, IWorkerTemplate } from './types.js';

export class StartView {
  readonly node = el('section', 'tp-start');
  private readonly code = el('pre', 'tp-code');
  private readonly copy = el('button', 'jp-Button tp-copy', 'Copy code');
  private readonly podSpec = el('pre', 'tp-pod-json');

  constructor() {
    const podDetails = el('details', 'tp-pod');
    podDetails.append(
      el('summary', '', 'The worker pod as Kubernetes schedules it'),
      this.podSpec
    );
    this.node.append(
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
  }

  /** `workers` copies of `pod`, made from `template`, under the chosen scheduler. */
  show(
    template: IWorkerTemplate,
    pod: IPod,
    workers: number,
    scheduler: ISchedulerChoice | undefined
  ): void {
    this.code.textContent = startCode(template, pod, workers, scheduler);
    this.podSpec.textContent = JSON.stringify(pod, null, 2);
  }
}
