// The what-if answers of the wasm build against `tightpack predict --output
// json` of the native build on the same cluster, pod and pools.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadEngine } from '@tightpack/wasm';
import { nativeTightpack, repoDir, required } from './paths.js';

const clusterFile = path.join(
  repoDir,
  'examples',
  'daskhub-demo',
  'cluster.json'
);
const inferAllPools = {
  apiVersion: 'tightpack.io/v1alpha1',
  kind: 'NodePools'
};

// The native command's JSON answer on the demo cluster with every pool inferred:
// `files` are written into a fresh folder, `args(dir)` names them.
function runNative(subcommand, files, args) {
  required(
    nativeTightpack,
    'build it with `cmake --build --preset release` or set TIGHTPACK_NATIVE'
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'tightpack-agreement-'));
  for (const [name, doc] of Object.entries({
    'pools.json': inferAllPools,
    ...files
  })) {
    writeFileSync(path.join(dir, name), JSON.stringify(doc));
  }
  const native = spawnSync(nativeTightpack, [
    subcommand,
    '--cluster',
    clusterFile,
    '--pools',
    path.join(dir, 'pools.json'),
    ...args(dir),
    '--output',
    'json'
  ]);
  expect(native.stderr.toString()).toBe('');
  return JSON.parse(native.stdout.toString());
}

// The same cluster and pools, loaded by the wasm build.
async function loadedCluster() {
  const engine = await loadEngine();
  return engine.loadCluster(readFileSync(clusterFile), { pools: inferAllPools })
    .value;
}

function pod(name, requests, tolerations = [], extra = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'daskhub' },
    spec: {
      tolerations,
      containers: [{ name: 'main', resources: { requests } }],
      ...extra
    }
  };
}
const daskToleration = [
  { key: 'dask', operator: 'Equal', value: 'worker', effect: 'NoSchedule' }
];

const cases = [
  [
    '10 Dask workers, tightpack',
    pod('dask-worker', { cpu: '1', memory: '4Gi' }, daskToleration),
    10,
    'tightpack'
  ],
  [
    '40 Dask workers, default',
    pod('dask-worker', { cpu: '1', memory: '4Gi' }, daskToleration),
    40,
    'default'
  ],
  [
    '300 Dask workers, most-allocated',
    pod('dask-worker', { cpu: '2', memory: '8Gi' }, daskToleration),
    300,
    'most-allocated'
  ],
  // zero-to-jupyterhub's user-scheduler as its released charts run it: v1.30.14 words
  // taints and decides pods larger than a node differently.
  [
    '300 Dask workers without the toleration, most-allocated on v1.30',
    pod('dask-worker', { cpu: '2', memory: '8Gi' }),
    300,
    'most-allocated',
    'v1.30'
  ],
  [
    'a GPU notebook',
    pod('jupyter-ana', { cpu: '4', memory: '16Gi', 'nvidia.com/gpu': '1' }, [
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }
    ]),
    3,
    'default'
  ],
  [
    'workers without the toleration',
    pod('dask-worker', { cpu: '1', memory: '4Gi' }),
    30,
    'tightpack'
  ],
  [
    'a resource no pool offers',
    pod('fpga', { cpu: '1', 'example.com/fpga': '1' }),
    2,
    'default'
  ]
];

// place() against `tightpack predict`, advise() against `tightpack advise`:
// the same request, the same answer.
describe.each(cases)('%s', (_, podDoc, replicas, profile, release) => {
  test.each([
    ['place', 'predict'],
    ['advise', 'advise']
  ])('wasm %s() equals native %s --output json', async (method, command) => {
    const native = runNative(command, { 'pod.json': podDoc }, dir => [
      '--pod',
      path.join(dir, 'pod.json'),
      '--replicas',
      String(replicas),
      '--scheduler-name',
      profile,
      ...(release ? ['--release', release] : [])
    ]);
    const cluster = await loadedCluster();
    const wasm = cluster[method]({ pod: podDoc, replicas, profile, release });
    expect(wasm.ok).toBe(true);
    expect(wasm.value).toEqual(native);
  });
});

describe.each([
  [null],
  ['app.kubernetes.io/component=worker'],
  ['hub.jupyter.org/username in (ana,bo)']
])('scale-down forecast removing %s', remove => {
  // The native command reads the clock by default; both get the same time.
  const now = '2026-11-30T12:00:00Z';
  test('wasm forecast() equals native forecast --output json', async () => {
    const native = runNative('forecast', {}, () => [
      ...(remove ? ['--remove', remove] : []),
      '--now',
      now
    ]);
    const cluster = await loadedCluster();
    const wasm = cluster.forecast(remove ? { remove, now } : { now });
    expect(wasm.ok).toBe(true);
    expect(wasm.value).toEqual(native);
  });
});

test('forecast removing named pods and Deployments agrees with native', async () => {
  const now = '2026-11-30T12:00:00Z';
  const removePods = ['daskhub/hub-6d9f8c7b4-tq2xw', 'daskhub/gone'];
  const removeDeployments = ['daskhub/proxy', 'daskhub/no-such-worker'];
  const native = runNative('forecast', {}, () => [
    '--remove-pods',
    removePods.join(','),
    '--remove-deployments',
    removeDeployments.join(','),
    '--now',
    now
  ]);
  const cluster = await loadedCluster();
  const wasm = cluster.forecast({ removePods, removeDeployments, now });
  expect(wasm.ok).toBe(true);
  expect(wasm.value).toEqual(native);
  expect(native.removedPods).toEqual(['daskhub/hub-6d9f8c7b4-tq2xw']);
});
