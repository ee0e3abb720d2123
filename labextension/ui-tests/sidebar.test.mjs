// The sidebar in a real JupyterLab from PyPI, in Debian's Chromium: the demo
// cluster, 20 Dask workers, per-pool figures equal to `tightpack predict`,
// GPUs growing the GPU pool, a GPU notebook waiting for its home disk's zone,
// a bad memory value, and screenshots.
//   node --test labextension/ui-tests/   (after scripts/build_labextension.sh)
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
  waitForAdvice,
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
  await lab?.stop();
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
  const dask = templates.find(([id]) => id === 'dask-kubernetes');
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
      `^20 of 20 workers run: ${predicted.placed} now, ${20 - predicted.placed} after cluster-autoscaler adds nodes`
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
  // The pod mounts the home claim /home lists; the engine says where its disk is.
  assert.equal(
    await panel.locator('.tp-answer .tp-claims').textContent(),
    'Your home claim claim-alice is on a disk in us-central1-b: the notebook can run only on a node in that zone.'
  );
  assert.match(
    await panel.locator('.tp-pod-json').textContent(),
    /"claimName": "claim-alice"/
  );
  // It waits, why, and which pool could take it.
  assert.equal(
    await panel.locator('.tp-headline').textContent(),
    'Your “GPU notebook (T4)” server fits on no node now: it waits, Pending.'
  );
  assert.equal(
    await panel.locator('.tp-verdict .tp-volume').textContent(),
    'Your home disk (claim claim-alice) is in us-central1-b, where no pool can grow for it: pool gpu-t4-c in another zone could take it if the disk were there. Ask your operator to move the volume or raise the max size of gpu-t4 (1).'
  );
  // The engine's one fix: its tolerations, selector and memory are not what keeps it.
  await waitForAdvice(page);
  assert.deepEqual(
    await panel.locator('.tp-verdict .tp-advice').textContent(),
    'The fix: Ask your operator to raise the max size of pool gpu-t4 from 1 to 2: it runs on 1 new node (ready in ~10 min).'
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

test("400 workers: the verdict, and the engine's fix, never a GPU pool or the hub's", async () => {
  const panel = page.locator('#tightpack-panel');
  const v = await setField(page, 'input.tp-workers', 400);
  await waitForAnswerAfter(page, v);
  await waitForAdvice(page);
  assert.match(
    await panel.locator('.tp-headline').textContent(),
    /^63 of 400 workers run: 6 now, 57 after cluster-autoscaler adds nodes \(/
  );
  assert.equal(
    await panel.locator('.tp-verdict .tp-never').textContent(),
    '337 never run (max size 3 of pool core-pool reached; max size 10 of pool dask-workers reached).'
  );
  const advice = await panel.locator('.tp-verdict .tp-advice').textContent();
  assert.doesNotMatch(advice, /nvidia|gpu/);
  assert.match(
    await panel.locator('.tp-verdict .tp-fix').textContent(),
    /^The fix: Select pool dask-workers \(cloud\.google\.com\/gke-nodepool=dask-workers\) and ask your operator to raise the max size of pool dask-workers from 10 to 60: all 400 run/
  );
  // Apply puts the selector into the form; the answer is decided again.
  const before = Number(await panel.getAttribute('data-answer-version'));
  await panel.locator('.tp-verdict .tp-fix button.tp-apply').click();
  await waitForAnswerAfter(page, before);
  assert.equal(
    await panel.locator('textarea.tp-selector').inputValue(),
    'cloud.google.com/gke-nodepool=dask-workers'
  );
  assert.match(
    await panel.locator('.tp-code').textContent(),
    /"cloud\.google\.com\/gke-nodepool": "dask-workers"/
  );
  // The selector is right now: no fix changes it.
  await waitForAdvice(page);
  assert.doesNotMatch(
    await panel.locator('.tp-verdict .tp-advice').textContent(),
    /select pool/i
  );
  await panel.locator('textarea.tp-selector').fill('');
  const v2 = await setField(page, 'input.tp-workers', 20);
  await waitForAnswerAfter(page, v2);
});

test('what users see at 1440×900: the verdict and the fix above the fold, in the default panel', async () => {
  const laptop = await launchChromium({ width: 1440, height: 900 });
  try {
    // A fresh workspace: the panel at JupyterLab's default width.
    const tab = await laptop.newPage();
    await tab.goto(`${lab.url}/lab?reset&token=${lab.token}`);
    await tab
      .locator('.jp-SideBar.jp-mod-left [data-id="tightpack-panel"]')
      .click();
    const panel = tab.locator('#tightpack-panel');
    await panel.locator('.tp-pool canvas').first().waitFor();
    const v = await setField(tab, 'input.tp-workers', 400);
    await waitForAnswerAfter(tab, v);
    await waitForAdvice(tab);
    for (const part of [
      '.tp-headline',
      '.tp-verdict .tp-never',
      '.tp-verdict .tp-fix'
    ]) {
      const box = await panel.locator(part).boundingBox();
      assert.ok(
        box && box.y + box.height <= 900,
        `${part} ends at ${box && box.y + box.height} px, below the fold`
      );
    }
    // The template's label fits the select.
    const select = panel.locator('select.tp-template');
    assert.ok(
      await select.evaluate(s => s.scrollWidth <= s.clientWidth + 1),
      `the template select cuts ${await select.locator('option:checked').textContent()}`
    );
    // JupyterLab asks about its news once per workspace: answered, as a user would.
    const news = tab.getByRole('button', { name: 'No', exact: true });
    if (await news.isVisible()) {
      await news.click();
      await news.waitFor({ state: 'hidden' });
    }
    await tab.screenshot({
      path: path.join(screenshots, 'sidebar-verdict.png')
    });
  } finally {
    await laptop.close();
  }
});

test("the DaskHub day's pools: 40 workers of 4 cpus tile a node at 3950m, on 20 nodes", async () => {
  // tightpack advise's example, as a snapshot file the server extension serves.
  const dir = mkdtempSync(path.join(tmpdir(), 'tightpack-day-'));
  const file = path.join(dir, 'snapshot.yaml');
  const indented = name =>
    readFileSync(path.join(repoDir, 'examples', 'advise', name), 'utf8')
      .split('\n')
      .filter(l => !l.startsWith('#'))
      .map(l => `  ${l}`)
      .join('\n');
  writeFileSync(
    file,
    `cluster:\n${indented('cluster.json')}\npools:\n${indented('pools.yaml')}\n`
  );
  const day = await startLab({ TIGHTPACK_SNAPSHOT_FILE: file });
  const tab = await context.newPage();
  try {
    await tab.goto(`${day.url}/lab?reset&token=${day.token}`);
    await tab
      .locator('.jp-SideBar.jp-mod-left [data-id="tightpack-panel"]')
      .click();
    const panel = tab.locator('#tightpack-panel');
    await panel.locator('.tp-pool canvas').first().waitFor();
    for (const [field, value] of [
      ['input.tp-workers', 40],
      ['input.tp-cores', '4'],
      ['input.tp-memory', '16Gi'],
      ['textarea.tp-selector', 'cloud.google.com/gke-nodepool=dask-workers']
    ]) {
      const v = await setField(tab, field, value);
      await waitForAnswerAfter(tab, v);
    }
    await waitForAdvice(tab);
    assert.equal(
      await panel.locator('.tp-verdict .tp-tiling').textContent(),
      'A new dask-workers node takes 1 worker and leaves 49 % of its cpu idle. At 3950m cpu, 2 fit: all 40 run on 20 nodes instead of 40. Use 3950m'
    );
    const before = Number(await panel.getAttribute('data-answer-version'));
    await panel.locator('.tp-tiling button.tp-apply-shape').click();
    await waitForAnswerAfter(tab, before);
    assert.equal(await panel.locator('input.tp-cores').inputValue(), '3950m');
    assert.match(
      await panel.locator('.tp-code').textContent(),
      /"cpu": "3950m"/
    );
    assert.match(
      await panel.locator('.tp-headline').textContent(),
      /^0 of 40 workers run|^40 of 40 workers run: 0 now, 40 after cluster-autoscaler adds nodes \(dask-workers \+20,/
    );
  } finally {
    await tab.close();
    await day.stop();
  }
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
      await other.stop();
    }
  }
});
