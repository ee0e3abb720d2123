// "Copy code": the Python that starts exactly the workers the panel shows,
// under the scheduler of this cluster that runs the chosen rules.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { startCode } from '../codegen.js';
import { settingsOf, workerPod } from '../pod.js';
import {
  choiceFor,
  schedulerChoices,
  ISchedulerChoice
} from '../schedulers.js';
import { ISnapshotEnvelope, IWorkerTemplate } from '../types.js';
import { demo, loadDemo, template, IDemo } from './demo.js';

let d: IDemo;
let choices: ISchedulerChoice[];
const choice = (value: string) => choices.find(c => c.value === value)!;
beforeAll(async () => {
  d = await loadDemo();
  // The demo's envelope: the hub's settings name its user-scheduler.
  choices = schedulerChoices(d.summary, {
    kubespawnerDefaults: demo('kubespawner-defaults.json')
  } as unknown as ISnapshotEnvelope);
});

describe('the schedulers the form offers', () => {
  test('each built-in profile names the scheduler here that runs it, or says none does', () => {
    expect(choices.map(c => [c.value, c.schedulerName])).toEqual([
      ['default', 'default-scheduler'],
      ['most-allocated', 'daskhub-user-scheduler'],
      ['rtc', null],
      ['tightpack', null]
    ]);
    expect(choice('most-allocated').label).toBe('daskhub-user-scheduler');
    expect(choice('most-allocated').description).toBe(
      'zero-to-jupyterhub user-scheduler (packs; kube-scheduler v1.30)'
    );
    expect(choice('rtc').label).toBe('rtc (not in this cluster)');
    // A hub pod's scheduler picks its choice.
    expect(choiceFor(choices, 'daskhub-user-scheduler')!.value).toBe(
      'most-allocated'
    );
    expect(choiceFor(choices, undefined)!.value).toBe('default');
  });

  test("the tightpack scheduler's published profile is offered as this cluster's", () => {
    const loaded = d.engine.loadCluster(demo('cluster.json'), {
      pools: demo('pools.json'),
      schedulerConfig: demo('scheduler-configuration.json')
    });
    if (!loaded.ok) throw new Error(loaded.error);
    const summary = loaded.value.summary();
    if (!summary.ok) throw new Error(summary.error);
    const here = schedulerChoices(summary.value, {
      kubespawnerDefaults: demo('kubespawner-defaults.json')
    } as unknown as ISnapshotEnvelope);
    expect(here.map(c => [c.value, c.schedulerName])).toEqual([
      ['tightpack', 'tightpack'],
      ['default', 'default-scheduler'],
      ['most-allocated', 'daskhub-user-scheduler'],
      ['rtc', null]
    ]);
    loaded.value.dispose();
  });
});

describe('copy code', () => {
  test('a KubeCluster with the worker spec and the schedulerName the cluster runs', () => {
    const s = { ...settingsOf(template.pod, 20), gpus: 1 };
    const pod = workerPod(template.pod, s);
    const code = startCode(template, pod, 20, choice('most-allocated'));
    expect(code).toContain(
      'from dask_kubernetes.operator import KubeCluster, make_cluster_spec'
    );
    expect(code).toContain(
      'worker["schedulerName"] = "daskhub-user-scheduler"'
    );
    expect(code).toContain(
      "# daskhub-user-scheduler is the hub's user-scheduler, as the hub's KubeSpawner settings"
    );
    expect(code).toContain('"nvidia.com/gpu": "1"');
    expect(code).toContain('"key": "dask"');
    expect(code).toContain('cluster.scale(20)');
    expect(code).toContain('namespace="daskhub"');
    expect(code).toContain('env=operator_env()');
    expect(startCode(template, pod, 20, choice('default'))).not.toContain(
      'schedulerName'
    );
    // Rules no scheduler here runs: no name, and it says so.
    const rtc = startCode(template, pod, 20, choice('rtc'));
    expect(rtc).not.toContain('schedulerName');
    expect(rtc).toContain(
      '# No scheduler in this cluster is known to run these rules (rtc)'
    );
  });
  test('a profile says where the hub starts it, and under which scheduler', () => {
    const gpu: IWorkerTemplate = {
      ...template,
      name: 'GPU notebook (T4)',
      source: 'profile',
      start: { kind: 'profile', slug: 'gpu-notebook-t4' }
    };
    const pinned = {
      ...template.pod,
      spec: { ...template.pod.spec, schedulerName: 'daskhub-user-scheduler' }
    };
    const code = startCode(gpu, pinned, 1, choice('most-allocated'));
    expect(code).toContain('Hub Control Panel');
    expect(code).toContain('"GPU notebook (T4)" (slug gpu-notebook-t4)');
    expect(code).toContain(
      '# The hub starts it under the scheduler daskhub-user-scheduler.'
    );
    expect(code).not.toContain('KubeCluster');
    expect(startCode(gpu, template.pod, 1, choice('default'))).toContain(
      "# The profile names no scheduler: kube-scheduler's default (default-scheduler) places it."
    );
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
    const code = startCode(gw, pod, 5, choice('default'));
    expect(code).toContain('Gateway("http://gw")');
    expect(code).toContain('options.worker_cores = 2');
    expect(code).toContain('options.worker_memory = 8  # GiB');
    expect(code).toContain('cluster.scale(5)');
    expect(code).not.toContain('schedulerName');
    // The gateway's server names the scheduler: the code says so.
    expect(startCode(gw, pod, 5, choice('most-allocated'))).toContain(
      "# dask-gateway's server names the workers' scheduler (default-scheduler), not these"
    );
  });
});
