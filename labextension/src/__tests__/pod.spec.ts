// The worker pod the form describes, and the tolerations and node selector
// as the form writes and reads them.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { admissionNotes } from '../advice.js';
import {
  parseSelector,
  parseTolerations,
  settingsOf,
  tolerationText,
  workerPod
} from '../pod.js';
import { IPod } from '../types.js';
import { daskToleration, loadDemo, ok, template, IDemo } from './demo.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
});

describe('the worker pod', () => {
  test('takes the form; the engine admits it, advice words that', () => {
    const s = { ...settingsOf(template.pod, 4), gpus: 1 };
    const pod = workerPod(template.pod, s);
    const c = pod.spec!.containers![0];
    expect(c.resources!.requests).toEqual({
      cpu: '1',
      memory: '4Gi',
      'nvidia.com/gpu': '1'
    });
    expect(c.resources!.limits!['nvidia.com/gpu']).toBe('1');
    expect(pod.spec!.tolerations).toEqual([daskToleration]);
    expect(template.pod.spec!.tolerations).toEqual([daskToleration]); // the template is not changed
    // A GPU given only as a limit: the API server sets the request and, in GKE, the toleration.
    const limitOnly: IPod = {
      spec: {
        containers: [
          { name: 'worker', resources: { limits: { 'nvidia.com/gpu': '1' } } }
        ]
      }
    };
    const placed = ok(
      d.cluster.place({
        pod: limitOnly,
        replicas: 1,
        admission: { extendedResourceToleration: true }
      })
    );
    expect(admissionNotes(placed.admission)).toEqual([
      'sets request nvidia.com/gpu 1 from its limit in worker',
      'adds toleration nvidia.com/gpu:NoSchedule (ExtendedResourceToleration)'
    ]);
    // The demo's nodes are GKE's: unsaid, the engine admits as GKE's API server.
    const inferred = ok(d.cluster.place({ pod: limitOnly, replicas: 1 }));
    expect(inferred.admission).toEqual(placed.admission);
    const without = ok(
      d.cluster.place({
        pod: limitOnly,
        replicas: 1,
        admission: { extendedResourceToleration: false }
      })
    );
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
