// The engine's fixes and tiling in words, and the warnings, on the demo cluster
// and on a GPU notebook with its home disk.
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Advice, Outcome, Unplaced } from '@tightpack/wasm';
import {
  fixActions,
  fixText,
  nounOf,
  outcomeText,
  tilingOf,
  tilingText,
  volumeFix,
  warnings,
  WORKERS
} from '../advice.js';
import { claimsOf, IClaim } from '../claims.js';
import { adviseWorkers } from '../place.js';
import { settingsOf, workerPod, IWorkerSettings } from '../pod.js';
import { ILoadedCluster } from '../session.js';
import { IPod, ITemplateClaim, IWorkerTemplate } from '../types.js';
import { demo, loadDemo, ok, place, template, IDemo } from './demo.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
});

describe('the fixes are the engine’s, worded', () => {
  const advise = (settings: IWorkerSettings) => {
    const pod = workerPod(template.pod, settings);
    return ok(
      d.cluster.advise({
        pod,
        replicas: settings.workers,
        profile: 'tightpack',
        admission: { extendedResourceToleration: true }
      })
    );
  };

  test('400 CPU workers: never a GPU toleration, never the hub’s pool; the fix first', () => {
    const a = advise(settingsOf(template.pod, 400));
    expect(a.asIs!.never).toBe(337);
    const texts = a.fixes!.map(f => fixText(f, WORKERS, a));
    expect(texts.join('\n')).not.toMatch(/nvidia|gpu/);
    for (const f of a.fixes!) expect(f.pool).not.toBe('core-pool');
    expect(texts[0]).toBe(
      'Select pool dask-workers (cloud.google.com/gke-nodepool=dask-workers) and ask your operator to raise the max size of pool dask-workers from 10 to 60: all 400 run on 59 nodes, 58 of them new (ready in ~2 min), none on core-pool.'
    );
    // Fewer workers comes last.
    expect(texts[texts.length - 1]).toMatch(/^Ask for 63 workers: all 63 run/);
  });

  test('workers without the worker toleration are told the worker pool’s', () => {
    const a = advise({ ...settingsOf(template.pod, 200), tolerations: [] });
    expect(fixActions(a.fixes![0], WORKERS)[0]).toBe(
      'add toleration dask=worker:NoSchedule'
    );
  });

  test('a selector that is already right is never changed', () => {
    const a = advise({
      ...settingsOf(template.pod, 40),
      cores: '4',
      memory: '16Gi',
      nodeSelector: { 'cloud.google.com/gke-nodepool': 'dask-workers' }
    });
    expect(a.fixes!.length).toBeGreaterThan(0);
    for (const f of a.fixes!) expect(f.change.addNodeSelector).toBeUndefined();
    expect(fixText(a.fixes![0], WORKERS, a)).toBe(
      'Ask for 3850m cpu and ask your operator to raise the max size of pool dask-workers from 10 to 22: all 40 run on 20 new nodes (ready in ~2 min).'
    );
  });

  test('the shape that tiles the node says what it gains at this scale', () => {
    const a = advise({
      ...settingsOf(template.pod, 40),
      cores: '4',
      memory: '16Gi'
    });
    const t = tilingOf(a)!;
    expect(t.pool).toBe('dask-workers');
    expect(tilingText(t, WORKERS, a.asIs)).toBe(
      'A new dask-workers node takes 1 worker and leaves 47 % of its cpu idle. At 3850m cpu, 2 fit: 16 run instead of 8, on 8 nodes.'
    );
    // Workers that fill the node are not worth a word.
    const full = advise({
      ...settingsOf(template.pod, 8),
      cores: '3850m',
      memory: '16Gi'
    });
    expect(tilingOf(full)).toBeNull();
  });

  test('outcomes are worded from the counts', () => {
    const o: Outcome = {
      replicas: 5,
      now: 2,
      afterScaleUp: 1,
      never: 2,
      offPool: 0,
      nodes: 2,
      nodesAdded: 1,
      readyInSeconds: 130,
      pools: []
    };
    expect(outcomeText(o, WORKERS)).toBe(
      '3 of 5 workers run on 2 nodes, 1 of them new (ready in ~2 min); 2 never do'
    );
    expect(
      outcomeText(
        {
          ...o,
          replicas: 1,
          now: 1,
          afterScaleUp: 0,
          never: 0,
          nodes: 1,
          nodesAdded: 0
        },
        nounOf('profile')
      )
    ).toBe('it runs on 1 node there now');
  });
});

test('a cluster without pools has nothing to tile or grow: no advice, and no error', () => {
  const bare = ok(
    d.engine.loadCluster(demo('cluster.json'), {
      pools: {
        apiVersion: 'tightpack.io/v1alpha1',
        kind: 'NodePools',
        inferPools: false
      }
    })
  );
  const summary = ok(bare.summary());
  expect(summary.pools).toEqual([]);
  const loaded = {
    engine: d.engine,
    envelope: { admission: { extendedResourceToleration: true } },
    cluster: bare,
    summary
  } as unknown as ILoadedCluster;
  expect(
    adviseWorkers(
      loaded,
      workerPod(template.pod, settingsOf(template.pod, 400)),
      400,
      'tightpack'
    )
  ).toEqual({ ok: true, value: null });
  bare.dispose();
});

describe('warnings', () => {
  test('a Karpenter pool’s growth is said to be cluster-autoscaler’s model', () => {
    const karpenterNode = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          'karpenter.sh/nodepool': 'default',
          'node.kubernetes.io/instance-type': 'm5.xlarge'
        }
      },
      status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } }
    });
    const cluster = ok(
      d.engine.loadCluster({
        apiVersion: 'v1',
        kind: 'List',
        items: [karpenterNode('k-1')]
      })
    );
    const pod = workerPod(template.pod, {
      ...settingsOf(template.pod, 8),
      tolerations: []
    });
    const placement = ok(cluster.place({ pod, replicas: 8 }));
    cluster.dispose();
    expect(placement.scaleUp!.pools.map(g => g.managedBy)).toEqual([
      'karpenter'
    ]);
    const said = warnings(placement).filter(w => w.kind === 'karpenter');
    expect(said.map(w => w.text)).toEqual([
      'Karpenter manages pool default: the nodes shown are what cluster-autoscaler would add, and Karpenter may add others.'
    ]);
    // The demo's GKE pools are cluster-autoscaler's: nothing is said.
    const demoPlaced = place(d.cluster, settingsOf(template.pod, 60)).placement;
    expect(demoPlaced.scaleUp!.pools.length).toBeGreaterThan(0);
    expect(warnings(demoPlaced).some(w => w.kind === 'karpenter')).toBe(false);
  });

  test('a pool at its max size is a warning', () => {
    const s = { ...settingsOf(template.pod, 400), cores: '4', memory: '16Gi' };
    const { pod, placement } = place(d.cluster, s);
    expect(warnings(placement).map(w => w.kind)).toContain('pool-at-max');
  });

  test('workers that tolerate the worker pool but do not select it are warned when another pool grows, once the engine says that pool could take them', () => {
    const s = settingsOf(template.pod, 60);
    const { pod, placement } = place(d.cluster, s);
    // The demo's worker nodes are busy: cluster-autoscaler grows core-pool too.
    expect((placement.scaleUp?.pools ?? []).map(g => g.pool)).toContain(
      'core-pool'
    );
    const kinds = (advice: Advice | null) =>
      warnings(placement, 'dask-kubernetes', advice).map(w => w.kind);
    expect(kinds(null)).not.toContain('tolerates-not-selects');
    const advice = ok(
      d.cluster.advise({ pod, replicas: 60, profile: 'tightpack' })
    );
    const warned = warnings(placement, 'dask-kubernetes', advice).find(
      w => w.kind === 'tolerates-not-selects'
    );
    expect(warned!.text).toBe(
      "Your workers tolerate dask=worker:NoSchedule (pool dask-workers) but do not select that pool, so cluster-autoscaler grows core-pool, the hub's pool, for them instead."
    );
  });

  test('GPU workers that tolerate the worker pool are not warned: its nodes have no GPU', () => {
    const s = { ...settingsOf(template.pod, 4), gpus: 1 };
    const { pod, placement } = place(d.cluster, s);
    const advice = ok(
      d.cluster.advise({
        pod,
        replicas: 4,
        profile: 'tightpack',
        admission: { extendedResourceToleration: true }
      })
    );
    expect(
      warnings(placement, 'dask-kubernetes', advice).map(w => w.kind)
    ).not.toContain('tolerates-not-selects');
  });

  // The engine's drain rules decide (core: ScaleDownIsTheDrainRulesAnswer…);
  // the words follow its answer on the pod as the client owns it.
  const withPod = (edit: (pod: IPod) => void, source: string): string[] => {
    const pod = workerPod(template.pod, settingsOf(template.pod, 2));
    edit(pod);
    const placement = ok(
      d.cluster.place({
        pod,
        replicas: 2,
        profile: 'tightpack',
        admission: { extendedResourceToleration: true }
      })
    );
    return warnings(placement, source as IWorkerTemplate['source']).map(
      w => w.kind
    );
  };
  const annotate = (value: string) => (pod: IPod) => {
    pod.metadata!.annotations = {
      'cluster-autoscaler.kubernetes.io/safe-to-evict': value
    };
  };
  const gatewayOwned = (pod: IPod) => {
    pod.metadata!.ownerReferences = [
      { apiVersion: 'v1', kind: 'Pod', name: 'dask-scheduler', uid: '' }
    ];
  };

  test('operator workers are said to be evictable unless their template says safe-to-evict "false"', () => {
    const kinds = withPod(() => {}, 'dask-kubernetes');
    expect(kinds).toContain('evictable');
    expect(kinds).not.toContain('blocks-scale-down');
    const annotated = withPod(annotate('false'), 'dask-kubernetes');
    expect(annotated).not.toContain('evictable');
    expect(annotated).not.toContain('blocks-scale-down');
  });

  test('operator workers with an emptyDir keep their node: cluster-autoscaler does not evict local storage', () => {
    const scratch = (pod: IPod) => {
      pod.spec!.volumes = [{ name: 'scratch', emptyDir: {} }];
    };
    const kinds = withPod(scratch, 'dask-kubernetes');
    expect(kinds).toContain('blocks-scale-down');
    expect(kinds).not.toContain('evictable');
  });

  test('dask-gateway workers block scale-down unless they say safe-to-evict "true"', () => {
    expect(withPod(gatewayOwned, 'dask-gateway')).toContain(
      'blocks-scale-down'
    );
    const annotated = withPod(pod => {
      gatewayOwned(pod);
      annotate('true')(pod);
    }, 'dask-gateway');
    expect(annotated).not.toContain('blocks-scale-down');
    // A notebook profile is neither.
    expect(withPod(() => {}, 'profile')).not.toContain('evictable');
  });

  test('ties are said to be random under the default profile', () => {
    const { pod, placement } = place(
      d.cluster,
      settingsOf(template.pod, 3),
      'default'
    );
    const tied = placement.placements.some(c => c.tiedNodes > 1);
    expect(warnings(placement).some(w => w.kind === 'ties')).toBe(tied);
  });
});

describe('a notebook with its home disk', () => {
  // The demo user's home claim and volume, as the scheduler's /home gives them, join the
  // cluster as the server extension merges them (jupyterlab_tightpack/home.py).
  const home = demo('home.json');
  const withHome = () => {
    const c = demo('cluster.json');
    return { ...c, items: [...c.items, ...home.items] };
  };
  // The GPU profile's pod as the server extension builds it (test_templates.py checks it).
  const notebook = (claimName: string): IPod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'jupyter-gpu-notebook-t4',
      namespace: 'daskhub',
      labels: { component: 'singleuser-server' }
    },
    spec: {
      containers: [
        {
          name: 'notebook',
          resources: {
            requests: { cpu: '3', memory: String(20 * 2 ** 30) },
            limits: { 'nvidia.com/gpu': '1' }
          }
        }
      ],
      nodeSelector: { 'cloud.google.com/gke-accelerator': 'nvidia-tesla-t4' },
      volumes: [{ name: 'volume-alice', persistentVolumeClaim: { claimName } }]
    }
  });
  // Whose the claim is, as the server extension says; what it is, as the engine says.
  const told: ITemplateClaim = {
    name: 'claim-alice',
    namespace: 'daskhub',
    own: true,
    firstSpawn: false,
    homeKnown: true
  };
  const aliceClaim: IClaim = {
    ...told,
    listed: true,
    storageClass: 'standard-rwo',
    defaultClass: false,
    bindingMode: 'WaitForFirstConsumer',
    volume: home.claims[0].volume,
    bound: true,
    zones: ['us-central1-b'],
    mountableNodes: 5 // the demo's five nodes are all in us-central1-b
  };

  test("waits: its disk is in the zone whose T4 pool is at its max size; the other zone's pool is named", () => {
    const cluster = ok(
      d.engine.loadCluster(withHome(), { pools: demo('pools.json') })
    );
    const pod = notebook('claim-alice');
    const p = ok(
      cluster.place({
        pod,
        replicas: 1,
        admission: { extendedResourceToleration: true }
      })
    );
    expect(p.placed).toBe(0);
    expect(p.scaleUp!.pools).toEqual([]);
    const [u] = p.scaleUp!.unplaced;
    expect(u.blockedByVolumes).toEqual(['gpu-t4-c']);
    expect(u.poolsAtMax).toEqual([{ pool: 'gpu-t4', maxSize: 1 }]);
    // Its disk's zone keeps it, and the T4 pool of that zone at its max size: the
    // engine's one fix is the operator's, and the disk is said first, in full.
    expect(claimsOf(p.claims, [told])).toEqual([aliceClaim]);
    expect(volumeFix(u, claimsOf(p.claims, [told]))).toBe(
      'Your home disk (claim claim-alice) is in us-central1-b, where no pool can grow for it: pool gpu-t4-c in another zone could take it if the disk were there. Ask your operator to move the volume or raise the max size of gpu-t4 (1).'
    );
    const a = ok(
      cluster.advise({
        pod,
        replicas: 1,
        admission: { extendedResourceToleration: true }
      })
    );
    expect(a.fixes!.map(f => fixText(f, nounOf('profile'), a))).toEqual([
      'Ask your operator to raise the max size of pool gpu-t4 from 1 to 2: it runs on 1 new node (ready in ~10 min).'
    ]);
    expect(
      warnings(p, 'profile').find(w => w.kind === 'pool-at-max')!.text
    ).toMatch(/^1 notebook server stays Pending: /);
    cluster.dispose();
  });

  test("a first spawn's claim has no class: the default one puts its disk where the notebook lands", () => {
    // The claim KubeSpawner creates with storage_class None, as the server extension adds it.
    const first = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'claim-carol', namespace: 'daskhub' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '10Gi' } }
      }
    };
    const c = demo('cluster.json');
    const cluster = ok(
      d.engine.loadCluster(
        { ...c, items: [...c.items, first] },
        { pools: demo('pools.json') }
      )
    );
    const p = ok(
      cluster.place({
        pod: notebook('claim-carol'),
        replicas: 1,
        admission: { extendedResourceToleration: true }
      })
    );
    expect(p.scaleUp!.pools.map(g => [g.pool, g.nodesAdded])).toEqual([
      ['gpu-t4-c', 1]
    ]);
    expect(p.scaleUp!.unplaced).toEqual([]);
    cluster.dispose();
  });

  test('the volume fix is worded from data: the claims described, the pools named', () => {
    const u: Unplaced = {
      replicas: ['a', 'b'],
      reason: 'anything at all',
      pools: [],
      poolsAtMax: [],
      unoffered: [],
      blockedByVolumes: ['x', 'y']
    };
    expect(volumeFix(u)).toBe(
      'Its volumes are in a zone where no pool can grow for them: pools x and y in other zones could take them if the volumes were there. Ask your operator to move the volume or add a pool in that zone.'
    );
    const shared: IClaim = {
      ...aliceClaim,
      name: 'data',
      own: false,
      zones: ['eu-west1-a', 'eu-west1-b']
    };
    expect(
      volumeFix(
        {
          ...u,
          replicas: ['a'],
          blockedByVolumes: ['x'],
          poolsAtMax: [
            { pool: 'p', maxSize: 3 },
            { pool: 'q', maxSize: 1 }
          ]
        },
        [shared]
      )
    ).toBe(
      'The disk of claim data is in eu-west1-a or eu-west1-b, where no pool can grow for it: pool x in another zone could take it if the disk were there. Ask your operator to move the volume or raise the max size of p (3) and q (1).'
    );
    // a claim not bound yet pins no zone: not named
    expect(
      volumeFix(u, [
        {
          ...aliceClaim,
          firstSpawn: true,
          bound: false,
          volume: null,
          zones: []
        }
      ])
    ).toMatch(/^Its volumes are in a zone/);
  });
});
