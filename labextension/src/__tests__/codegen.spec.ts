// "Copy code": the Python that starts exactly the workers the panel shows.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { startCode } from '../codegen.js';
import { settingsOf, workerPod } from '../pod.js';
import { IWorkerTemplate } from '../types.js';
import { loadDemo, template, IDemo } from './demo.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
});

describe('copy code', () => {
  test('a KubeCluster with the worker spec and schedulerName', () => {
    const s = { ...settingsOf(template.pod, 20), gpus: 1 };
    const pod = workerPod(template.pod, s);
    const code = startCode(
      template,
      pod,
      20,
      d.summary.builtInProfiles.find(p => p.name === 'tightpack')!.schedulerName
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
    const gpu: IWorkerTemplate = {
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
    const gw: IWorkerTemplate = {
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
