// preview() in a notebook of a real JupyterLab from PyPI, in Debian's
// Chromium: the kernel builds a spec with dask-kubernetes' own
// make_cluster_spec (no cluster is needed for that) and previews 20 workers
// of it; a GPU profile by name; a spec with an invalid quantity; a running
// cluster scaled down. The drawn output has the per-pool figures `tightpack
// predict --pools` gives on the same pod and the sidebar shows for it, or for
// the shrink the nodes `tightpack forecast` frees; a saved and reopened
// notebook draws its outputs again.
//   node --test labextension/ui-tests/   (after scripts/build_labextension.sh)
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  RUNNING_CLUSTER_CELL,
  comparePools,
  forecastPredicted,
  installAsAUser,
  kernelIdle,
  launchChromium,
  poolFigures,
  poolsPredicted,
  repoDir,
  startLab
} from './jupyterlab.mjs';

const MIME = 'application/vnd.tightpack.preview+json';
const screenshots = path.resolve(
  repoDir,
  process.env.TIGHTPACK_SCREENSHOTS ?? path.join('build', 'screenshots')
);

// The three lines a user writes (docs/notebook.md), and two more previews.
const cells = [
  [
    'from dask_kubernetes.operator import KubeCluster, make_cluster_spec',
    'from jupyterlab_tightpack import preview',
    '',
    'spec = make_cluster_spec(name="alice", image="ghcr.io/dask/dask:2026.8.0",',
    '                         resources={"requests": {"cpu": "1", "memory": "4Gi"},',
    '                                    "limits": {"cpu": "1", "memory": "4Gi"}})',
    'spec["spec"]["worker"]["spec"]["tolerations"] = [',
    '    {"key": "dask", "operator": "Equal", "value": "worker", "effect": "NoSchedule"}]',
    'preview(spec, 20)',
    '# and when it looks right: KubeCluster(custom_cluster_spec=spec).scale(20)'
  ],
  ['preview("GPU notebook (T4)", 1)'],
  [
    'bad = make_cluster_spec(name="bad", resources={"requests": {"memory": "4Gx"}})',
    'preview(bad, 2)'
  ],
  RUNNING_CLUSTER_CELL,
  ['await preview(cluster, 3)  # what cluster.scale(3) frees']
];

function notebook() {
  return {
    cells: cells.map((lines, i) => ({
      id: `preview-${i}`,
      cell_type: 'code',
      execution_count: null,
      metadata: {},
      outputs: [],
      source: lines.map((l, i) => (i < lines.length - 1 ? `${l}\n` : l))
    })),
    metadata: {
      kernelspec: {
        display_name: 'Python 3 (ipykernel)',
        language: 'python',
        name: 'python3'
      },
      language_info: { name: 'python' }
    },
    nbformat: 4,
    nbformat_minor: 5
  };
}

let lab;
let context;
let page;
let file;

before(async () => {
  installAsAUser({ reuse: true });
  lab = await startLab();
  file = path.join(lab.home, 'preview.ipynb');
  writeFileSync(file, JSON.stringify(notebook(), null, 1));
  context = await launchChromium();
  page = context.pages()[0] ?? (await context.newPage());
});

after(async () => {
  await context?.close();
  await lab?.stop();
});

// The renderer's node is the output itself.
const PREVIEWS = '.jp-OutputArea-output.tp-Preview';
const outputs = () => page.locator(PREVIEWS);

/** The pools of the i-th preview in the notebook. */
async function previewPools(i) {
  await outputs().evaluateAll(ps =>
    ps.forEach((p, k) => (p.dataset.testIndex = String(k)))
  );
  return poolFigures(page, `${PREVIEWS}[data-test-index="${i}"]`);
}

/** The pod the server extension makes of a question's target. */
async function podOf(target) {
  const r = await fetch(`${lab.url}/tightpack/preview`, {
    method: 'POST',
    headers: { Authorization: `token ${lab.token}` },
    body: JSON.stringify({ target })
  });
  assert.equal(r.status, 200, await r.clone().text());
  return r.json();
}

/** The scheduler profile the i-th preview says it placed with. */
async function profileOf(i) {
  const source = await outputs().nth(i).locator('.tp-source').textContent();
  return source.replace(/.*scheduler profile /, '');
}

async function openNotebook() {
  await page.goto(`${lab.url}/lab/tree/preview.ipynb?token=${lab.token}`);
  await page
    .locator('.jp-Notebook .jp-Cell')
    .first()
    .waitFor({ timeout: 60000 });
}

/**
 * Run > Run All Cells, as a user does, once the kernel is ready; again if
 * JupyterLab had not yet wired the kernel to the notebook (no cell starts).
 */
async function runAll() {
  await kernelIdle(lab);
  for (let attempt = 0; attempt < 3; ++attempt) {
    await page.locator('.lm-MenuBar-itemLabel', { hasText: /^Run$/ }).click();
    await page
      .locator('.lm-Menu-itemLabel', { hasText: /^Run All Cells$/ })
      .click();
    try {
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('.jp-InputPrompt')].some(p =>
            /\[(\*|\d+)\]/.test(p.textContent ?? '')
          ),
        null,
        { timeout: 15000 }
      );
      return;
    } catch {
      await kernelIdle(lab);
    }
  }
  throw new Error('Run All Cells ran no cell');
}

/**
 * The notebook as saved. Ctrl+S rewrites the file in place even when nothing changed, so it
 * is read again until it parses (a read in the middle of the write found it empty).
 */
async function savedNotebook() {
  await page.keyboard.press('Control+s');
  await page.waitForFunction(() => !document.querySelector('.jp-mod-dirty'));
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      if (Date.now() > deadline) {
        throw e;
      }
      await new Promise(resolve => setTimeout(resolve, 100));
    }
  }
}

/** The previews' states once every one has stopped loading. */
async function settled(count) {
  await page.waitForFunction(
    n => {
      const all = [
        ...document.querySelectorAll('.jp-OutputArea-output.tp-Preview')
      ];
      return all.length === n && all.every(p => p.dataset.state !== 'loading');
    },
    count,
    { timeout: 120000 }
  );
  return outputs().evaluateAll(ps => ps.map(p => p.dataset.state));
}

// Each preview's state, by output.
const STATES = ['drawn', 'drawn', 'error', 'drawn'];

test('run the notebook: the previews drawn, the bad spec shows its error', async () => {
  await openNotebook();
  await runAll();
  assert.deepEqual(await settled(STATES.length), STATES);
  const error = await outputs()
    .nth(2)
    .locator('.tp-preview-error')
    .textContent();
  assert.match(error, /4Gx/);
  assert.match(error, /memory/);
  // The README's first screenshot: the cell and its preview.
  await page
    .locator('.jp-Notebook .jp-Cell')
    .first()
    .screenshot({ path: path.join(screenshots, 'notebook-preview.png') });
});

test('20 workers: the figures of tightpack predict --pools, and of the sidebar', async () => {
  // The question as the saved output keeps it, made into its pod by the server extension.
  const saved = await savedNotebook();
  const question = saved.cells[0].outputs.find(o => o.data?.[MIME]).data[MIME];
  assert.equal(question.workers, 20);
  assert.equal(question.target.kind, 'dask-kubernetes');
  const template = await podOf(question.target);
  const predicted = await poolsPredicted(
    lab,
    JSON.stringify(template.pod),
    20,
    await profileOf(0)
  );
  const shown = await previewPools(0);
  assert.ok(Object.keys(shown).length > 0, 'pools drawn');
  comparePools(shown, predicted);

  // "Open in the sidebar": the same question in the form, the same figures.
  await outputs().first().locator('.tp-preview-open').click();
  await page
    .locator('#tightpack-panel .tp-pool canvas')
    .first()
    .waitFor({ timeout: 60000 });
  await page.waitForFunction(
    () =>
      document.querySelector('#tightpack-panel input.tp-workers')?.value ===
      '20'
  );
  assert.equal(
    await page.locator('#tightpack-panel select.tp-template').inputValue(),
    template.id
  );
  assert.deepEqual(await poolFigures(page, '#tightpack-panel'), shown);
});

test('a GPU profile by its name: the notebook server, as predict places it', async () => {
  const gpu = outputs().nth(1);
  assert.equal(
    await gpu.locator('.tp-preview-title').textContent(),
    "tightpack: where a notebook server of profile 'GPU notebook (T4)' lands"
  );
  const template = await podOf({ kind: 'profile', name: 'GPU notebook (T4)' });
  assert.equal(template.id, 'profile:gpu-notebook-t4');
  const predicted = await poolsPredicted(
    lab,
    JSON.stringify(template.pod),
    1,
    await profileOf(1)
  );
  comparePools(await previewPools(1), predicted);
  assert.equal(
    await gpu.locator('.tp-headline').getAttribute('data-placed'),
    String(predicted.placed)
  );
});

test("a running cluster's shrink: tightpack forecast on the workers its scheduler retires", async () => {
  const saved = await savedNotebook();
  const shrink = outputs().nth(3);
  assert.equal(
    await shrink.locator('.tp-preview-title').textContent(),
    'tightpack: what scale(3) of KubeCluster dask-3f2a frees'
  );
  const question = saved.cells[4].outputs.find(o => o.data?.[MIME]).data[MIME];
  // The scheduler kept the three holding data and retires the four on 8sne.
  assert.deepEqual(question.running.retiring.slice().sort(), [
    'dask-3f2a-default-worker-776cf48fcb',
    'dask-3f2a-default-worker-9e265445d9',
    'dask-3f2a-default-worker-bf038211f2',
    'dask-3f2a-default-worker-fff6133d49'
  ]);
  const keys = question.running.forecast.removeDeployments;
  assert.deepEqual(
    keys,
    question.running.retiring.map(n => `daskhub/${n}`)
  );
  const predicted = await forecastPredicted(lab, [
    '--remove-deployments',
    keys.join(',')
  ]);
  assert.equal(predicted.removedPods.length, 4);
  const summary = `${predicted.summary.removable} of ${predicted.summary.nodes} nodes can be removed after ${predicted.unneededTime} unneeded (with 4 pods taken away).`;
  assert.equal(
    await shrink.locator('.tp-forecast-summary').textContent(),
    summary
  );
  // docs/notebook.md's second screenshot: the cell and the shrink's preview.
  await page
    .locator('.jp-Notebook .jp-Cell')
    .nth(4)
    .screenshot({ path: path.join(screenshots, 'notebook-shrink.png') });
  const removable = predicted.nodes.filter(n => n.removable).map(n => n.node);
  assert.ok(removable.includes('gke-daskhub-dask-workers-a9c4-8sne'));
  assert.equal(
    await shrink.locator('.tp-forecast-summary + p').textContent(),
    `Removed: ${removable.join(', ')}`
  );

  // "Open in the sidebar": its scale-down forecast, for the same workers.
  await shrink.locator('.tp-preview-open').click();
  const sidebar = page.locator('#tightpack-panel .tp-forecast');
  await sidebar.locator('.tp-forecast-summary').waitFor({ timeout: 60000 });
  assert.equal(
    await sidebar.locator('.tp-forecast-asked').textContent(),
    'If the workers of KubeCluster dask-3f2a that scale() retires leave:'
  );
  assert.equal(
    await sidebar.locator('.tp-forecast-summary').textContent(),
    summary
  );
});

test('a saved notebook, opened again, draws its previews again', async () => {
  await page.reload();
  await openNotebook();
  assert.deepEqual(await settled(STATES.length), STATES);
});
