// The cluster every view in the page answers on: the engine, compiled once,
// with the snapshot the server extension serves loaded into it. The sidebar
// and the notebooks' previews share it, so that both answer on the same
// snapshot and a refresh in one is the cluster of the other.
import type { Cluster, ClusterSummary, Engine } from '@tightpack/wasm';
import { fetchSnapshot } from './api.js';
import { loadTightpack } from './engine.js';
import { ISnapshotEnvelope } from './types.js';

export interface ILoadedCluster {
  engine: Engine;
  envelope: ISnapshotEnvelope;
  cluster: Cluster;
  summary: ClusterSummary;
}

export class ClusterSession {
  private current: ILoadedCluster | null = null;
  private pending: Promise<ILoadedCluster> | null = null;

  /** `source`: the sidebar's snapshotSource setting, read at each load. */
  constructor(private readonly source: () => string) {}

  /** The cluster as last loaded, or null before the first load ends. */
  get loaded(): ILoadedCluster | null {
    return this.current;
  }

  /**
   * The cluster, loaded first when it has not been (or fetched again when
   * `refresh`). Callers asking while a load runs share it.
   */
  load(refresh = false): Promise<ILoadedCluster> {
    if (this.pending) return this.pending;
    if (this.current && !refresh) return Promise.resolve(this.current);
    this.pending = this.fetch(refresh).finally(() => (this.pending = null));
    return this.pending;
  }

  private async fetch(refresh: boolean): Promise<ILoadedCluster> {
    const [engine, envelope] = await Promise.all([
      loadTightpack(),
      fetchSnapshot(refresh, this.source())
    ]);
    const loaded = engine.loadCluster(envelope.cluster, {
      pools: envelope.pools,
      schedulerConfig: envelope.schedulerConfiguration
    });
    if (!loaded.ok)
      throw new Error(`the ${envelope.source.kind} snapshot: ${loaded.error}`);
    const summary = loaded.value.summary();
    if (!summary.ok) {
      loaded.value.dispose();
      throw new Error(summary.error);
    }
    this.current?.cluster.dispose();
    this.current = {
      engine,
      envelope,
      cluster: loaded.value,
      summary: summary.value
    };
    return this.current;
  }
}
