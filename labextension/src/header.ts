// The sidebar's header: where the cluster comes from, how many nodes it has and
// how old the snapshot is, and the Refresh button.
import type { ClusterSummary } from '@tightpack/wasm';
import { el } from './dom.js';
import { ISnapshotEnvelope } from './types.js';

const SOURCE_NAMES: Record<string, string> = {
  scheduler: 'tightpack scheduler',
  kubernetes: 'Kubernetes API',
  file: 'snapshot file',
  demo: 'demo cluster'
};

function age(iso: string): string {
  const seconds = Math.max(
    0,
    Math.round((Date.now() - Date.parse(iso)) / 1000)
  );
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  return `${Math.floor(seconds / 3600)} h ago`;
}

export class SourceHeader {
  readonly node = el('header', 'tp-header');
  private readonly source = el('div', 'tp-source');
  private readonly refresh = el('button', 'jp-Button tp-refresh', 'Refresh');
  private shown: {
    envelope: ISnapshotEnvelope;
    summary: ClusterSummary;
  } | null = null;
  // The last load's failure, shown until a load succeeds.
  private error: string | null = null;
  // The snapshot's age in words, kept current.
  private readonly ageTimer = window.setInterval(() => this.draw(), 15000);

  constructor(onRefresh: () => void) {
    this.node.append(
      el('h2', 'tp-title', 'Dask worker placement'),
      this.source,
      this.refresh
    );
    this.refresh.addEventListener('click', onRefresh);
  }

  /** A load has begun: Refresh waits until finished() is called. */
  loading(): void {
    this.source.textContent = 'Loading the cluster…';
    this.refresh.disabled = true;
  }

  finished(): void {
    this.refresh.disabled = false;
  }

  show(envelope: ISnapshotEnvelope, summary: ClusterSummary): void {
    this.shown = { envelope, summary };
    this.error = null;
    this.draw();
  }

  /** The load failed: said until one succeeds, over the age of the last snapshot. */
  failed(message: string): void {
    this.error = message;
    this.draw();
  }

  dispose(): void {
    window.clearInterval(this.ageTimer);
  }

  private draw(): void {
    if (this.error !== null) {
      this.source.textContent = `Cannot load the cluster: ${this.error}`;
      this.source.classList.add('tp-source-error');
      return;
    }
    if (!this.shown) return;
    const { envelope: e, summary } = this.shown;
    this.source.classList.remove('tp-source-error');
    this.source.textContent = `${SOURCE_NAMES[e.source.kind] ?? e.source.kind}: ${e.source.detail} · ${summary.nodes.length} nodes · ${age(e.fetchedAt)}`;
    this.source.dataset.kind = e.source.kind;
    this.source.title = [...e.notes, ...(summary.notes ?? [])].join('\n');
  }
}
