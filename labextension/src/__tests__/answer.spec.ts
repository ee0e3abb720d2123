/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["node", "node-addons"]}
 */
// The sidebar's parts without the panel: an engine answer in, DOM out, as a
// notebook's output would draw them. jsdom has no canvas: the bars' pixels are
// the UI tests' to see in Chromium (ui-tests/), here only their size is. The
// engine is @tightpack/wasm's Node entry (the export conditions above), which
// reads the .wasm from disk where the browser entry would fetch it.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { AnswerView } from '../answer.js';
import { ForecastView, forecastElement } from '../forecast.js';
import { WorkerForm } from '../form.js';
import { settingsOf } from '../pod.js';
import { PoolsView } from '../pools.js';
import { schedulerChoices } from '../schedulers.js';
import { StartView } from '../start.js';
import { ISnapshotEnvelope, IWorkerTemplate } from '../types.js';
import { answerView } from '../view.js';
import { demo, loadDemo, ok, place, template, IDemo } from './demo.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
  // jsdom's own getContext only logs that it has no canvas; drawPool stops at null.
  HTMLCanvasElement.prototype.getContext = (() => null) as any;
});

const classes = (node: Element) =>
  [...node.children].map(c => c.className.split(' ')[0]);

describe('the answer, drawn from the engine alone', () => {
  test('20 Dask workers: the verdict first, then warnings, legend, one box per pool', () => {
    const { pod, placement } = place(d.cluster, settingsOf(template.pod, 20));
    const view = new AnswerView();
    document.body.append(view.node);
    view.draw({
      summary: d.summary,
      placement,
      pod,
      source: 'dask-kubernetes'
    });
    const pools = answerView(d.summary, placement).pools;
    const headline = view.node.querySelector('.tp-headline')!;
    expect(headline.getAttribute('data-placed')).toBe(String(placement.placed));
    expect(headline.textContent).toMatch(
      /^20 of 20 workers run: \d+ now, \d+ after cluster-autoscaler adds nodes \(.*\)\.$/
    );
    expect(classes(view.node).slice(0, 2)).toEqual([
      'tp-verdict',
      'tp-warnings'
    ]);
    const legend = classes(view.node).indexOf('tp-legend');
    expect(
      classes(view.node).slice(legend + 1, legend + 1 + pools.length)
    ).toEqual(pools.map(() => 'tp-pool'));
    const boxes = [...view.node.querySelectorAll<HTMLElement>('.tp-pool')];
    expect(boxes.map(b => [b.dataset.pool, Number(b.dataset.workers)])).toEqual(
      pools.map(p => [p.name, p.workers])
    );
    // The long paragraph folds under its first line.
    const evictable = view.node.querySelector('.tp-warning-evictable')!;
    expect(evictable.querySelector('summary')!.textContent).toBe(
      'cluster-autoscaler may evict workers to remove a node.'
    );
    expect(evictable.textContent).toMatch(/safe-to-evict: "false"/);
    // Painted as soon as it is drawn: a 30-pixel row for each small pool, none for an empty one.
    expect(
      [...view.node.querySelectorAll('canvas')].map(c => c.style.height)
    ).toEqual(pools.map(p => (p.nodes.length + p.adds ? '30px' : '0px')));
    // The advice, when the engine gives it, joins the verdict: 7 workers land on the
    // hub's core pool, and the fix selects the worker pool.
    const applied: object[] = [];
    view.onApply = change => applied.push(change);
    const advice = ok(
      d.cluster.advise({ pod, replicas: 20, profile: 'tightpack' })
    );
    view.showAdvice(advice);
    const fix = view.node.querySelector('.tp-verdict .tp-fix')!;
    expect(fix.textContent).toBe(
      'The fix: Select pool dask-workers (cloud.google.com/gke-nodepool=dask-workers): all 20 run on 4 nodes, 3 of them new (ready in ~2 min), none on core-pool. Apply'
    );
    fix.querySelector<HTMLButtonElement>('button.tp-apply')!.click();
    expect(applied).toEqual([advice.fixes![0].change]);
    view.markStale();
    expect(view.node.classList.contains('tp-stale')).toBe(true);
    view.draw({ summary: d.summary, placement, pod });
    expect(view.node.classList.contains('tp-stale')).toBe(false);
    expect(view.node.querySelector('.tp-fix')).toBeNull();
    view.node.remove();
  });

  test('40 workers of 4 cpus: the count that never runs, the fix, and the shape that tiles', () => {
    const s = { ...settingsOf(template.pod, 40), cores: '4', memory: '16Gi' };
    const { pod, placement } = place(d.cluster, s);
    const view = new AnswerView();
    view.onApply = () => undefined;
    view.draw({
      summary: d.summary,
      placement,
      pod,
      source: 'dask-kubernetes'
    });
    view.showAdvice(
      ok(d.cluster.advise({ pod, replicas: 40, profile: 'tightpack' }))
    );
    const verdict = view.node.querySelector('.tp-verdict')!;
    expect(verdict.querySelector('.tp-never')!.textContent).toBe(
      '32 never run (max size 10 of pool dask-workers reached).'
    );
    expect(verdict.querySelector('.tp-fix')!.textContent).toMatch(
      /^The fix: Ask for 3850m cpu and ask your operator to raise the max size of pool dask-workers from 10 to 22: all 40 run on 20 new nodes/
    );
    expect(verdict.querySelector('.tp-fix-self')!.textContent).toMatch(
      /^Without your operator: Ask for 3850m cpu: 16 of 40 workers run/
    );
    expect(verdict.querySelector('.tp-tiling button')!.textContent).toBe(
      'Use 3850m'
    );
    // Why, in kube-scheduler's words, folds.
    expect(
      view.node.querySelector('details.tp-why .tp-reason')!.textContent
    ).toBe('Node pools: max size 10 of pool dask-workers reached');
  });

  test('a notebook that waits for its home disk: the fix names the pool in the other zone', () => {
    const home = demo('home.json');
    const c = demo('cluster.json');
    const cluster = ok(
      d.engine.loadCluster(
        { ...c, items: [...c.items, ...home.items] },
        { pools: demo('pools.json') }
      )
    );
    const pod = {
      metadata: { name: 'jupyter-gpu-notebook-t4', namespace: 'daskhub' },
      spec: {
        containers: [
          {
            name: 'notebook',
            resources: {
              requests: { cpu: '3', memory: '20Gi' },
              limits: { 'nvidia.com/gpu': '1' }
            }
          }
        ],
        nodeSelector: {
          'cloud.google.com/gke-accelerator': 'nvidia-tesla-t4'
        },
        volumes: [
          {
            name: 'volume-alice',
            persistentVolumeClaim: { claimName: 'claim-alice' }
          }
        ]
      }
    };
    const placement = ok(
      cluster.place({
        pod,
        replicas: 1,
        admission: { extendedResourceToleration: true }
      })
    );
    const view = new AnswerView();
    view.draw({
      summary: ok(cluster.summary()),
      placement,
      pod,
      source: 'profile',
      name: 'GPU notebook (T4)',
      claims: [
        {
          name: 'claim-alice',
          namespace: 'daskhub',
          own: true,
          firstSpawn: false,
          homeKnown: true
        }
      ]
    });
    expect(view.node.querySelector('.tp-headline')!.textContent).toBe(
      'Your “GPU notebook (T4)” server fits on no node now: it waits, Pending.'
    );
    // What the claim is, from the engine; whose, from the server extension.
    expect(view.node.querySelector('.tp-claims')!.textContent).toBe(
      'Your home claim claim-alice is on a disk in us-central1-b: the notebook can run only on a node in that zone.'
    );
    // The disk's zone is what keeps it: said in the verdict, in full.
    expect(view.node.querySelector('.tp-verdict .tp-volume')!.textContent).toBe(
      'Your home disk (claim claim-alice) is in us-central1-b, where no pool can grow for it: pool gpu-t4-c in another zone could take it if the disk were there. Ask your operator to move the volume or raise the max size of gpu-t4 (1).'
    );
    cluster.dispose();
  });

  test("a pool's box says its figures; redraw() paints it at its width", () => {
    const { pod, placement } = place(d.cluster, settingsOf(template.pod, 60));
    const pools = answerView(d.summary, placement).pools;
    const grown = pools.find(p => p.adds > 0)!;
    const view = new PoolsView();
    const [box] = view.render([grown]);
    expect(box.querySelector('.tp-pool-facts')!.textContent).toContain(
      `+${grown.adds} nodes for ${grown.addedWorkers} workers, ready in ~`
    );
    const canvas = box.querySelector('canvas')!;
    expect(canvas.getAttribute('aria-label')).toMatch(
      new RegExp(`^${grown.name}: ${grown.nodes.length} nodes; new workers on `)
    );
    expect(canvas.style.height).toBe('');
    view.redraw();
    expect(canvas.style.height).toBe('30px');
  });
});

describe('the other parts', () => {
  test('the start code and the pod', () => {
    const { pod } = place(d.cluster, settingsOf(template.pod, 5));
    const start = new StartView();
    start.show(template, pod, 5, undefined);
    expect(start.node.querySelector('.tp-code')!.textContent).toContain(
      'cluster.scale(5)'
    );
    expect(
      JSON.parse(start.node.querySelector('.tp-pod-json')!.textContent!)
    ).toEqual(pod);
  });

  test('the scale-down forecast, and its error', () => {
    expect(
      forecastElement(ok(d.cluster.forecast({}))).querySelector(
        '.tp-forecast-summary'
      )!.textContent
    ).toMatch(/^\d+ of 5 nodes can be removed after 10m unneeded\.$/);
    const view = new ForecastView(() => d.cluster);
    const input = view.node.querySelector('input')!;
    input.value = 'a in (b';
    view.node.querySelector('button')!.click();
    expect(
      view.node.querySelector('.tp-forecast .tp-error')!.textContent
    ).toMatch(/remove/);
  });

  test("a notebook's shrink, asked of the sidebar's forecast by name", () => {
    const view = new ForecastView(() => d.cluster);
    const input = view.node.querySelector('input')!;
    input.value = 'left over';
    const removeDeployments = [
      'daskhub/dask-3f2a-default-worker-fff6133d49',
      'daskhub/gone'
    ];
    view.ask({ removeDeployments }, 'KubeCluster dask-3f2a');
    expect(input.value).toBe('');
    expect(view.node.querySelector('.tp-forecast-asked')!.textContent).toBe(
      'If the workers of KubeCluster dask-3f2a that scale() retires leave:'
    );
    expect(
      view.node.querySelector('.tp-forecast-summary')!.textContent
    ).toMatch(/ \(with 1 pod taken away\)\.$/);
    expect(view.node.textContent).toContain(
      'Deployment "daskhub/gone" has no running pod in the snapshot'
    );
  });

  test("the form gives the template's settings, or the first thing wrong", () => {
    let changes = 0;
    const form = new WorkerForm(() => ++changes);
    const gpu: IWorkerTemplate = {
      ...template,
      id: 'gpu',
      notes: ['a note']
    };
    form.setTemplates([template, gpu], ['broken.yaml: line 2']);
    form.setProfiles(
      schedulerChoices(d.summary, {
        kubespawnerDefaults: { scheduler_name: 'daskhub-user-scheduler' }
      } as unknown as ISnapshotEnvelope),
      'most-allocated'
    );
    expect(form.profile).toBe('most-allocated');
    expect(form.choice!.schedulerName).toBe('daskhub-user-scheduler');
    form.choose('gpu');
    expect(changes).toBe(1);
    expect(form.template).toBe(gpu);
    expect(form.read(d.engine)).toEqual({
      settings: settingsOf(template.pod, 3)
    });
    expect(form.node.querySelector('.tp-template-notes')!.textContent).toBe(
      'a note'
    );
    expect(form.node.querySelector('.tp-template-errors')!.textContent).toBe(
      'broken.yaml: line 2'
    );
    const memory = form.node.querySelector<HTMLInputElement>('.tp-memory')!;
    memory.value = '8 GB';
    memory.dispatchEvent(new Event('input'));
    expect(changes).toBe(2);
    expect(form.read(d.engine)).toEqual({
      error: 'Memory "8 GB" is not a Kubernetes quantity: write 8Gi'
    });
    // A fix goes into the form: tolerations and selector added, the worker's new size.
    form.apply({
      addTolerations: [
        { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }
      ],
      addNodeSelector: { 'cloud.google.com/gke-nodepool': 'dask-workers' },
      containerRequests: { cpu: '3850m', memory: '17179869184' },
      replicas: 12
    });
    expect(changes).toBe(3);
    expect(form.read(d.engine)).toEqual({
      settings: {
        ...settingsOf(template.pod, 12),
        cores: '3850m',
        memory: '16Gi',
        tolerations: [
          ...settingsOf(template.pod, 12).tolerations,
          { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }
        ],
        nodeSelector: { 'cloud.google.com/gke-nodepool': 'dask-workers' }
      }
    });
  });
});
