// What the answer draws, computed from the engine's answer: nodes by pool
// with their fill before and after, each pool's scale-up.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { settingsOf } from '../pod.js';
import { answerView } from '../view.js';
import { loadDemo, ok, place, template, IDemo } from './demo.js';
import { workerPod } from '../pod.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
});

describe('the answer view', () => {
  test('pools add up to the placement', () => {
    const s = settingsOf(template.pod, 20);
    const { placement } = place(d.cluster, s);
    const view = answerView(d.summary, placement);
    const now = view.pools.reduce((n, p) => n + p.workers, 0);
    expect(now).toBe(placement.placed);
    expect(view.placedNow + view.placedAfterScaleUp + view.never).toBe(20);
    for (const g of placement.scaleUp?.pools ?? []) {
      expect(view.pools.find(p => p.name === g.pool)!.adds).toBe(g.nodesAdded);
    }
    for (const p of view.pools)
      for (const n of p.nodes) expect(n.after).toBeGreaterThanOrEqual(n.before);
  });

  test("a node's fill after counts every request of the pod, a sidecar's too", () => {
    // A core in the worker, half a core in a restartable init container (a
    // sidecar): the engine counts 1.5 per worker, as kube-scheduler does.
    const pod = workerPod(template.pod, settingsOf(template.pod, 1));
    pod.spec!.containers![0].resources = {
      requests: { cpu: '1', memory: '1Mi' },
      limits: { cpu: '1', memory: '1Mi' }
    };
    pod.spec!.initContainers = [
      {
        name: 'proxy',
        image: 'proxy',
        restartPolicy: 'Always',
        resources: { requests: { cpu: '500m', memory: '1Mi' } }
      }
    ];
    const placement = ok(
      d.cluster.place({ pod, replicas: 1, profile: 'tightpack' })
    );
    expect(placement.placed).toBe(1);
    const view = answerView(d.summary, placement);
    const landed = view.pools.flatMap(p => p.nodes).find(n => n.workers === 1)!;
    const node = d.summary.nodes.find(n => n.name === landed.name)!;
    const cpu = node.allocatable.cpu;
    expect(landed.after * cpu - node.requested.cpu).toBeCloseTo(1500, 0);
  });
});
