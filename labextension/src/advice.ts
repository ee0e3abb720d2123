// Plain-language fixes for workers that never run, and warnings about what
// surprises users and operators. Every judgement comes from the engine as
// data (Unschedulable.facts, Unplaced.poolsAtMax, unoffered and
// blockedByVolumes, Placement.toleratedPoolTaints) and from the server
// extension's description of the claims a pod mounts (ITemplateClaim): this
// file words them, it does not read kube-scheduler's or cluster-autoscaler's
// English, nor match tolerations or volumes.
import type {
  AdmissionChange,
  ClusterSummary,
  Placement,
  Unplaced
} from '@tightpack/wasm';
import { formatBytes, formatCores } from './quantity.js';
import { IPod, ITemplateClaim, IWorkerTemplate } from './types.js';

/** "a", "a and b", "a, b and c". */
function list(items: string[]): string {
  return items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * Replicas that pools in other zones would take but for their volumes
 * (Unplaced.blockedByVolumes): which disk pins them to which zone, which
 * pools could take them, and what the operator can do ("Your home disk
 * (claim claim-alice) is in us-central1-b, where no pool can grow for it:
 * pool gpu-t4-c in another zone could take it if the disk were there. Ask
 * your operator to move the volume or raise the max size of gpu-t4 (1).").
 */
export function volumeFix(u: Unplaced, claims: ITemplateClaim[] = []): string {
  const zoned = claims.filter(c => c.state === 'bound' && c.zones.length > 0);
  const disk = zoned.find(c => c.own) ?? zoned[0];
  const it = u.replicas.length === 1 ? 'it' : 'them';
  const subject = disk
    ? `${disk.own ? `Your home disk (claim ${disk.name})` : `The disk of claim ${disk.name}`} is in ${disk.zones.join(' or ')}, where no pool can grow for ${it}`
    : `Its volumes are in a zone where no pool can grow for ${it}`;
  const pools = u.blockedByVolumes;
  const could = `${pools.length === 1 ? 'pool' : 'pools'} ${list(pools)} in ${pools.length === 1 ? 'another zone' : 'other zones'} could take ${it} if the ${disk ? 'disk' : 'volumes'} were there`;
  const atMax = u.poolsAtMax.map(p => `${p.pool} (${p.maxSize})`);
  const ask = atMax.length
    ? `Ask your operator to move the volume or raise the max size of ${list(atMax)}`
    : `Ask your operator to move the volume or add a pool in ${disk ? 'its' : 'that'} zone`;
  return `${subject}: ${could}. ${ask}.`;
}

/**
 * Fixes for the copies that fit nowhere and for the pools that cannot grow:
 * "add toleration dask=worker:NoSchedule", "ask for at most 12.3 GiB of
 * memory to fit the highmem pool", and for copies whose disk is in the wrong
 * zone, the volumeFix (`claims`: what the template's pod mounts).
 */
export function fixes(
  summary: ClusterSummary,
  placement: Placement,
  pod: IPod,
  claims: ITemplateClaim[] = []
): string[] {
  const out = new Set<string>();
  const unplaced = placement.scaleUp?.unplaced ?? [];
  // A pool would take every copy that does not run but for its volumes: the disk's zone
  // is what keeps it, first of all; its tolerations and node selector are not wrong.
  for (const u of unplaced)
    if (u.blockedByVolumes?.length) out.add(volumeFix(u, claims));
  const volumesOnly =
    unplaced.length > 0 && unplaced.every(u => u.blockedByVolumes?.length);
  const facts = placement.unschedulable?.facts;
  if (facts) {
    if (!volumesOnly)
      for (const t of facts.untoleratedTaints)
        out.add(`add toleration ${t.taint}`);
    for (const s of facts.insufficient) {
      if (!s.pool) continue;
      // Asking for less of one resource does not help where another is short too
      // (a GPU node without a free GPU).
      if (facts.insufficient.some(o => o !== s && o.node === s.node)) continue;
      if (s.resource === 'memory')
        out.add(
          `ask for at most ${formatBytes(s.largestFree)} of memory to fit the ${s.pool} pool`
        );
      if (s.resource === 'cpu')
        out.add(
          `ask for at most ${formatCores(s.largestFree)} to fit the ${s.pool} pool`
        );
    }
    const selector = Object.entries(pod.spec?.nodeSelector ?? {});
    if (facts.nodeAffinityMismatch > 0 && selector.length && !volumesOnly) {
      out.add(
        `check the node selector ${selector.map(([k, v]) => `${k}=${v}`).join(', ')}: no node with room carries it`
      );
    }
    if (!(summary.pools ?? []).length) {
      for (const r of facts.unoffered)
        out.add(`no node offers ${r}: ask your operator for a pool with it`);
    }
  }
  for (const u of unplaced) {
    for (const r of u.unoffered)
      out.add(`no pool offers ${r}: ask your operator for one, or set it to 0`);
    // The volume fix names the pools at their max size: fewer workers would not help.
    if (u.blockedByVolumes?.length) continue;
    for (const p of u.poolsAtMax) {
      out.add(
        `pool ${p.pool} is at its max size ${p.maxSize}: use fewer workers or ask your operator to raise it`
      );
    }
  }
  return [...out];
}

/**
 * What the API server changed in the pod before placing it, as phrases
 * ("sets request nvidia.com/gpu 1 from its limit in notebook"). The
 * not-ready/unreachable tolerations every pod gets are left unsaid.
 */
export function admissionNotes(changes: AdmissionChange[]): string[] {
  const out: string[] = [];
  for (const c of changes) {
    if (c.by === 'defaulting')
      out.push(
        `sets request ${c.resource} ${c.request} from its limit in ${c.container || 'the container'}`
      );
    else if (c.by === 'ExtendedResourceToleration')
      out.push(
        `adds toleration ${c.toleration.key}:${c.toleration.effect} (ExtendedResourceToleration)`
      );
  }
  return out;
}

export interface IWarning {
  kind:
    | 'tolerates-not-selects'
    | 'pool-at-max'
    | 'blocks-scale-down'
    | 'evictable'
    | 'ties';
  text: string;
}

export function warnings(
  placement: Placement,
  pod: IPod,
  source: IWorkerTemplate['source'] = 'dask-kubernetes'
): IWarning[] {
  const out: IWarning[] = [];
  // Workers that tolerate a pool's taint but are not pinned to that pool:
  // cluster-autoscaler may grow another pool for them (as in the autoscaler corpus).
  const grown = (placement.scaleUp?.pools ?? []).map(g => g.pool);
  for (const t of placement.toleratedPoolTaints ?? []) {
    const elsewhere = grown.filter(g => g !== t.pool);
    if (t.pinned || !elsewhere.length) continue;
    out.push({
      kind: 'tolerates-not-selects',
      text:
        `Your workers tolerate ${t.taint} (pool ${t.pool}) but do not select that pool, so cluster-autoscaler grows ${elsewhere.join(', ')} for them instead.` +
        (t.nodeLabel
          ? ` Add node selector ${t.nodeLabel.key}=${t.nodeLabel.value}.`
          : '')
    });
  }
  for (const g of placement.scaleUp?.pools ?? []) {
    if (g.maxSizeReached)
      out.push({
        kind: 'pool-at-max',
        text: `Pool ${g.pool} reaches its max size${g.maxSize !== null ? ` (${g.maxSize})` : ''}: workers beyond it stay Pending.`
      });
  }
  for (const u of placement.scaleUp?.unplaced ?? []) {
    if (u.poolsAtMax.length && !out.some(w => w.kind === 'pool-at-max')) {
      const who =
        source !== 'profile'
          ? `${u.replicas.length} workers stay`
          : u.replicas.length === 1
            ? 'Your notebook server stays'
            : `${u.replicas.length} notebook servers stay`;
      out.push({ kind: 'pool-at-max', text: `${who} Pending: ${u.reason}.` });
    }
  }
  // What the clients make the workers to cluster-autoscaler: the operator's
  // are one-replica Deployments (ReplicaSet-owned, evicted to remove a node);
  // dask-gateway's name their scheduler pod as owner without controller:
  // true, so they block their node like bare pods.
  const evict = (pod.metadata?.annotations ?? {})[
    'cluster-autoscaler.kubernetes.io/safe-to-evict'
  ];
  if (source === 'dask-kubernetes' && evict !== 'false') {
    out.push({
      kind: 'evictable',
      text: 'The Dask operator makes each worker a one-replica Deployment, so cluster-autoscaler may evict workers to remove a node: an evicted worker loses what it holds in memory and its running tasks, which Dask then computes again. To keep them while they run, annotate the worker template cluster-autoscaler.kubernetes.io/safe-to-evict: "false" (their nodes then stay until the workers leave).'
    });
  } else if (source === 'dask-gateway' && evict !== 'true') {
    out.push({
      kind: 'blocks-scale-down',
      text: 'dask-gateway starts workers without a controller (their owner is the scheduler pod), so cluster-autoscaler will not remove a node they run on unless they carry the annotation cluster-autoscaler.kubernetes.io/safe-to-evict: "true" (an evicted worker loses what it holds in memory).'
    });
  }
  const tied = placement.placements.filter(
    c => c.node !== null && c.tiedNodes > 1
  ).length;
  if (tied) {
    out.push({
      kind: 'ties',
      text: `${tied} of the workers had several equally good nodes; kube-scheduler picks among them at random, so they may land on another node of the same score than shown here (the first by name).`
    });
  }
  return out;
}
