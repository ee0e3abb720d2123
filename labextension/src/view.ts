// What the panel draws, computed from the engine's answers: nodes grouped by
// pool with their fill before and after, each pool's scale-up, and the
// workers that never run.
import type { ClusterSummary, Placement } from '@tightpack/wasm';

export interface INodeView {
  name: string;
  cordoned: boolean;
  ready: boolean;
  tainted: boolean;
  /** Requested share of allocatable before and after the new workers, the larger of cpu and memory. */
  before: number;
  after: number;
  workers: number;
}

export interface IPoolView {
  name: string;
  nodes: INodeView[];
  workers: number;
  /** Nodes cluster-autoscaler adds, and the workers it places on them. */
  adds: number;
  addedWorkers: number;
  readyInSeconds: number | null;
  atMaxSize: boolean;
  maxSize: number | null;
  preemptible: boolean;
  tied: string[];
}

export interface IAnswerView {
  pools: IPoolView[];
  placedNow: number;
  placedAfterScaleUp: number;
  never: number;
  /** Workers that had several equally good nodes: kube-scheduler would pick at random. */
  tiedWorkers: number;
}

const NO_POOL = '(no pool)';

function share(requested: number, allocatable: number): number {
  return allocatable > 0 ? Math.min(requested / allocatable, 1.5) : 0;
}

export function answerView(
  summary: ClusterSummary,
  placement: Placement
): IAnswerView {
  const landed = new Map(placement.nodes.map(n => [n.node, n]));
  const pools = new Map<string, IPoolView>();
  const pool = (name: string): IPoolView => {
    let p = pools.get(name);
    if (!p) {
      const info = summary.pools?.find(x => x.name === name);
      p = {
        name,
        nodes: [],
        workers: 0,
        adds: 0,
        addedWorkers: 0,
        readyInSeconds: null,
        atMaxSize: false,
        maxSize: info?.maxSize ?? null,
        preemptible: info?.preemptible ?? false,
        tied: []
      };
      pools.set(name, p);
    }
    return p;
  };
  for (const p of summary.pools ?? []) pool(p.name);
  for (const n of summary.nodes) {
    const l = landed.get(n.name);
    const workers = l?.replicas ?? 0;
    const a = n.allocatable;
    const r = n.requested;
    const before = Math.max(share(r.cpu, a.cpu), share(r.memory, a.memory));
    // The engine's sum: every request of the pod, not the worker container's alone.
    const after = l
      ? Math.max(
          share(l.requestedAfter.cpu, a.cpu),
          share(l.requestedAfter.memory, a.memory)
        )
      : before;
    const p = pool(n.pool ?? NO_POOL);
    p.nodes.push({
      name: n.name,
      cordoned: n.cordoned,
      ready: n.ready,
      tainted: n.taints.length > 0,
      before,
      after,
      workers
    });
    p.workers += workers;
  }
  let placedAfterScaleUp = 0;
  for (const g of placement.scaleUp?.pools ?? []) {
    const p = pool(g.pool);
    p.adds += g.nodesAdded;
    p.addedWorkers += g.replicas.length;
    p.readyInSeconds = Math.max(p.readyInSeconds ?? 0, g.readyInSeconds);
    p.atMaxSize = p.atMaxSize || g.maxSizeReached;
    p.tied.push(...(g.tied ?? []));
    placedAfterScaleUp += g.replicas.length;
  }
  const never = placement.replicas - placement.placed - placedAfterScaleUp;
  return {
    pools: [...pools.values()].filter(
      p =>
        p.nodes.length > 0 ||
        p.adds > 0 ||
        (summary.pools ?? []).some(x => x.name === p.name)
    ),
    placedNow: placement.placed,
    placedAfterScaleUp,
    never: Math.max(never, 0),
    tiedWorkers: placement.placements.filter(
      c => c.node !== null && c.tiedNodes > 1
    ).length
  };
}
