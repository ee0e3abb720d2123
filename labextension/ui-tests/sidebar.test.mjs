// The sidebar in a real JupyterLab from PyPI, in Debian's Chromium: the demo
// cluster, 20 Dask workers, per-pool figures equal to `tightpack predict`,
// GPUs growing the GPU pool, a GPU notebook waiting for its home disk's zone,
// a bad memory value, and screenshots.
//   node --test labextension/ui-tests/   (after scripts/build_labextension.sh)
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  comparePools,
  installAsAUser,
  jupyter,
  launchChromium,
  openSidebar,
  poolFigures,
  poolsPredicted,
  repoDir,
  setField,
  startLab,
  waitForAnswerAfter,
  widenSidebar
} from './jupyterlab.mjs';

// The README's screenshots: TIGHTPACK_SCREENSHOTS=docs updates them.
const screenshots = path.resolve(
  repoDir,
  process.env.TIGHTPACK_SCREENSHOTS ?? path.join('build', 'screenshots')
);

let lab;
let context;
let page;

before(async () => {
  installAsAUser({ reuse: true });
  lab = await startLab();
  context = await launchChromium();
  page = await openSidebar(context, lab);
  await widenSidebar(page, 460);
});

after(async () => {
  await context?.close();
  lab?.stop();
});

test('pip install is all a user does: both extensions are enabled', () => {
  assert.match(
    jupyter('labextension', 'list'),
    /jupyterlab-tightpack v[\d.]+ enabled.*OK/s
  );
  const server = jupyter('server', 'extension', 'list');
  assert.match(server, /jupyterlab_tightpack enabled/);
  assert.match(server, /jupyterlab_tightpack 0\.1\.0 OK/);
});

test('the panel says where the cluster comes from', async () => {
  const source = page.locator('#tightpack-panel .tp-source');
  assert.equal(await source.getAttribute('data-kind'), 'demo');
  assert.match(await source.textContent(), /demo cluster: .* · 5 nodes · /);
});

/** The panel's figures per pool. */
function poolsShown() {
  return poolFigures(page, '#tightpack-panel');
}

async function predictedForPanel(workers) {
  const pod = await page.locator('#tightpack-panel .tp-pod-json').textContent();
  const profile = await page
    .locator('#tightpack-panel select.tp-profile')
    .inputValue();
  return poolsPredicted(lab, pod, workers, profile);
}

/** Chooses a template by its id and waits for the answer it causes. */
async function chooseTemplate(id) {
  const before = Number(
    (await page
      .locator('#tightpack-panel')
      .getAttribute('data-answer-version')) ?? 0
  );
  await page.locator('#tightpack-panel select.tp-template').selectOption(id);
  await waitForAnswerAfter(page, before);
}

test('20 Dask workers: the per-pool figures are what tightpack predict prints', async () => {
  const templates = await page.$$eval(
    '#tightpack-panel select.tp-template option',
    os => os.map(o => [o.value, o.textContent])
  );
  const dask = templates.find(([, text]) => /dask-kubernetes/.test(text));
  assert.ok(
    dask,
    `a dask-kubernetes template among ${JSON.stringify(templates)}`
  );
  await page
    .locator('#tightpack-panel select.tp-template')
    .selectOption(dask[0]);
  const v = await setField(page, 'input.tp-workers', 20);
  await waitForAnswerAfter(page, v);
  const shown = await poolsShown();
  const predicted = await predictedForPanel(20);
  comparePools(shown, predicted);
  const headline = await page
    .locator('#tightpack-panel .tp-headline')
    .textContent();
  assert.match(
    headline,
    new RegExp(
      `${predicted.placed} of 20 workers fit without any scale-up|All 20 workers fit`
    )
  );
  // The operator makes each worker a Deployment: cluster-autoscaler may evict them.
  const evictable = page.locator('#tightpack-panel .tp-warning-evictable');
  assert.match(
    await evictable.textContent(),
    /cluster-autoscaler may evict workers to remove a node.*safe-to-evict: "false"/
  );
  await page
    .locator('#tightpack-panel')
    .screenshot({ path: path.join(screenshots, 'sidebar-light.png') });
});

test('one GPU per worker grows a GPU pool', async () => {
  const v = await setField(page, 'input.tp-gpus', 1);
  await waitForAnswerAfter(page, v);
  const shown = await poolsShown();
  const gpuGrowth = Object.entries(shown).filter(
    ([name, p]) => /gpu/.test(name) && p.adds > 0
  );
  assert.ok(gpuGrowth.length > 0, `a GPU pool grows: ${JSON.stringify(shown)}`);
  comparePools(shown, await predictedForPanel(20));
  const v2 = await setField(page, 'input.tp-gpus', 0);
  await waitForAnswerAfter(page, v2);
});

test("the GPU notebook waits for its home disk's zone; the pool in another zone is named", async () => {
  const panel = page.locator('#tightpack-panel');
  const templates = await page.$$eval(
    '#tightpack-panel select.tp-template option',
    os => os.map(o => o.value)
  );
  const dask = templates.find(id => id === 'dask-kubernetes');
  assert.ok(
    templates.includes('profile:gpu-notebook-t4'),
    `the GPU profile among ${JSON.stringify(templates)}`
  );
  await chooseTemplate('profile:gpu-notebook-t4');
  // The server extension says which home claim the pod mounts, from /home.
  assert.match(
    await panel.locator('.tp-template-notes').textContent(),
    /your home claim claim-alice, on a disk in us-central1-b: the notebook can run only on a node in that zone/
  );
  assert.match(
    await panel.locator('.tp-pod-json').textContent(),
    /"claimName": "claim-alice"/
  );
  // It waits, why, and which pool could take it.
  assert.equal(
    await panel.locator('.tp-headline').textContent(),
    'Your notebook server fits on no node now.'
  );
  assert.match(
    await panel.locator('.tp-never h3').textContent(),
    /^Your notebook server waits: it stays Pending$/
  );
  // The one fix: its tolerations, selector and memory are not what keeps it.
  assert.deepEqual(
    await panel.locator('.tp-never .tp-fixes li').allTextContents(),
    [
      'Your home disk (claim claim-alice) is in us-central1-b, where no pool can grow for it: pool gpu-t4-c in another zone could take it if the disk were there. Ask your operator to move the volume or raise the max size of gpu-t4 (1).'
    ]
  );
  // The per-pool figures (nothing placed, nothing grown) are tightpack predict's, whose
  // answer names the same pools.
  const shown = await poolsShown();
  const predicted = await predictedForPanel(1);
  comparePools(shown, predicted);
  assert.equal(predicted.placed, 0);
  assert.deepEqual(
    predicted.scaleUp.unplaced.map(u => u.blockedByVolumes),
    [['gpu-t4-c']]
  );
  assert.deepEqual(
    predicted.scaleUp.unplaced.map(u => u.poolsAtMax),
    [[{ pool: 'gpu-t4', maxSize: 1 }]]
  );
  await panel.screenshot({
    path: path.join(screenshots, 'sidebar-home-disk.png')
  });
  // Back to the Dask workers for the tests after this one.
  await chooseTemplate(dask);
  const v = await setField(page, 'input.tp-workers', 20);
  await waitForAnswerAfter(page, v);
});

test('a bad memory value shows the error', async () => {
  await setField(page, 'input.tp-memory', '8 GB');
  const error = page.locator('#tightpack-panel .tp-form-error');
  await error.waitFor({ state: 'visible' });
  assert.match(
    await error.textContent(),
    /Memory "8 GB" is not a Kubernetes quantity: write 8Gi/
  );
  const v = await setField(page, 'input.tp-memory', '4Gi');
  await waitForAnswerAfter(page, v);
  assert.equal(await error.isVisible(), false);
});

test('the scale-down forecast', async () => {
  const panel = page.locator('#tightpack-panel');
  await panel
    .locator('input.tp-forecast-remove')
    .fill('dask.org/cluster-name=mine');
  await panel.locator('button.tp-forecast-run').click();
  const summary = panel.locator('.tp-forecast-summary');
  await summary.waitFor();
  assert.match(
    await summary.textContent(),
    /^\d+ of 5 nodes can be removed after 10m unneeded( \(with \d+ pods taken away\))?\.$/
  );
  await panel.locator('input.tp-forecast-remove').fill('a in (b');
  await panel.locator('button.tp-forecast-run').click();
  await panel.locator('.tp-forecast .tp-error').waitFor();
  assert.match(
    await panel.locator('.tp-forecast .tp-error').textContent(),
    /remove/
  );
});

test('the dark theme', async () => {
  await page.locator('.lm-MenuBar-itemLabel', { hasText: 'Settings' }).click();
  await page.locator('.lm-Menu-itemLabel', { hasText: /^Theme$/ }).click();
  await page
    .locator('.lm-Menu-itemLabel', { hasText: /^JupyterLab Dark$/ })
    .click();
  await page.waitForFunction(
    () => document.body.dataset.jpThemeLight === 'false'
  );
  await page.waitForTimeout(300);
  const v = await setField(page, 'input.tp-workers', 20);
  await waitForAnswerAfter(page, v);
  await page
    .locator('#tightpack-panel')
    .screenshot({ path: path.join(screenshots, 'sidebar-dark.png') });
});

test('errors from the server are shown, not swallowed', async () => {
  // A Dask config file with bad YAML, and a scheduler URL nothing listens on.
  const dask = mkdtempSync(path.join(tmpdir(), 'tightpack-dask-'));
  writeFileSync(
    path.join(dask, 'broken.yaml'),
    'kubernetes:\n  image: [unclosed\n'
  );
  for (const [env, check] of [
    [
      { DASK_CONFIG: dask },
      async p => {
        const errors = p.locator('#tightpack-panel .tp-template-errors');
        await errors.waitFor({ state: 'visible' });
        assert.match(await errors.textContent(), /broken\.yaml.*line/s);
      }
    ],
    [
      { TIGHTPACK_SNAPSHOT_URL: 'http://127.0.0.1:9/snapshot' },
      async p => {
        const source = p.locator('#tightpack-panel .tp-source.tp-source-error');
        await source.waitFor();
        assert.match(
          await source.textContent(),
          /Cannot load the cluster: .*127\.0\.0\.1:9/
        );
      }
    ]
  ]) {
    const other = await startLab(env);
    const tab = await context.newPage();
    try {
      await tab.goto(`${other.url}/lab?reset&token=${other.token}`);
      await tab
        .locator('.jp-SideBar.jp-mod-left [data-id="tightpack-panel"]')
        .click();
      await check(tab);
    } finally {
      await tab.close();
      other.stop();
    }
  }
});
