// A client of the declarations, type-checked by types.test.js: if index.d.ts
// stops describing what a caller writes, this stops compiling.
import {
  loadEngine,
  type Engine,
  type Advice,
  type Placement,
  type Result,
  type Cluster
} from '@tightpack/wasm';

export async function example(snapshot: Uint8Array): Promise<string[]> {
  const engine: Engine = await loadEngine();
  const lines: string[] = [
    engine.version,
    engine.replay('{}'),
    engine.autoscale(new Uint8Array())
  ];
  const memory = engine.quantity('8Gi');
  if (memory.ok && memory.value.sign > 0) lines.push('8Gi');
  const loaded: Result<Cluster> = engine.loadCluster(snapshot, {
    pools: null,
    schedulerConfig: { profiles: [] }
  });
  if (!loaded.ok) return [loaded.error];
  const cluster = loaded.value;
  const n: number =
    cluster.loaded.nodes +
    cluster.loaded.pods +
    cluster.loaded.pendingPods +
    cluster.loaded.pools;
  const placed: Result<Placement> = cluster.place({
    pod: {},
    replicas: 3,
    profile: 'tightpack',
    admission: { extendedResourceToleration: true }
  });
  if (placed.ok) {
    for (const c of placed.value.admission)
      lines.push(
        c.by === 'defaulting'
          ? `${c.container} ${c.request}`
          : `${c.toleration.key ?? '*'}`
      );
    for (const node of placed.value.nodes)
      lines.push(`${node.node} ${node.pool ?? '-'} ${node.cpu.requestedAfter}`);
    for (const p of placed.value.placements)
      lines.push(`${p.pod} ${p.node ?? 'pending'} ${p.tiedNodes}`);
    if (placed.value.unschedulable) {
      const facts = placed.value.unschedulable.facts;
      lines.push(
        placed.value.unschedulable.message,
        ...facts.untoleratedTaints.map(t => `${t.taint} ${t.nodes}`)
      );
      for (const s of facts.insufficient)
        lines.push(`${s.resource} ${s.largestFree} ${s.pool ?? '-'}`);
    }
    for (const u of placed.value.scaleUp?.unplaced ?? [])
      lines.push(...u.poolsAtMax.map(p => `${p.pool} ${p.maxSize}`));
    for (const g of placed.value.scaleUp?.pools ?? [])
      lines.push(`${g.pool} +${g.nodesAdded} ${g.readyInSeconds}s`);
  }
  const explained = cluster.explain({
    pod: {},
    profile: 'most-allocated',
    release: 'v1.30'
  });
  if (explained.ok)
    lines.push(
      explained.value.result.chosen ?? explained.value.result.message ?? ''
    );
  const advice: Result<Advice> = cluster.advise({ pod: {}, replicas: 40 });
  if (advice.ok) {
    for (const p of advice.value.pools)
      lines.push(
        `${p.pool} ${p.perNode} ${p.binding} ${p.idle.cpu ?? 0}`,
        ...p.suggestions.map(s => `${s.perNode} ${s.requests.cpu ?? ''}`)
      );
    for (const f of advice.value.fixes ?? [])
      lines.push(
        `${f.pool ?? 'fewer'} +${f.gained} ${f.maxSize?.to ?? ''} ${f.outcome.nodes}`,
        ...(f.change.addTolerations ?? []).map(t => t.key ?? '*')
      );
    lines.push(...advice.value.notMeant.map(n => `${n.pool} ${n.why}`));
  }
  const forecast = cluster.forecast({ remove: 'dask.org/cluster-name=alice' });
  if (forecast.ok) {
    for (const node of forecast.value.nodes)
      lines.push(
        `${node.node} ${node.removable ? 'goes' : (node.reason ?? '')}`
      );
  }
  const summary = cluster.summary();
  if (summary.ok) {
    for (const p of summary.value.builtInProfiles)
      lines.push(
        `${p.name} ${p.schedulerName} ${p.release ?? 'newest'} ${p.description}`
      );
    for (const node of summary.value.nodes) {
      const gpus: number | undefined = node.allocatable['nvidia.com/gpu'];
      lines.push(
        `${node.name} ${node.requested.cpu}/${node.allocatable.cpu} ${gpus ?? 0} ${node.taints.join(',')}`
      );
    }
  }
  cluster.dispose();
  lines.push(
    String(
      n +
        engine.memoryBytes() +
        engine.heapBytesInUse() +
        engine.replayBytes({}).length
    )
  );
  return lines;
}
