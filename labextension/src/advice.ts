// The engine's advice in words: its fixes (each one decided again by the
// engine before it reaches here), how the workers tile a pool's new node,
// what the API server changes in the pod, and the warnings. Every judgement
// is the engine's, as data (Advice, Placement, Unplaced.blockedByVolumes,
// the claims a pod mounts), with whose a claim is from the server extension:
// this file words them. It matches no toleration, selector or size itself.
import type {
  Advice,
  AdmissionChange,
  DrainBlock,
  Fix,
  Outcome,
  Placement,
  PoolTiling,
  Shape,
  Toleration,
  Unplaced
} from '@tightpack/wasm';
import { IClaim, zonesText } from './claims.js';
import { plural } from './dom.js';
import { formatWait } from './quantity.js';
import { IWorkerTemplate } from './types.js';

/** "a", "a and b", "a, b and c". */
export function list(items: string[]): string {
  return items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** What the copies are, for sentences: workers, or a profile's notebook servers. */
export interface INoun {
  one: string;
  many: string;
}

export const WORKERS: INoun = { one: 'worker', many: 'workers' };

/** The noun for a template's pods: a KubeSpawner profile starts notebook servers. */
export function nounOf(source?: IWorkerTemplate['source']): INoun {
  return source === 'profile'
    ? { one: 'notebook server', many: 'notebook servers' }
    : WORKERS;
}

function count(n: number, noun: INoun): string {
  return `${n} ${n === 1 ? noun.one : noun.many}`;
}

/** "dask=worker:NoSchedule", as kubectl prints a taint a toleration matches. */
export function tolerationText(t: Toleration): string {
  const value = t.operator === 'Exists' || !t.value ? '' : `=${t.value}`;
  return `${t.key ?? '*'}${value}${t.effect ? `:${t.effect}` : ''}`;
}

/** "3850m cpu" or "3850m cpu and 12Gi memory": the resources a shape changes. */
export function shapeText(
  requests: Record<string, string>,
  change: Record<string, number>
): string {
  const changed = Object.keys(change).filter(r => change[r] !== 0);
  return list(changed.map(r => `${requests[r]} ${r}`));
}

/**
 * Where the copies of an outcome run: "all 40 run, on 20 new nodes (ready
 * in ~2 min)", "71 of 400 run, 6 of them now; 329 never do".
 */
export function outcomeText(o: Outcome, noun: INoun): string {
  const running = o.now + o.afterScaleUp;
  const runs =
    running === o.replicas
      ? o.replicas === 1
        ? `it runs`
        : `all ${o.replicas} run`
      : `${running} of ${count(o.replicas, noun)} run`;
  const where =
    o.nodesAdded === 0
      ? running
        ? ` on ${plural(o.nodes, 'node')} there now`
        : ''
      : o.nodesAdded === o.nodes
        ? ` on ${plural(o.nodesAdded, 'new node')} (ready in ${formatWait(o.readyInSeconds)})`
        : ` on ${plural(o.nodes, 'node')}, ${o.nodesAdded} of them new (ready in ${formatWait(o.readyInSeconds)})`;
  const never = o.never
    ? `; ${o.never} never ${o.never === 1 ? 'does' : 'do'}`
    : '';
  return `${runs}${where}${never}`;
}

/** What a fix changes, as things to do: "add toleration …", "ask for 3850m cpu". */
export function fixActions(f: Fix, noun: INoun): string[] {
  const c = f.change;
  const out: string[] = [];
  for (const t of c.addTolerations ?? [])
    out.push(`add toleration ${tolerationText(t)}`);
  for (const [k, v] of Object.entries(c.addNodeSelector ?? {}))
    out.push(`select pool ${f.pool ?? v} (${k}=${v})`);
  if (c.requests && c.requestChange)
    out.push(`ask for ${shapeText(c.requests, c.requestChange)}`);
  if (c.replicas !== undefined) out.push(`ask for ${count(c.replicas, noun)}`);
  if (f.maxSize)
    out.push(
      `ask your operator to raise the max size of pool ${f.maxSize.pool} from ${f.maxSize.from} to ${f.maxSize.to}`
    );
  return out;
}

/**
 * The fix as one sentence: what to do, then what it achieves ("…, none on
 * core-pool" when it takes the copies off the pools not meant for them).
 */
export function fixText(f: Fix, noun: INoun, advice?: Advice): string {
  const actions = fixActions(f, noun);
  const first = actions.length
    ? actions[0][0].toUpperCase() + actions[0].slice(1)
    : '';
  const what = [first, ...actions.slice(1)];
  const notMeant = new Set((advice?.notMeant ?? []).map(n => n.pool));
  const left = (advice?.asIs?.pools ?? [])
    .map(p => p.pool)
    .filter((p): p is string => p !== null && notMeant.has(p));
  const offPool =
    left.length && f.outcome.offPool === 0 ? `, none on ${list(left)}` : '';
  return `${list(what)}: ${outcomeText(f.outcome, noun)}${offPool}.`;
}

/** The first shape, when the pool is worth tiling. */
export function tilingShape(t: PoolTiling): Shape | null {
  return t.worthTiling && t.suggestions.length ? t.suggestions[0] : null;
}

/**
 * How the copies fill a pool's new node and what a smaller shape gains: "A
 * new dask-workers node takes 1 of these workers and leaves 49 % of its cpu
 * idle. At 3850m cpu, 2 fit: all 40 run on 20 new nodes instead of 40."
 */
export function tilingText(t: PoolTiling, noun: INoun, asIs?: Outcome): string {
  const idle = Math.round((t.idle[t.binding] ?? 0) * 100);
  const head = `A new ${t.pool} node takes ${count(t.perNode, noun)} and leaves ${idle} % of its ${t.binding} idle.`;
  const s = tilingShape(t);
  if (!s) return head;
  const fit = `At ${shapeText(s.requests, s.change)}, ${s.perNode} fit`;
  if (!s.outcome || !asIs) return `${head} ${fit}.`;
  const then = s.outcome.now + s.outcome.afterScaleUp;
  const before = asIs.now + asIs.afterScaleUp;
  const runs =
    then === before
      ? `${then === s.outcome.replicas ? `all ${then}` : then} run on ${plural(s.outcome.nodes, 'node')} instead of ${asIs.nodes}`
      : `${then} run instead of ${before}, on ${plural(s.outcome.nodes, 'node')}`;
  return `${head} ${fit}: ${runs}.`;
}

/** The pool whose tiling matters here: the one most of the copies go to, if worth it. */
export function tilingOf(advice: Advice): PoolTiling | null {
  const copies = new Map(
    (advice.asIs?.pools ?? []).map(p => [p.pool ?? '', p.replicas])
  );
  const worth = advice.pools.filter(t => tilingShape(t));
  worth.sort((a, b) => (copies.get(b.pool) ?? 0) - (copies.get(a.pool) ?? 0));
  const best = worth[0];
  if (!best) return null;
  // Without copies (no replicas asked), any pool worth it will do.
  return copies.size === 0 || (copies.get(best.pool) ?? 0) > 0 ? best : null;
}

/**
 * Replicas that pools in other zones would take but for their volumes
 * (Unplaced.blockedByVolumes): which disk pins them to which zone, which
 * pools could take them, and what the operator can do ("Your home disk
 * (claim claim-alice) is in us-central1-b, where no pool can grow for it:
 * pool gpu-t4-c in another zone could take it if the disk were there. Ask
 * your operator to move the volume or raise the max size of gpu-t4 (1).").
 */
export function volumeFix(u: Unplaced, claims: IClaim[] = []): string {
  const zoned = claims.filter(c => c.bound && c.zones.length > 0);
  const disk = zoned.find(c => c.own) ?? zoned[0];
  const it = u.replicas.length === 1 ? 'it' : 'them';
  const subject = disk
    ? `${disk.own ? `Your home disk (claim ${disk.name})` : `The disk of claim ${disk.name}`} is in ${zonesText(disk.zones)}, where no pool can grow for ${it}`
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

/** Why cluster-autoscaler keeps the workers' nodes: the engine's drain rule, in words. */
function blockedWhy(
  rule: DrainBlock,
  source: IWorkerTemplate['source']
): string {
  switch (rule) {
    case 'NotReplicated':
      return source === 'dask-gateway'
        ? 'dask-gateway starts workers without a controller (their owner is the scheduler pod), so cluster-autoscaler will not remove a node they run on unless they carry the annotation cluster-autoscaler.kubernetes.io/safe-to-evict: "true" (an evicted worker loses what it holds in memory).'
        : 'The workers have no controller, so cluster-autoscaler will not remove a node they run on unless they carry the annotation cluster-autoscaler.kubernetes.io/safe-to-evict: "true" (an evicted worker loses what it holds in memory).';
    case 'LocalStorageRequested':
      return 'The workers mount emptyDir or hostPath volumes (local storage), so cluster-autoscaler will not remove a node they run on unless the annotation cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes names those volumes (their contents are lost with the worker).';
    default:
      return `cluster-autoscaler's drain rule ${rule} keeps the node while they run.`;
  }
}

export interface IWarning {
  kind:
    | 'tolerates-not-selects'
    | 'pool-at-max'
    | 'blocks-scale-down'
    | 'evictable'
    | 'ties'
    | 'karpenter';
  /** One line, always shown. */
  text: string;
  /** The rest, folded under it. */
  more?: string;
}

/**
 * Facts the user should know about the answer. `advice`, once the engine
 * has given it, tells which pools could take the workers at all: a pool the
 * workers tolerate but whose new node cannot hold one (no GPU there) is no
 * warning.
 */
export function warnings(
  placement: Placement,
  source: IWorkerTemplate['source'] = 'dask-kubernetes',
  advice: Advice | null = null
): IWarning[] {
  const out: IWarning[] = [];
  const noun = nounOf(source);
  // Workers that tolerate a pool's taint but are not pinned to that pool:
  // cluster-autoscaler may grow a pool not meant for them instead (as in the
  // autoscaler corpus). The engine's advice says which pools could take them
  // and which are not meant for them; until it has, nothing is said.
  const grown = (placement.scaleUp?.pools ?? []).map(g => g.pool);
  const could = new Set(
    (advice?.pools ?? []).filter(t => t.perNode > 0).map(t => t.pool)
  );
  const notMeant = new Map((advice?.notMeant ?? []).map(n => [n.pool, n.why]));
  for (const t of placement.toleratedPoolTaints ?? []) {
    const elsewhere = grown.filter(g => g !== t.pool && notMeant.has(g));
    if (t.pinned || !elsewhere.length || !could.has(t.pool)) continue;
    const named = elsewhere.map(g =>
      notMeant.get(g) === 'hub-core' ? `${g}, the hub's pool,` : g
    );
    out.push({
      kind: 'tolerates-not-selects',
      text: `Your ${noun.many} tolerate ${t.taint} (pool ${t.pool}) but do not select that pool, so cluster-autoscaler grows ${list(named)} for them instead.`
    });
  }
  for (const g of placement.scaleUp?.pools ?? []) {
    if (g.maxSizeReached)
      out.push({
        kind: 'pool-at-max',
        text: `Pool ${g.pool} reaches its max size${g.maxSize !== null ? ` (${g.maxSize})` : ''}: ${noun.many} beyond it stay Pending.`
      });
  }
  // The engine models cluster-autoscaler: on a pool Karpenter manages, the
  // nodes it adds are that model's answer, not Karpenter's.
  const karpenter = (placement.scaleUp?.pools ?? [])
    .filter(g => g.managedBy === 'karpenter')
    .map(g => g.pool);
  if (karpenter.length)
    out.push({
      kind: 'karpenter',
      text: `Karpenter manages ${karpenter.length === 1 ? 'pool' : 'pools'} ${list(karpenter)}: the nodes shown are what cluster-autoscaler would add, and Karpenter may add others.`,
      more: 'tightpack does not model Karpenter yet. Karpenter picks an instance type for each batch of pending pods from its NodePool’s requirements, so its nodes may be of another size, and it consolidates nodes on its own schedule.'
    });
  for (const u of placement.scaleUp?.unplaced ?? []) {
    if (u.poolsAtMax.length && !out.some(w => w.kind === 'pool-at-max')) {
      out.push({
        kind: 'pool-at-max',
        text: `${count(u.replicas.length, noun)} ${u.replicas.length === 1 ? 'stays' : 'stay'} Pending: ${u.reason}.`
      });
    }
  }
  // What cluster-autoscaler's scale-down does with the workers is the
  // engine's answer (its drain rules on the pod as the client will own it):
  // here it is only worded, for the Dask clients whose workers come and go.
  const drain = placement.scaleDown;
  if (source === 'dask-kubernetes' || source === 'dask-gateway') {
    if (drain.evicted) {
      out.push({
        kind: 'evictable',
        text: 'cluster-autoscaler may evict workers to remove a node.',
        more: `${source === 'dask-kubernetes' ? 'The Dask operator makes each worker a one-replica Deployment, so cluster-autoscaler' : 'Your workers say safe-to-evict: "true", so cluster-autoscaler'} may evict workers to remove a node: an evicted worker loses what it holds in memory and its running tasks, which Dask then computes again. To keep them while they run, annotate the worker template cluster-autoscaler.kubernetes.io/safe-to-evict: "false" (their nodes then stay until the workers leave).`
      });
    } else if (
      drain.blockedBy &&
      drain.blockedBy !== 'NotSafeToEvictAnnotation'
    ) {
      out.push({
        kind: 'blocks-scale-down',
        text: 'Nodes these workers run on are not removed while they run.',
        more: blockedWhy(drain.blockedBy, source)
      });
    }
  }
  const tied = placement.placements.filter(
    c => c.node !== null && c.tiedNodes > 1
  ).length;
  if (tied) {
    out.push({
      kind: 'ties',
      text: `${tied} of the ${noun.many} had several equally good nodes.`,
      more: `kube-scheduler picks among equally good nodes at random, so they may land on another node of the same score than shown here (the first by name).`
    });
  }
  return out;
}
