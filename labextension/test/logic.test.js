// The front end's logic (lib/, compiled from src/ by `npm test`) on the real
// engine and the built-in demo cluster: the pod the form describes, the view
// the panel draws, the fixes and warnings, and the code it offers.
import { readFileSync } from 'node:fs';
import { loadEngine } from '@tightpack/wasm';
import { admissionNotes, fixes, volumeFix, warnings } from '../lib/advice.js';
import { startCode } from '../lib/codegen.js';
import {
  parseSelector,
  parseTolerations,
  readableMemory,
  settingsOf,
  tolerationText,
  workerPod
} from '../lib/pod.js';
import {
  cpuError,
  formatWait,
  memoryError,
  parseQuantity
} from '../lib/quantity.js';
import { answerView } from '../lib/view.js';

const demo = name =>
  JSON.parse(
    readFileSync(
      new URL(`../jupyterlab_tightpack/demo/${name}`, import.meta.url)
    )
  );
const daskToleration = {
  key: 'dask',
  operator: 'Equal',
  value: 'worker',
  effect: 'NoSchedule'
};
const template = {
  id: 't',
  name: 'Dask worker',
  source: 'dask-kubernetes',
  description: '',
  workers: 3,
  notes: [],
  start: {
    kind: 'kubecluster',
    name: 'dask',
    namespace: 'daskhub',
    image: 'ghcr.io/dask/dask:2024.1.0',
    resources: {},
    env: {},
    customClusterSpec: null
  },
  pod: {
    metadata: { name: 'dask-worker', namespace: 'daskhub' },
    spec: {
      containers: [
        {
          name: 'worker',
          image: 'ghcr.io/dask/dask:2024.1.0',
          resources: {
            requests: { cpu: '1', memory: '4Gi' },
            limits: { cpu: '1', memory: '4Gi' }
          }
        }
      ],
      tolerations: [daskToleration]
    }
  }
};

let engine;
let cluster;
let summary;
beforeAll(async () => {
  engine = await loadEngine();
  cluster = engine.loadCluster(demo('cluster.json'), {
    pools: demo('pools.json')
  }).value;
  summary = cluster.summary().value;
});

function place(
  settings,
  profile = 'tightpack',
  extendedResourceToleration = true,
  release = undefined
) {
  const pod = workerPod(template.pod, settings);
  const r = cluster.place({
    pod,
    replicas: settings.workers,
    profile,
    release,
    admission: { extendedResourceToleration }
  });
  expect(r.error).toBeUndefined();
  return { pod, placement: r.value };
}

describe('quantities', () => {
  test.each([
    ['8Gi', 8 * 2 ** 30],
    ['500m', 0.5],
    ['1.5', 1.5],
    ['2e3', 2000],
    ['7500Mi', 7500 * 2 ** 20]
  ])('%s', (t, v) => {
    expect(parseQuantity(t)).toBeCloseTo(v);
  });
  test('bad memory values say how to write them', () => {
    expect(memoryError('8 GB')).toBe(
      'Memory "8 GB" is not a Kubernetes quantity: write 8Gi'
    );
    expect(memoryError('lots')).toMatch(
      /not a Kubernetes quantity such as 8Gi/
    );
    expect(memoryError('0')).toMatch(/more than 0/);
    expect(memoryError('12Gi')).toBeNull();
    expect(cpuError('two')).toMatch(/Cores "two"/);
    expect(formatWait(600)).toBe('~10 min');
    expect(readableMemory('12884901888')).toBe('12Gi');
    expect(readableMemory('1500000000')).toBe('1500000000');
    expect(readableMemory('8Gi')).toBe('8Gi');
  });
});

describe('the worker pod', () => {
  test('takes the form; the engine admits it, advice words that', () => {
    const s = { ...settingsOf(template.pod, 4), gpus: 1 };
    const pod = workerPod(template.pod, s);
    const c = pod.spec.containers[0];
    expect(c.resources.requests).toEqual({
      cpu: '1',
      memory: '4Gi',
      'nvidia.com/gpu': '1'
    });
    expect(c.resources.limits['nvidia.com/gpu']).toBe('1');
    expect(pod.spec.tolerations).toEqual([daskToleration]);
    expect(template.pod.spec.tolerations).toEqual([daskToleration]); // the template is not changed
    // A GPU given only as a limit: the API server sets the request and, in GKE, the toleration.
    const limitOnly = {
      spec: {
        containers: [
          { name: 'worker', resources: { limits: { 'nvidia.com/gpu': '1' } } }
        ]
      }
    };
    const placed = cluster.place({
      pod: limitOnly,
      replicas: 1,
      admission: { extendedResourceToleration: true }
    }).value;
    expect(admissionNotes(placed.admission)).toEqual([
      'sets request nvidia.com/gpu 1 from its limit in worker',
      'adds toleration nvidia.com/gpu:NoSchedule (ExtendedResourceToleration)'
    ]);
    const without = cluster.place({ pod: limitOnly, replicas: 1 }).value;
    expect(admissionNotes(without.admission)).toEqual([
      'sets request nvidia.com/gpu 1 from its limit in worker'
    ]);
    expect(placed.placed + (placed.scaleUp?.pools.length ?? 0)).toBeGreaterThan(
      without.placed + (without.scaleUp?.pools.length ?? 0)
    );
  });
  test('tolerations and selectors read back what they print', () => {
    const text = [
      daskToleration,
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }
    ]
      .map(tolerationText)
      .join('\n');
    expect(parseTolerations(text)).toEqual({
      tolerations: [
        daskToleration,
        { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }
      ],
      error: null
    });
    expect(parseTolerations('dask worker').error).toMatch(
      /not key=value:Effect/
    );
    expect(parseSelector('a=b, c=d')).toEqual({
      selector: { a: 'b', c: 'd' },
      error: null
    });
    expect(parseSelector('a').error).toMatch(/not key=value/);
  });
});

describe('the answer', () => {
  test('pools add up to the placement', () => {
    const s = settingsOf(template.pod, 20);
    const { pod, placement } = place(s);
    const view = answerView(
      summary,
      placement,
      pod.spec.containers[0].resources.requests
    );
    const now = view.pools.reduce((n, p) => n + p.workers, 0);
    expect(now).toBe(placement.placed);
    expect(view.placedNow + view.placedAfterScaleUp + view.never).toBe(20);
    for (const g of placement.scaleUp?.pools ?? []) {
      expect(view.pools.find(p => p.name === g.pool).adds).toBe(g.nodesAdded);
    }
    for (const p of view.pools)
      for (const n of p.nodes) expect(n.after).toBeGreaterThanOrEqual(n.before);
  });

  test('workers without the worker toleration get it as a fix', () => {
    const s = { ...settingsOf(template.pod, 200), tolerations: [] };
    const { pod, placement } = place(s);
    expect(fixes(summary, placement, pod)).toContain(
      'add toleration dask=worker:NoSchedule'
    );
  });

  test('fixes come from the facts, not from the words of the message', () => {
    // Any wording (v1.37's "untolerated taint(s)", v1.30's "{key: value}") gives the same fixes.
    const facts = {
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
    const placement = {
      placed: 0,
      placements: [],
      toleratedPoolTaints: [],
      unschedulable: { message: 'anything at all', facts }
    };
    expect(fixes({ nodes: [], pools: [] }, placement, { spec: {} })).toEqual([
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
        { nodes: [], pools: [] },
        {
          placed: 1,
          placements: [],
          toleratedPoolTaints: [],
          scaleUp: { unplaced: [unplaced] }
        },
        { spec: {} }
      )
    ).toEqual([
      'no pool offers example.com/fpga: ask your operator for one, or set it to 0',
      'pool gpu is at its max size 4: use fewer workers or ask your operator to raise it'
    ]);
  });

  test('a v1.30 user-scheduler answer (the taint named in the message) gives the same fix', () => {
    const s = { ...settingsOf(template.pod, 200), tolerations: [] };
    const { pod, placement } = place(s, 'most-allocated', true, 'v1.30');
    expect(placement.unschedulable.message).toMatch(/untolerated taint \{/);
    expect(fixes(summary, placement, pod)).toContain(
      'add toleration dask=worker:NoSchedule'
    );
  });

  test('workers too large for any node are told how much they may ask for', () => {
    const s = { ...settingsOf(template.pod, 1), memory: '900Gi' };
    const { pod, placement } = place(s);
    expect(placement.placed).toBe(0);
    expect(fixes(summary, placement, pod).join('\n')).toMatch(
      /ask for at most [\d.]+ GiB of memory to fit the [\w-]+ pool/
    );
  });

  test('a pool at its max size is a warning', () => {
    const s = { ...settingsOf(template.pod, 400), cores: '4', memory: '16Gi' };
    const { pod, placement } = place(s);
    expect(warnings(placement, pod).map(w => w.kind)).toContain('pool-at-max');
  });

  test('workers that tolerate the worker pool but do not select it are warned when another pool grows', () => {
    const s = settingsOf(template.pod, 60);
    const { pod, placement } = place(s);
    // The demo's worker nodes are busy: cluster-autoscaler grows core-pool too.
    expect((placement.scaleUp?.pools ?? []).map(g => g.pool)).toContain(
      'core-pool'
    );
    const warned = warnings(placement, pod).find(
      w => w.kind === 'tolerates-not-selects'
    );
    expect(warned.text).toContain(
      'Add node selector cloud.google.com/gke-nodepool=dask-workers'
    );
    const selected = place({
      ...s,
      nodeSelector: { 'cloud.google.com/gke-nodepool': 'dask-workers' }
    });
    expect(
      warnings(selected.placement, selected.pod).map(w => w.kind)
    ).not.toContain('tolerates-not-selects');
  });

  test('operator workers are said to be evictable unless their template says safe-to-evict "false"', () => {
    const { pod, placement } = place(settingsOf(template.pod, 2));
    const kinds = () =>
      warnings(placement, pod, 'dask-kubernetes').map(w => w.kind);
    expect(kinds()).toContain('evictable');
    expect(kinds()).not.toContain('blocks-scale-down');
    pod.metadata.annotations = {
      'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false'
    };
    expect(kinds()).not.toContain('evictable');
  });

  test('dask-gateway workers block scale-down unless they say safe-to-evict "true"', () => {
    const { pod, placement } = place(settingsOf(template.pod, 2));
    const kinds = () =>
      warnings(placement, pod, 'dask-gateway').map(w => w.kind);
    expect(kinds()).toContain('blocks-scale-down');
    pod.metadata.annotations = {
      'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true'
    };
    expect(kinds()).not.toContain('blocks-scale-down');
    // A notebook profile is neither.
    expect(warnings(placement, pod, 'profile').map(w => w.kind)).not.toContain(
      'evictable'
    );
  });

  test('ties are said to be random under the default profile', () => {
    const { pod, placement } = place(settingsOf(template.pod, 3), 'default');
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
  const notebook = claimName => ({
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
  const aliceClaim = {
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
    const loaded = engine.loadCluster(withHome(), {
      pools: demo('pools.json')
    });
    expect(loaded.error).toBeUndefined();
    const pod = notebook('claim-alice');
    const p = loaded.value.place({
      pod,
      replicas: 1,
      admission: { extendedResourceToleration: true }
    }).value;
    expect(p.placed).toBe(0);
    expect(p.scaleUp.pools).toEqual([]);
    const [u] = p.scaleUp.unplaced;
    expect(u.blockedByVolumes).toEqual(['gpu-t4-c']);
    expect(u.poolsAtMax).toEqual([{ pool: 'gpu-t4', maxSize: 1 }]);
    // Only the disk's zone keeps it: that is the one fix. The dask workers' taint and the
    // T4 selector kube-scheduler's message counts are not wrong ("add toleration
    // dask=worker:NoSchedule" would not help), less memory would not fit where no GPU is
    // free, and "use fewer workers" would not help a notebook whose disk pins it.
    expect(p.unschedulable.facts.untoleratedTaints.map(t => t.taint)).toEqual([
      'dask=worker:NoSchedule'
    ]);
    expect(fixes(loaded.value.summary().value, p, pod, [aliceClaim])).toEqual([
      'Your home disk (claim claim-alice) is in us-central1-b, where no pool can grow for it: pool gpu-t4-c in another zone could take it if the disk were there. Ask your operator to move the volume or raise the max size of gpu-t4 (1).'
    ]);
    expect(
      warnings(p, pod, 'profile').find(w => w.kind === 'pool-at-max').text
    ).toMatch(/^Your notebook server stays Pending: /);
    loaded.value.dispose();
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
    const loaded = engine.loadCluster(
      { ...c, items: [...c.items, first] },
      { pools: demo('pools.json') }
    );
    const p = loaded.value.place({
      pod: notebook('claim-carol'),
      replicas: 1,
      admission: { extendedResourceToleration: true }
    }).value;
    expect(p.scaleUp.pools.map(g => [g.pool, g.nodesAdded])).toEqual([
      ['gpu-t4-c', 1]
    ]);
    expect(p.scaleUp.unplaced).toEqual([]);
    loaded.value.dispose();
  });

  test('the volume fix is worded from data: the claims described, the pools named', () => {
    const u = {
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
    const shared = {
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

describe('copy code', () => {
  test('a KubeCluster with the worker spec and schedulerName', () => {
    const s = { ...settingsOf(template.pod, 20), gpus: 1 };
    const pod = workerPod(template.pod, s);
    const code = startCode(
      template,
      pod,
      20,
      summary.builtInProfiles.find(p => p.name === 'tightpack').schedulerName
    );
    expect(code).toContain(
      'from dask_kubernetes.operator import KubeCluster, make_cluster_spec'
    );
    expect(code).toContain('worker["schedulerName"] = "tightpack"');
    expect(code).toContain('"nvidia.com/gpu": "1"');
    expect(code).toContain('"key": "dask"');
    expect(code).toContain('cluster.scale(20)');
    expect(code).toContain('namespace="daskhub"');
    expect(code).toContain('env=operator_env()');
    expect(startCode(template, pod, 20, 'default-scheduler')).not.toContain(
      'schedulerName'
    );
    expect(startCode(template, pod, 20, 'jupyterhub-user-scheduler')).toContain(
      'worker["schedulerName"] = "jupyterhub-user-scheduler"'
    );
  });
  test('a profile says where the hub starts it, not code that would not', () => {
    const gpu = {
      ...template,
      name: 'GPU worker (T4)',
      source: 'profile',
      start: { kind: 'profile', slug: 'gpu-worker-t4' }
    };
    const code = startCode(gpu, template.pod, 1, 'tightpack');
    expect(code).toContain('Hub Control Panel');
    expect(code).toContain('"GPU worker (T4)" (slug gpu-worker-t4)');
    expect(code).not.toContain('KubeCluster');
  });
  test('dask-gateway options', () => {
    const gw = {
      ...template,
      source: 'dask-gateway',
      start: {
        kind: 'gateway',
        address: 'http://gw',
        options: { worker_cores: 1, worker_memory: 4 }
      }
    };
    const pod = workerPod(template.pod, {
      ...settingsOf(template.pod, 5),
      cores: '2',
      memory: '8Gi'
    });
    const code = startCode(gw, pod, 5, 'tightpack');
    expect(code).toContain('Gateway("http://gw")');
    expect(code).toContain('options.worker_cores = 2');
    expect(code).toContain('options.worker_memory = 8  # GiB');
    expect(code).toContain('cluster.scale(5)');
  });
});
