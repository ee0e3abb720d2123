// The fixes for workers that never run and the warnings, worded from the
// engine's facts, on the demo cluster and on a GPU notebook with its home disk.
import { beforeAll, describe, expect, test } from '@jest/globals';
import type {
  ClusterSummary,
  Placement,
  Unplaced,
  UnschedulableFacts
} from '@tightpack/wasm';
import { fixes, volumeFix, warnings } from '../advice.js';
import { settingsOf } from '../pod.js';
import { IPod, ITemplateClaim } from '../types.js';
import { demo, loadDemo, ok, place, template, IDemo } from './demo.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
});

// Answers cut down to the fields advice reads.
const noCluster = { nodes: [], pools: [] } as unknown as ClusterSummary;
const noPod: IPod = { spec: {} };
const answer = (p: object) => p as Placement;

describe('fixes and warnings', () => {
  test('workers without the worker toleration get it as a fix', () => {
    const s = { ...settingsOf(template.pod, 200), tolerations: [] };
    const { pod, placement } = place(d.cluster, s);
    expect(fixes(d.summary, placement, pod)).toContain(
      'add toleration dask=worker:NoSchedule'
    );
  });

  test('fixes come from the facts, not from the words of the message', () => {
    // Any wording (v1.37's "untolerated taint(s)", v1.30's "{key: value}") gives the same fixes.
    const facts: UnschedulableFacts = {
      untoleratedTaints: [
        { taint: 'dask=worker:NoSchedule', nodes: 3, pools: ['dask-workers'] }
      ],
      insufficient: [
        {
          resource: 'memory',
          requested: 64 * 2 ** 30,
          largestFree: 12 * 2 ** 30,
          node: 'w-1',
          pool: 'dask-workers'
        }
      ],
      nodeAffinityMismatch: 0,
      unoffered: []
    };
    const placement = answer({
      placed: 0,
      placements: [],
      toleratedPoolTaints: [],
      unschedulable: { message: 'anything at all', facts }
    });
    expect(fixes(noCluster, placement, noPod)).toEqual([
      'add toleration dask=worker:NoSchedule',
      'ask for at most 12 GiB of memory to fit the dask-workers pool'
    ]);
    const unplaced = {
      replicas: ['a'],
      reason: 'whatever',
      pools: [],
      poolsAtMax: [{ pool: 'gpu', maxSize: 4 }],
      unoffered: ['example.com/fpga']
    };
    expect(
      fixes(
        noCluster,
        answer({
          placed: 1,
          placements: [],
          toleratedPoolTaints: [],
          scaleUp: { unplaced: [unplaced] }
        }),
        noPod
      )
    ).toEqual([
      'no pool offers example.com/fpga: ask your operator for one, or set it to 0',
      'pool gpu is at its max size 4: use fewer workers or ask your operator to raise it'
    ]);
  });

  test('a v1.30 user-scheduler answer (the taint named in the message) gives the same fix', () => {
    const s = { ...settingsOf(template.pod, 200), tolerations: [] };
    const { pod, placement } = place(
      d.cluster,
      s,
      'most-allocated',
      true,
      'v1.30'
    );
    expect(placement.unschedulable!.message).toMatch(/untolerated taint \{/);
    expect(fixes(d.summary, placement, pod)).toContain(
      'add toleration dask=worker:NoSchedule'
    );
  });

  test('workers too large for any node are told how much they may ask for', () => {
    const s = { ...settingsOf(template.pod, 1), memory: '900Gi' };
    const { pod, placement } = place(d.cluster, s);
    expect(placement.placed).toBe(0);
    expect(fixes(d.summary, placement, pod).join('\n')).toMatch(
      /ask for at most [\d.]+ GiB of memory to fit the [\w-]+ pool/
    );
  });

  test('a pool at its max size is a warning', () => {
    const s = { ...settingsOf(template.pod, 400), cores: '4', memory: '16Gi' };
    const { pod, placement } = place(d.cluster, s);
    expect(warnings(placement, pod).map(w => w.kind)).toContain('pool-at-max');
  });

  test('workers that tolerate the worker pool but do not select it are warned when another pool grows', () => {
    const s = settingsOf(template.pod, 60);
    const { pod, placement } = place(d.cluster, s);
    // The demo's worker nodes are busy: cluster-autoscaler grows core-pool too.
    expect((placement.scaleUp?.pools ?? []).map(g => g.pool)).toContain(
      'core-pool'
    );
    const warned = warnings(placement, pod).find(
      w => w.kind === 'tolerates-not-selects'
    );
    expect(warned!.text).toContain(
      'Add node selector cloud.google.com/gke-nodepool=dask-workers'
    );
    const selected = place(d.cluster, {
      ...s,
      nodeSelector: { 'cloud.google.com/gke-nodepool': 'dask-workers' }
    });
    expect(
      warnings(selected.placement, selected.pod).map(w => w.kind)
    ).not.toContain('tolerates-not-selects');
  });

  test('operator workers are said to be evictable unless their template says safe-to-evict "false"', () => {
    const { pod, placement } = place(d.cluster, settingsOf(template.pod, 2));
    const kinds = () =>
      warnings(placement, pod, 'dask-kubernetes').map(w => w.kind);
    expect(kinds()).toContain('evictable');
    expect(kinds()).not.toContain('blocks-scale-down');
    pod.metadata!.annotations = {
      'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false'
    };
    expect(kinds()).not.toContain('evictable');
  });

  test('dask-gateway workers block scale-down unless they say safe-to-evict "true"', () => {
    const { pod, placement } = place(d.cluster, settingsOf(template.pod, 2));
    const kinds = () =>
      warnings(placement, pod, 'dask-gateway').map(w => w.kind);
    expect(kinds()).toContain('blocks-scale-down');
    pod.metadata!.annotations = {
      'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true'
    };
    expect(kinds()).not.toContain('blocks-scale-down');
    // A notebook profile is neither.
    expect(warnings(placement, pod, 'profile').map(w => w.kind)).not.toContain(
      'evictable'
    );
  });

  test('ties are said to be random under the default profile', () => {
    const { pod, placement } = place(
      d.cluster,
      settingsOf(template.pod, 3),
      'default'
    );
    const tied = placement.placements.some(c => c.tiedNodes > 1);
    expect(warnings(placement, pod).some(w => w.kind === 'ties')).toBe(tied);
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
      name: 'jupyter-gpu-worker-t4',
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
  const aliceClaim: ITemplateClaim = {
    name: 'claim-alice',
    namespace: 'daskhub',
    own: true,
    state: 'bound',
    volume: home.claims[0].volume,
    zones: ['us-central1-b'],
    storageClass: 'standard-rwo',
    defaultClass: false,
    bindingMode: 'WaitForFirstConsumer'
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
    // Only the disk's zone keeps it: that is the one fix. The dask workers' taint and the
    // T4 selector kube-scheduler's message counts are not wrong ("add toleration
    // dask=worker:NoSchedule" would not help), less memory would not fit where no GPU is
    // free, and "use fewer workers" would not help a notebook whose disk pins it.
    expect(p.unschedulable!.facts.untoleratedTaints.map(t => t.taint)).toEqual([
      'dask=worker:NoSchedule'
    ]);
    expect(fixes(ok(cluster.summary()), p, pod, [aliceClaim])).toEqual([
      'Your home disk (claim claim-alice) is in us-central1-b, where no pool can grow for it: pool gpu-t4-c in another zone could take it if the disk were there. Ask your operator to move the volume or raise the max size of gpu-t4 (1).'
    ]);
    expect(
      warnings(p, pod, 'profile').find(w => w.kind === 'pool-at-max')!.text
    ).toMatch(/^Your notebook server stays Pending: /);
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
    const shared: ITemplateClaim = {
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
    expect(volumeFix(u, [{ ...aliceClaim, state: 'new', zones: [] }])).toMatch(
      /^Its volumes are in a zone/
    );
  });
});
