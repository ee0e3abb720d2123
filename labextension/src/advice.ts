// Plain-language fixes for workers that never run, and warnings about what
// surprises users and operators, from the engine's answers.
import type { ClusterSummary, Placement } from '@tightpack/wasm';
import { formatBytes, formatCores, parseQuantity } from './quantity.js';
import { Pod, WorkerTemplate } from './types.js';

/** "{dask: worker}" in kube-scheduler's message -> the taint on the cluster's nodes. */
function taintsNamed(summary: ClusterSummary, key: string, value: string): string[] {
  const found = new Set<string>();
  for (const n of summary.nodes) {
    for (const t of n.taints) {
      if (t.startsWith(value ? `${key}=${value}:` : `${key}:`) && !t.endsWith(':PreferNoSchedule')) found.add(t);
    }
  }
  return [...found];
}

/** Whether one of the pod's tolerations tolerates a taint printed as kubectl prints it. */
function tolerates(pod: Pod, taint: string): boolean {
  const m = /^([^=:]+)(?:=([^:]*))?:(\w+)$/.exec(taint);
  if (!m) return false;
  return (pod.spec?.tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== m[3]) return false;
    if ((t.operator ?? 'Equal') === 'Exists') return !t.key || t.key === m[1];
    return t.key === m[1] && (t.value ?? '') === (m[2] ?? '');
  });
}

/**
 * The NoSchedule/NoExecute taints on the cluster's nodes that none of the
 * pod's tolerations tolerate. Since kubernetes#134740 (1.35, back-ported)
 * kube-scheduler's message says only "node(s) had untolerated taint(s)":
 * which taints they were is read from the nodes.
 */
function untoleratedTaints(summary: ClusterSummary, pod: Pod): string[] {
  const found = new Set<string>();
  for (const n of summary.nodes) {
    for (const taint of n.taints) {
      if (taint.endsWith(':PreferNoSchedule')) continue;
      if (!tolerates(pod, taint)) found.add(taint);
    }
  }
  return [...found].sort();
}

/** The most a worker can ask for and still fit a pool's emptiest node, per pool. */
function roomPerPool(summary: ClusterSummary, resource: string): Map<string, number> {
  const room = new Map<string, number>();
  for (const n of summary.nodes) {
    if (!n.pool || n.cordoned) continue;
    const free = (n.allocatable[resource] ?? 0) - (n.requested[resource] ?? 0);
    room.set(n.pool, Math.max(room.get(n.pool) ?? 0, free));
  }
  return room;
}

function largest(room: Map<string, number>): [string, number] | null {
  let best: [string, number] | null = null;
  for (const [pool, free] of room) if (!best || free > best[1]) best = [pool, free];
  return best && best[1] > 0 ? best : null;
}

/**
 * Fixes for kube-scheduler's FailedScheduling message and cluster-autoscaler's
 * reasons: "add toleration dask=worker:NoSchedule", "ask for at most 12.3 GiB
 * to fit the highmem pool".
 */
export function fixes(summary: ClusterSummary, placement: Placement, pod: Pod): string[] {
  const out = new Set<string>();
  const texts = [placement.unschedulable?.message ?? ''];
  for (const u of placement.scaleUp?.unplaced ?? []) {
    texts.push(u.reason);
    for (const d of u.pools) texts.push(...d.autoscaler, ...d.filters);
  }
  const all = texts.join('\n');
  if (/untolerated taint\(s\)/.test(all)) {
    for (const taint of untoleratedTaints(summary, pod)) out.add(`add toleration ${taint}`);
  }
  // Clusters before that change name the first taint of each node.
  for (const m of all.matchAll(/untolerated taint\(?s?\)? \{([^:}]+): ?([^}]*)\}/g)) {
    for (const taint of taintsNamed(summary, m[1].trim(), m[2].trim())) out.add(`add toleration ${taint}`);
  }
  for (const m of all.matchAll(/untolerated taint ((?:[^\s;,{]+:[A-Za-z]+)(?:, [^\s;,{]+:[A-Za-z]+)*)/g)) {
    for (const taint of m[1].split(', ')) out.add(`add toleration ${taint}`);
  }
  const c = pod.spec?.containers?.[0]?.resources?.requests ?? {};
  if (/Insufficient memory|enough [^;]*memory/.test(all)) {
    const best = largest(roomPerPool(summary, 'memory'));
    const asked = parseQuantity(c.memory ?? '0') ?? 0;
    if (best && best[1] < asked) out.add(`ask for at most ${formatBytes(best[1])} of memory to fit the ${best[0]} pool`);
  }
  if (/Insufficient cpu|enough [^;]*cpu/.test(all)) {
    const best = largest(roomPerPool(summary, 'cpu'));
    const asked = (parseQuantity(c.cpu ?? '0') ?? 0) * 1000;
    if (best && best[1] < asked) out.add(`ask for at most ${formatCores(best[1])} to fit the ${best[0]} pool`);
  }
  for (const m of all.matchAll(/Insufficient ([a-z0-9.-]+\/[a-z0-9.-]+)/g)) {
    if (!summary.nodes.some((n) => (n.allocatable[m[1]] ?? 0) > 0) && !(summary.pools ?? []).length) {
      out.add(`no node offers ${m[1]}: ask your operator for a pool with it`);
    }
  }
  for (const m of all.matchAll(/no pool offers ([a-z0-9./-]+)/g)) out.add(`no pool offers ${m[1]}: ask your operator for one, or set it to 0`);
  if (/didn't match Pod's node affinity\/selector/.test(all) && Object.keys(pod.spec?.nodeSelector ?? {}).length) {
    const sel = Object.entries(pod.spec!.nodeSelector!).map(([k, v]) => `${k}=${v}`).join(', ');
    out.add(`check the node selector ${sel}: no node with room carries it`);
  }
  for (const m of all.matchAll(/max size (\d+) of pool ([\w.-]+) reached/g)) {
    out.add(`pool ${m[2]} is at its max size ${m[1]}: use fewer workers or ask your operator to raise it`);
  }
  return [...out];
}

export interface Warning {
  kind: 'tolerates-not-selects' | 'pool-at-max' | 'blocks-scale-down' | 'evictable' | 'ties';
  text: string;
}

const POOL_LABELS = ['cloud.google.com/gke-nodepool', 'eks.amazonaws.com/nodegroup', 'kubernetes.azure.com/agentpool', 'karpenter.sh/nodepool'];


export function warnings(
  summary: ClusterSummary,
  placement: Placement,
  pod: Pod,
  source: WorkerTemplate['source'] = 'dask-kubernetes',
): Warning[] {
  const out: Warning[] = [];
  // Workers that tolerate a pool's taint but do not select it: cluster-autoscaler
  // may grow another pool for them (as in the autoscaler corpus).
  const selector = pod.spec?.nodeSelector ?? {};
  const selectsPool = POOL_LABELS.some((l) => l in selector) || !!(pod.spec as { affinity?: unknown } | undefined)?.affinity;
  if (!selectsPool) {
    const tainted = new Map<string, string>();
    for (const n of summary.nodes) {
      if (!n.pool) continue;
      for (const t of n.taints) if (!t.endsWith(':PreferNoSchedule') && tolerates(pod, t)) tainted.set(n.pool, t);
    }
    const grown = (placement.scaleUp?.pools ?? []).map((g) => g.pool);
    for (const [pool, taint] of tainted) {
      const elsewhere = grown.filter((g) => g !== pool);
      if (elsewhere.length) {
        const label = summary.nodes.find((n) => n.pool === pool)?.labels;
        const key = POOL_LABELS.find((l) => label?.[l] === pool);
        out.push({
          kind: 'tolerates-not-selects',
          text: `Your workers tolerate ${taint} (pool ${pool}) but do not select that pool, so cluster-autoscaler grows ${elsewhere.join(', ')} for them instead.` +
            (key ? ` Add node selector ${key}=${pool}.` : ''),
        });
      }
    }
  }
  for (const g of placement.scaleUp?.pools ?? []) {
    if (g.maxSizeReached) out.push({ kind: 'pool-at-max', text: `Pool ${g.pool} reaches its max size${g.maxSize !== null ? ` (${g.maxSize})` : ''}: workers beyond it stay Pending.` });
  }
  for (const u of placement.scaleUp?.unplaced ?? []) {
    if (/max size/.test(u.reason) && !out.some((w) => w.kind === 'pool-at-max')) {
      out.push({ kind: 'pool-at-max', text: `${u.replicas.length} workers stay Pending: ${u.reason}.` });
    }
  }
  // What the clients make the workers to cluster-autoscaler: the operator's
  // are one-replica Deployments (ReplicaSet-owned, evicted to remove a node);
  // dask-gateway's name their scheduler pod as owner without controller:
  // true, so they block their node like bare pods.
  const evict = (pod.metadata?.annotations ?? {})['cluster-autoscaler.kubernetes.io/safe-to-evict'];
  if (source === 'dask-kubernetes' && evict !== 'false') {
    out.push({
      kind: 'evictable',
      text: 'The Dask operator makes each worker a one-replica Deployment, so cluster-autoscaler may evict workers to remove a node: an evicted worker loses what it holds in memory and its running tasks, which Dask then computes again. To keep them while they run, annotate the worker template cluster-autoscaler.kubernetes.io/safe-to-evict: "false" (their nodes then stay until the workers leave).',
    });
  } else if (source === 'dask-gateway' && evict !== 'true') {
    out.push({
      kind: 'blocks-scale-down',
      text: 'dask-gateway starts workers without a controller (their owner is the scheduler pod), so cluster-autoscaler will not remove a node they run on unless they carry the annotation cluster-autoscaler.kubernetes.io/safe-to-evict: "true" (an evicted worker loses what it holds in memory).',
    });
  }
  const tied = placement.placements.filter((c) => c.node !== null && c.tiedNodes > 1).length;
  if (tied) {
    out.push({
      kind: 'ties',
      text: `${tied} of the workers had several equally good nodes; kube-scheduler picks among them at random, so they may land on another node of the same score than shown here (the first by name).`,
    });
  }
  return out;
}
