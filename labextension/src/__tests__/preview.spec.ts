/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["node", "node-addons"]}
 */
// A notebook's preview drawn by its renderer, with the real engine on the demo
// cluster. The server extension's half (POST /tightpack/preview) is a test
// double here, returning a template shaped as it makes them: pytest covers it
// (test_preview.py) and the UI test runs both in JupyterLab.
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { forecastElement } from '../forecast.js';
import type { IForecastQuestion, IQuestion } from '../panel.js';
import {
  IPreviewDeps,
  MIME_TYPE,
  PreviewRenderer,
  readQuestion
} from '../preview.js';
import { ILoadedCluster } from '../session.js';
import { ISnapshotEnvelope, IWorkerTemplate } from '../types.js';
import { answerView } from '../view.js';
import { daskToleration, loadDemo, ok } from './demo.js';

let loaded: ILoadedCluster;
beforeAll(async () => {
  const d = await loadDemo();
  const envelope = {
    source: { kind: 'demo', detail: 'the built-in DaskHub cluster' },
    fetchedAt: '2026-12-04T12:00:00Z',
    admission: { extendedResourceToleration: true }
  } as ISnapshotEnvelope;
  loaded = { ...d, envelope };
  HTMLCanvasElement.prototype.getContext = (() => null) as any;
});

// make_cluster_spec's worker, as the server extension wraps it: env and
// resources may be null where the user gave none.
function specTemplate(memory = '8Gi'): IWorkerTemplate {
  return {
    id: 'dask-kubernetes:bob-default',
    name: 'KubeCluster worker group bob-default',
    source: 'dask-kubernetes',
    description: 'DaskCluster in namespace daskhub',
    workers: 0,
    notes: [],
    start: {
      kind: 'kubecluster',
      name: 'bob',
      namespace: 'daskhub',
      image: 'ghcr.io/dask/dask:latest',
      resources: {},
      env: {},
      customClusterSpec: null
    },
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'bob-default-worker',
        namespace: 'daskhub',
        labels: { 'dask.org/component': 'worker' }
      },
      spec: {
        containers: [
          {
            name: 'worker',
            image: 'ghcr.io/dask/dask:latest',
            env: null,
            resources: { requests: { cpu: '2', memory } }
          }
        ],
        tolerations: [daskToleration]
      }
    }
  };
}

/** The engine's placement of `replicas` spec workers, as the sidebar asks it. */
function placeSpec(replicas: number) {
  return ok(
    loaded.cluster.place({
      pod: specTemplate().pod,
      replicas,
      profile: 'tightpack',
      admission: { extendedResourceToleration: true }
    })
  );
}

function question(workers = 20, profile: string | null = null) {
  return {
    version: 1,
    target: { kind: 'dask-kubernetes', manifest: {} },
    workers,
    profile,
    label: 'DaskCluster bob'
  };
}

// The demo's running KubeCluster dask-3f2a: seven operator workers, each a
// Deployment named after the worker. Scaled to `workers`, preview() puts in
// the ones its scheduler retires: here the four on node 8sne.
const RETIRING = ['fff6133d49', '9e265445d9', 'bf038211f2', '776cf48fcb'].map(
  id => `dask-3f2a-default-worker-${id}`
);
function shrink(workers: number) {
  return {
    version: 2,
    target: { kind: 'dask-kubernetes', manifest: {} },
    workers,
    profile: null,
    label: 'KubeCluster dask-3f2a',
    running: {
      workers: 7,
      ...(workers < 7
        ? {
            retiring: RETIRING,
            forecast: {
              removeDeployments: RETIRING.map(n => `daskhub/${n}`)
            }
          }
        : {})
    }
  };
}

function model(data: unknown): IRenderMime.IMimeModel {
  return {
    data: { [MIME_TYPE]: data as any },
    metadata: {},
    trusted: false,
    setData: () => undefined
  };
}

function renderer(
  template: IWorkerTemplate | Error,
  asked: (IQuestion | IForecastQuestion)[] = []
): PreviewRenderer {
  const deps: IPreviewDeps = {
    session: { load: () => Promise.resolve(loaded), loaded },
    resolve: () =>
      template instanceof Error
        ? Promise.reject(template)
        : Promise.resolve(template),
    defaultProfile: () => 'tightpack',
    openInSidebar: q => asked.push(q)
  };
  return new PreviewRenderer(deps);
}

describe('the preview in a cell output', () => {
  test('20 workers: the sidebar answer for the same pod, and its source', async () => {
    const asked: IQuestion[] = [];
    const r = renderer(specTemplate(), asked);
    await r.renderModel(model(question()));
    expect(r.node.dataset.state).toBe('drawn');
    expect(r.node.querySelector('.tp-preview-title')!.textContent).toBe(
      'tightpack: where 20 workers of DaskCluster bob land'
    );
    expect(r.node.querySelector('.tp-source')!.textContent).toMatch(
      /^demo snapshot of .* · \d+ nodes · scheduler profile tightpack$/
    );
    // The same figures the engine gives the sidebar for this pod.
    const placement = placeSpec(20);
    const pools = answerView(loaded.summary, placement).pools;
    const boxes = [...r.node.querySelectorAll<HTMLElement>('.tp-pool')];
    expect(
      boxes.map(b => [b.dataset.pool, b.dataset.workers, b.dataset.adds])
    ).toEqual(pools.map(p => [p.name, String(p.workers), String(p.adds)]));
    expect(
      r.node.querySelector('.tp-headline')!.getAttribute('data-placed')
    ).toBe(String(placement.placed));

    r.node.querySelector<HTMLButtonElement>('.tp-preview-open')!.click();
    expect(asked).toEqual([
      { template: specTemplate(), workers: 20, profile: 'tightpack' }
    ]);
  });

  test('the question names its scheduler profile; an unknown one is an error listing them', async () => {
    const r = renderer(specTemplate());
    await r.renderModel(model(question(3, 'most-allocated')));
    expect(r.node.querySelector('.tp-source')!.textContent).toMatch(
      /scheduler profile most-allocated$/
    );
    await r.renderModel(model(question(3, 'binpack')));
    expect(r.node.dataset.state).toBe('error');
    expect(r.node.querySelector('.tp-preview-error')!.textContent).toBe(
      'scheduler profile "binpack": expected one of default, most-allocated, rtc, tightpack'
    );
  });

  test("an invalid quantity in the spec is the engine's message in the output", async () => {
    const r = renderer(specTemplate('8Gx'));
    await r.renderModel(model(question()));
    expect(r.node.dataset.state).toBe('error');
    const error = r.node.querySelector('.tp-preview-error')!.textContent!;
    expect(error).toMatch(/memory/);
    expect(error).toMatch(/8Gx/);
  });

  test("the server's refusal is shown, not thrown", async () => {
    const r = renderer(
      new Error("profile 'TPU': the hub offers no profile of that display name")
    );
    await r.renderModel(model(question(1)));
    expect(r.node.querySelector('.tp-preview-error')!.textContent).toMatch(
      /^profile 'TPU'/
    );
  });
});

describe('a running cluster scaled', () => {
  test('down: the workers its scheduler retires and the nodes that then go', async () => {
    const asked: (IQuestion | IForecastQuestion)[] = [];
    const r = renderer(new Error('no pod is made for a shrink'), asked);
    await r.renderModel(model(shrink(3)));
    expect(r.node.dataset.state).toBe('drawn');
    expect(r.node.querySelector('.tp-preview-title')!.textContent).toBe(
      'tightpack: what scale(3) of KubeCluster dask-3f2a frees'
    );
    expect(r.node.querySelector('.tp-source')!.textContent).toMatch(
      / · cluster-autoscaler's scale-down rules$/
    );
    expect(r.node.querySelector('.tp-preview-retiring')!.textContent).toBe(
      `Retiring 4 of 7 workers, as the cluster's scheduler chooses them (workers_to_close): ${RETIRING.join(', ')}.`
    );
    // The engine's forecast with those Deployments' pods taken away, as the
    // sidebar draws it.
    const request = {
      removeDeployments: RETIRING.map(n => `daskhub/${n}`)
    };
    const forecast = ok(
      loaded.cluster.forecast({ ...request, now: new Date().toISOString() })
    );
    expect(forecast.removedPods).toEqual(
      [3, 4, 5, 6].map(i => `daskhub/dask-worker-3f2a-${i}`)
    );
    // The four workers ran on one node, which nothing else keeps.
    expect(
      forecast.nodes.find(n => n.node === 'gke-daskhub-dask-workers-a9c4-8sne')
        ?.removable
    ).toBe(true);
    expect(r.node.querySelector('.tp-forecast-summary')!.textContent).toBe(
      forecastElement(forecast).querySelector('.tp-forecast-summary')!
        .textContent
    );
    r.node.querySelector<HTMLButtonElement>('.tp-preview-open')!.click();
    expect(asked).toEqual([
      { forecast: request, label: 'KubeCluster dask-3f2a' }
    ]);
  });

  test('to its size: nothing to place or retire', async () => {
    const r = renderer(new Error('no pod is made'));
    await r.renderModel(model(shrink(7)));
    expect(r.node.dataset.state).toBe('drawn');
    expect(r.node.querySelector('.tp-preview-unchanged')!.textContent).toBe(
      '7 workers running: scale(7) adds none and retires none.'
    );
  });

  test('up: only the workers beyond the running ones are placed', async () => {
    const asked: (IQuestion | IForecastQuestion)[] = [];
    const r = renderer(specTemplate(), asked);
    await r.renderModel(model(shrink(11)));
    expect(r.node.querySelector('.tp-preview-title')!.textContent).toBe(
      'tightpack: where 4 more workers of KubeCluster dask-3f2a land (7 running)'
    );
    const placement = placeSpec(4);
    expect(
      r.node.querySelector('.tp-headline')!.getAttribute('data-placed')
    ).toBe(String(placement.placed));
    r.node.querySelector<HTMLButtonElement>('.tp-preview-open')!.click();
    expect(asked).toEqual([
      { template: specTemplate(), workers: 4, profile: 'tightpack' }
    ]);
  });
});

describe('the question an output holds', () => {
  test.each([
    [null, 'the output holds no preview question'],
    [
      { ...question(), version: 3 },
      'version 3: this jupyterlab-tightpack reads versions 1 and 2'
    ],
    [
      { ...shrink(4), running: { workers: -1 } },
      'running.workers -1: expected a whole number'
    ],
    [
      { ...shrink(4), running: { workers: 6, retiring: [7] } },
      'running.retiring [7]: expected worker names'
    ],
    [
      { ...shrink(4), running: { workers: 6, forecast: 'x' } },
      'running.forecast "x": expected an object'
    ],
    [
      { ...question(), target: null },
      'target null: expected an object with a kind'
    ],
    [
      { ...question(), workers: 0 },
      'workers 0: expected a whole number from 1 to 10000'
    ],
    [{ ...question(), workers: 2.5 }, 'workers 2.5'],
    [
      { ...question(), profile: 7 },
      "profile 7: expected a scheduler profile's name"
    ]
  ])('%j is refused naming the field', (data, error) => {
    const read = readQuestion(data);
    expect('error' in read && read.error).toMatch(
      new RegExp('^' + error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    );
  });

  test('a question as preview() writes it is read as it is', () => {
    expect(readQuestion(question(5, 'rtc'))).toEqual({
      question: question(5, 'rtc')
    });
    // scale(0) of a running cluster is a question.
    expect(readQuestion(shrink(0))).toEqual({ question: shrink(0) });
  });
});
