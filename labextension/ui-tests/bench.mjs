#!/usr/bin/env node
// The sidebar's speed in Chromium on the demo cluster scaled to 1,000 nodes
// (TIGHTPACK_DEMO_NODES=1000), recorded in bench/RESULTS.md:
//   scripts/bench_sidebar.sh            (builds the wheel, then runs this)
// 1. first open: from the click on the sidebar's tab to the drawn cluster
//    (the snapshot fetched, the WebAssembly module compiled, the cluster
//    loaded, the first answer drawn), on a fresh page each time;
// 2. a change of the worker count to the redrawn answer: the input event,
//    the engine's answer, the DOM and canvases, and the next painted frame;
//    then to the engine's advice (its fixes, each decided again) drawn;
// 3. a notebook cell `preview(spec, 20)` executed to its painted preview:
//    cold (a fresh page: the engine compiled, the snapshot fetched and
//    loaded, the pod made by the server), and once the engine is loaded;
// 4. the same for `await preview(cluster, 3)` of a running cluster of seven
//    workers: the kernel asks its scheduler which go, the engine forecasts
//    scale-down without them (no pod is made).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  RUNNING_CLUSTER_CELL,
  installAsAUser,
  kernelIdle,
  launchChromium,
  startLab,
  widenSidebar
} from './jupyterlab.mjs';

const runs = Number(process.argv[2] ?? 5);
const changes = Number(process.argv[3] ?? 40);

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = p => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, range ${s[0].toFixed(1)}–${s[s.length - 1].toFixed(1)} ms (${s.length} samples)`;
}

installAsAUser({ reuse: true });
const lab = await startLab({ TIGHTPACK_DEMO_NODES: '1000' });
const context = await launchChromium();
const page = context.pages()[0] ?? (await context.newPage());
const opens = [];
const inPanel = [];
const previewCold = [];
const previewWarm = [];
const shrinkCold = [];
const shrinkWarm = [];

// A DaskHub user's notebook: the imports, then the preview being timed.
writeFileSync(
  path.join(lab.home, 'bench.ipynb'),
  JSON.stringify({
    cells: [
      [
        'from dask_kubernetes.operator import KubeCluster, make_cluster_spec\n',
        'from jupyterlab_tightpack import preview\n',
        'spec = make_cluster_spec(name="bench", resources={"requests": {"cpu": "1", "memory": "4Gi"}})'
      ],
      ['preview(spec, 20)'],
      RUNNING_CLUSTER_CELL.map((l, k, all) =>
        k < all.length - 1 ? `${l}\n` : l
      ),
      ['await preview(cluster, 3)']
    ].map((source, i) => ({
      id: `bench-${i}`,
      cell_type: 'code',
      execution_count: null,
      metadata: {},
      outputs: [],
      source
    })),
    metadata: {
      kernelspec: {
        display_name: 'Python 3',
        language: 'python',
        name: 'python3'
      }
    },
    nbformat: 4,
    nbformat_minor: 5
  })
);

// The cells that draw a preview; the others only run.
const PREVIEW_CELLS = [1, 3];

/** Runs cell `i` (Ctrl+Enter) and, for a preview cell, returns ms to its painted output. */
async function runCell(i) {
  await page
    .locator('.jp-Notebook .jp-Cell')
    .nth(i)
    .locator('.jp-InputArea-prompt')
    .click();
  await page.evaluate(() =>
    document.querySelectorAll('.tp-Preview').forEach(p => (p.dataset.old = '1'))
  );
  const start = await page.evaluate(() => performance.now());
  await page.keyboard.press('Control+Enter');
  if (!PREVIEW_CELLS.includes(i)) {
    await page.waitForFunction(
      k =>
        /\[\d+\]/.test(
          document.querySelectorAll('.jp-InputPrompt')[k]?.textContent ?? ''
        ),
      i,
      { timeout: 120000 }
    );
    return 0;
  }
  await page.waitForFunction(
    () =>
      document.querySelector('.tp-Preview:not([data-old])')?.dataset.state ===
      'drawn',
    null,
    { timeout: 30000 }
  );
  const drawn = await page.evaluate(
    () => new Promise(r => requestAnimationFrame(() => r(performance.now())))
  );
  return drawn - start;
}

try {
  for (let i = 0; i < runs; ++i) {
    // ?reset: the workspace must not reopen the panel by itself.
    await page.goto(`${lab.url}/lab?reset&token=${lab.token}`);
    const tab = page.locator(
      '.jp-SideBar.jp-mod-left [data-id="tightpack-panel"]'
    );
    await tab.waitFor({ timeout: 60000 });
    await page.waitForTimeout(500); // JupyterLab settles
    const start = await page.evaluate(() => performance.now());
    await tab.click();
    await page.waitForFunction(
      () =>
        document.querySelector('#tightpack-panel')?.dataset.firstDrawMs !==
        undefined,
      null,
      { timeout: 30000 }
    );
    const drawn = await page.evaluate(
      () => new Promise(r => requestAnimationFrame(() => r(performance.now())))
    );
    opens.push(drawn - start);
    inPanel.push(
      Number(
        await page
          .locator('#tightpack-panel')
          .getAttribute('data-first-draw-ms')
      )
    );
  }
  const nodes = await page.locator('#tightpack-panel .tp-source').textContent();
  await widenSidebar(page, 460);
  const redraws = await page.evaluate(async count => {
    const panel = document.querySelector('#tightpack-panel');
    const input = panel.querySelector('input.tp-workers');
    const frame = () => new Promise(r => requestAnimationFrame(() => r()));
    const out = { total: [], answer: [], advised: [], advice: [] };
    for (let i = 0; i < count; ++i) {
      await frame();
      const start = performance.now();
      input.value = String(20 + (i % 2 ? i : 2 * i));
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await frame(); // the frame that paints the new answer
      out.total.push(performance.now() - start);
      out.answer.push(Number(panel.dataset.answerMs));
      // The engine's advice follows the painted answer (asked in a task after it).
      while (panel.dataset.adviceVersion !== panel.dataset.answerVersion)
        await frame();
      out.advised.push(performance.now() - start);
      out.advice.push(Number(panel.dataset.adviceMs));
    }
    return out;
  }, changes);
  // A fresh page for each cold sample: the placement's, then the shrink's.
  for (const [cell, cold, warm] of [
    [1, previewCold, previewWarm],
    [3, shrinkCold, shrinkWarm]
  ]) {
    for (let i = 0; i < runs; ++i) {
      await page.goto(
        `${lab.url}/lab/tree/bench.ipynb?reset&token=${lab.token}`
      );
      await page
        .locator('.jp-Notebook .jp-Cell')
        .first()
        .waitFor({ timeout: 60000 });
      await kernelIdle(lab);
      await page.waitForTimeout(500); // JupyterLab settles
      await runCell(0);
      if (cell === 3) await runCell(2);
      cold.push(await runCell(cell));
      for (let k = 0; k < Math.ceil(changes / runs); ++k)
        warm.push(await runCell(cell));
    }
  }
  const previewNodes = await page
    .locator('.tp-Preview .tp-source')
    .first()
    .textContent();

  console.log(`cluster: ${nodes}`);
  console.log(
    `first open of the sidebar to a drawn cluster (click to painted frame): ${stats(opens)}`
  );
  console.log(
    `  of which the panel, from first shown to drawn: ${stats(inPanel)}`
  );
  console.log(
    `worker count changed to redrawn answer (input event to painted frame): ${stats(redraws.total)}`
  );
  console.log(`  of which engine + DOM + canvases: ${stats(redraws.answer)}`);
  console.log(
    `  then the engine's advice drawn (input event to painted frame): ${stats(redraws.advised)}`
  );
  console.log(`  of which advise() and its DOM: ${stats(redraws.advice)}`);
  console.log(`notebook preview: ${previewNodes}`);
  console.log(
    `preview(spec, 20) executed to its painted output, engine not yet loaded: ${stats(previewCold)}`
  );
  console.log(
    `preview(spec, 20) executed to its painted output, engine loaded: ${stats(previewWarm)}`
  );
  console.log(
    `await preview(cluster, 3) of 7 running, executed to its painted forecast, engine not yet loaded: ${stats(shrinkCold)}`
  );
  console.log(
    `await preview(cluster, 3) of 7 running, executed to its painted forecast, engine loaded: ${stats(shrinkWarm)}`
  );
} finally {
  await context.close();
  await lab.stop();
}
