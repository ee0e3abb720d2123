// What the specs share: the built-in demo cluster (jupyterlab_tightpack/demo)
// on the real engine, and a DaskHub worker template as the server extension
// sends it.
import { readFileSync } from 'node:fs';
import { expect } from '@jest/globals';
import {
  loadEngine,
  Cluster,
  ClusterSummary,
  Engine,
  Placement,
  Release
} from '@tightpack/wasm';
import { workerPod, IWorkerSettings } from '../pod.js';
import { IPod, IWorkerTemplate, Toleration } from '../types.js';

export function demo(name: string): any {
  return JSON.parse(
    readFileSync(
      new URL(`../../jupyterlab_tightpack/demo/${name}`, import.meta.url),
      'utf8'
    )
  );
}

export const daskToleration: Toleration = {
  key: 'dask',
  operator: 'Equal',
  value: 'worker',
  effect: 'NoSchedule'
};

export const template: IWorkerTemplate = {
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
    // As the server extension gives an operator worker (dask_kubernetes.worker_pod).
    metadata: {
      name: 'dask-worker',
      namespace: 'daskhub',
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'dask-worker',
          uid: '',
          controller: true
        }
      ]
    },
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

export interface IDemo {
  engine: Engine;
  cluster: Cluster;
  summary: ClusterSummary;
}

/** The engine, with the demo cluster and its pools loaded. */
export async function loadDemo(): Promise<IDemo> {
  const engine = await loadEngine();
  const loaded = engine.loadCluster(demo('cluster.json'), {
    pools: demo('pools.json')
  });
  if (!loaded.ok) throw new Error(loaded.error);
  const summary = loaded.value.summary();
  if (!summary.ok) throw new Error(summary.error);
  return { engine, cluster: loaded.value, summary: summary.value };
}

/** The value of an engine answer that must have succeeded. */
export function ok<T>(
  r: { ok: true; value: T } | { ok: false; error: string }
): T {
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** The template's workers with `settings`, placed on `cluster` as the panel places them. */
export function place(
  cluster: Cluster,
  settings: IWorkerSettings,
  profile = 'tightpack',
  extendedResourceToleration = true,
  release: Release | undefined = undefined
): { pod: IPod; placement: Placement } {
  const pod = workerPod(template.pod, settings);
  const r = cluster.place({
    pod,
    replicas: settings.workers,
    profile,
    ...(release ? { release } : {}),
    admission: { extendedResourceToleration }
  });
  expect(r.ok ? undefined : r.error).toBeUndefined();
  return { pod, placement: ok(r) };
}
