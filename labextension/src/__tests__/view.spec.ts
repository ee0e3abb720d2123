// What the answer draws, computed from the engine's answer: nodes by pool
// with their fill before and after, each pool's scale-up.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { settingsOf } from '../pod.js';
import { answerView } from '../view.js';
import { loadDemo, place, template, IDemo } from './demo.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
});

describe('the answer view', () => {
  test('pools add up to the placement', () => {
    const s = settingsOf(template.pod, 20);
    const { pod, placement } = place(d.cluster, s);
    const view = answerView(
      d.summary,
      placement,
      pod.spec!.containers![0].resources!.requests!
    );
    const now = view.pools.reduce((n, p) => n + p.workers, 0);
    expect(now).toBe(placement.placed);
    expect(view.placedNow + view.placedAfterScaleUp + view.never).toBe(20);
    for (const g of placement.scaleUp?.pools ?? []) {
      expect(view.pools.find(p => p.name === g.pool)!.adds).toBe(g.nodesAdded);
    }
    for (const p of view.pools)
      for (const n of p.nodes) expect(n.after).toBeGreaterThanOrEqual(n.before);
  });
});
