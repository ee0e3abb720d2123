// A real JupyterLab from PyPI with the wheel installed as a user would
// (`pip install jupyterlab build/dist/jupyterlab_tightpack-*.whl` into a
// fresh virtual environment), served on loopback, and Debian's Chromium
// driven by playwright-core.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repoDir = path.resolve(
  fileURLToPath(new URL('../..', import.meta.url))
);
export const venv = path.join(repoDir, 'build', 'venv-user');
const native = path.join(repoDir, 'build', 'release', 'scheduler', 'tightpack');

function wheel() {
  const dist = path.join(repoDir, 'build', 'dist');
  const found = existsSync(dist)
    ? readdirSync(dist).filter(f => /^jupyterlab_tightpack-.*\.whl$/.test(f))
    : [];
  if (found.length !== 1)
    throw new Error(
      `expected one wheel in ${dist}: run scripts/build_labextension.sh`
    );
  return path.join(dist, found[0]);
}

// The demo's environment (scripts/demo-requirements.txt): JupyterLab, and
// what a DaskHub user has besides it; the notebook previews
// (notebook.test.mjs) build their specs with dask-kubernetes' own
// make_cluster_spec.
const USER_PACKAGES = readFileSync(
  path.join(repoDir, 'scripts', 'demo-requirements.txt'),
  'utf8'
)
  .split('\n')
  .map(l => l.trim())
  .filter(l => l && !l.startsWith('#'));

// A notebook cell defining `cluster`, a running KubeCluster of seven workers
// (it needs KubeCluster and make_cluster_spec imported), for the shrink's
// preview in notebook.test.mjs and bench.mjs. A test double for a started
// KubeCluster, which needs a Kubernetes cluster: distributed's own scheduler
// and workers in the kernel, named as the operator names the demo cluster's
// dask-3f2a workers (three of them, on node 4jwp, hold data); the KubeCluster
// is dask-kubernetes' own, given what its start sets.
export const RUNNING_CLUSTER_CELL = [
  'import logging, warnings',
  'from distributed import Client, Scheduler, Worker',
  'from distributed.core import Status, rpc',
  'logging.getLogger("distributed").setLevel(logging.ERROR)',
  'warnings.filterwarnings("ignore", message="coroutine .* was never awaited")',
  'ids = ["840480f551", "f8f59a094f", "42bbda3d7a", "776cf48fcb", "fff6133d49",',
  '       "9e265445d9", "bf038211f2"]',
  'scheduler = await Scheduler(port=0, dashboard_address=":0")',
  'workers = [await Worker(scheduler.address, nthreads=1,',
  '                        name=f"dask-3f2a-default-worker-{i}") for i in ids]',
  'client = await Client(scheduler.address, asynchronous=True)',
  'held = [await client.scatter([i], workers=[w.address]) for i, w in zip(ids[:3], workers)]',
  '# (a spec of its own: the Dask config here names a custom spec, which KubeCluster prefers)',
  'cluster = KubeCluster(custom_cluster_spec=make_cluster_spec(name="dask-3f2a"),',
  '                      namespace="daskhub", asynchronous=True)',
  'KubeCluster._instances.discard(cluster)',
  'cluster.scheduler_comm = rpc(scheduler.address)',
  'cluster.scheduler_info = scheduler.identity()',
  'cluster.status = Status.running'
];

/**
 * A fresh environment with JupyterLab from PyPI and the wheel, as a user
 * makes one; with `reuse`, an existing one with the same packages gets the
 * current wheel only (scripts/test.sh removes the stamp before the UI
 * tests, so that each run makes one afresh, once).
 */
export function installAsAUser({ reuse = false } = {}) {
  const whl = wheel();
  const pip = path.join(venv, 'bin', 'pip');
  const stamp = path.join(venv, '.tightpack-user-packages');
  const wanted = USER_PACKAGES.join('\n');
  if (reuse && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) {
    execFileSync(
      pip,
      ['install', '--quiet', '--force-reinstall', '--no-deps', whl],
      { stdio: 'inherit' }
    );
    return;
  }
  execFileSync('python3', ['-m', 'venv', '--clear', venv], {
    stdio: 'inherit'
  });
  execFileSync(pip, ['install', '--quiet', ...USER_PACKAGES, whl], {
    stdio: 'inherit'
  });
  writeFileSync(stamp, wanted);
}

/** What `jupyter ARGS` prints, standard output and error together (the list commands use both). */
export function jupyter(...args) {
  const r = spawnSync(path.join(venv, 'bin', 'jupyter'), args, {
    encoding: 'utf8'
  });
  if (r.status !== 0)
    throw new Error(
      `jupyter ${args.join(' ')} exited ${r.status}: ${r.stderr}`
    );
  return (r.stdout + r.stderr).replace(/\x1b\[[0-9;]*m/g, '');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Starts `jupyter lab` on loopback; `env` adds to the environment (TIGHTPACK_DEMO_NODES, …). */
export async function startLab(env = {}) {
  const port = await freePort();
  const token = 'tightpack-ui-test';
  const home = mkdtempSync(path.join(tmpdir(), 'tightpack-lab-'));
  writeFileSync(path.join(home, 'README.md'), '# a notebook user\n');
  const child = spawn(
    path.join(venv, 'bin', 'jupyter'),
    [
      'lab',
      '--no-browser',
      '--ip=127.0.0.1',
      `--port=${port}`,
      `--IdentityProvider.token=${token}`,
      `--ServerApp.root_dir=${home}`,
      '--ServerApp.open_browser=False',
      // CI machines of this project run as root.
      ...(process.getuid?.() === 0 ? ['--allow-root'] : [])
    ],
    {
      env: {
        ...process.env,
        HOME: home,
        JUPYTER_CONFIG_DIR: path.join(home, '.jupyter'),
        JUPYTERLAB_SETTINGS_DIR: path.join(home, 'settings'),
        JUPYTERLAB_WORKSPACES_DIR: path.join(home, 'workspaces'),
        // The Dask configuration of a DaskHub user: KubeCluster workers that tolerate the worker pool.
        DASK_CONFIG: path.join(repoDir, 'examples', 'daskhub-gke', 'dask'),
        TIGHTPACK_SNAPSHOT_URL: '',
        TIGHTPACK_SNAPSHOT_FILE: '',
        KUBERNETES_SERVICE_HOST: '',
        ...env
      },
      stdio: ['ignore', 'pipe', 'pipe']
    }
  );
  let log = '';
  child.stdout.on('data', d => (log += d));
  child.stderr.on('data', d => (log += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; ++i) {
    if (child.exitCode !== null)
      throw new Error(`jupyter lab exited ${child.exitCode}:\n${log}`);
    try {
      const r = await fetch(`${url}/api/status?token=${token}`);
      if (r.ok)
        return {
          url,
          token,
          home,
          log: () => log,
          stop: () => stopLab(child)
        };
    } catch {}
    await new Promise(r => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`jupyter lab did not start in 60 s:\n${log}`);
}

/**
 * Stops a jupyter lab: SIGTERM, then SIGKILL if it has not exited within
 * 10 s. jupyter_server's AnyIO worker threads are not daemon threads, and a
 * server whose event loop stops while one is idle waits for it forever at
 * exit (jupyterlab/jupyterlab#10442; one CI run, 2026-12-07): a test run must
 * not wait with it.
 */
function stopLab(child) {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve();
  return new Promise(resolve => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Until a kernel of `lab` is idle with a client connected, as the server
 * sees it: a notebook's status bar says idle before its cells can run.
 */
export async function kernelIdle(lab) {
  // The list once came back as something other than a list while a kernel
  // started (one CI run, 2026-12-05): poll again; if it never succeeds, the
  // error carries the last answer and the server's log.
  let last = '';
  for (let i = 0; i < 600; ++i) {
    const r = await fetch(`${lab.url}/api/kernels`, {
      headers: { Authorization: `token ${lab.token}` }
    });
    const kernels = await r.json().catch(() => null);
    if (!Array.isArray(kernels)) {
      last = `; GET /api/kernels last answered ${r.status}: ${JSON.stringify(kernels)}`;
    } else if (
      kernels.some(k => k.execution_state === 'idle' && k.connections > 0)
    ) {
      return;
    }
    await new Promise(r => setTimeout(r, 200));
  }
  throw new Error(
    `no kernel of the lab became idle in 120 s${last}\n${lab.log?.().slice(-4000) ?? ''}`
  );
}

/** Chromium; `viewport` is a laptop's screen for what users see (1440×900). */
export async function launchChromium(viewport = { width: 1280, height: 1500 }) {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'tightpack-chromium-'));
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync'
    ]
  });
}

/** Opens JupyterLab and the tightpack sidebar; resolves when the cluster is drawn. */
export async function openSidebar(context, lab) {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${lab.url}/lab?token=${lab.token}`);
  const tab = page.locator(
    '.jp-SideBar.jp-mod-left [data-id="tightpack-panel"]'
  );
  await tab.waitFor({ timeout: 60000 });
  await tab.click();
  await page
    .locator('#tightpack-panel .tp-pool canvas')
    .first()
    .waitFor({ timeout: 30000 });
  return page;
}

/** Widens the left sidebar to `width` pixels by dragging its handle, as a user would. */
export async function widenSidebar(page, width) {
  const handle = page
    .locator('#jp-main-split-panel > .lm-SplitPanel-handle')
    .first();
  const box = await handle.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(width, box.y + 200, { steps: 5 });
  await page.mouse.up();
}

/** Sets a field of the panel and waits for the answer it causes. */
export async function setField(page, selector, value) {
  const panel = page.locator('#tightpack-panel');
  const before = Number((await panel.getAttribute('data-answer-version')) ?? 0);
  await panel.locator(selector).fill(String(value));
  return before;
}

export async function waitForAnswerAfter(page, version) {
  await page.waitForFunction(
    v =>
      Number(
        document.querySelector('#tightpack-panel')?.dataset.answerVersion ?? 0
      ) > v,
    version
  );
}

/** Waits for the advice of the panel's latest answer (asked after it is drawn). */
export async function waitForAdvice(page) {
  await page.waitForFunction(() => {
    const panel = document.querySelector('#tightpack-panel');
    return (
      panel?.dataset.adviceVersion !== undefined &&
      panel.dataset.adviceVersion === panel.dataset.answerVersion
    );
  });
}

/** The figures per pool an answer drawn under `scope` (a CSS selector) shows. */
export function poolFigures(page, scope) {
  return page.$$eval(`${scope} .tp-pool`, boxes =>
    Object.fromEntries(
      boxes.map(b => [
        b.dataset.pool,
        {
          workers: Number(b.dataset.workers),
          adds: Number(b.dataset.adds),
          addedWorkers: Number(b.dataset.addedWorkers)
        }
      ])
    )
  );
}

/**
 * The native `tightpack COMMAND ... --output json` on the cluster and pools
 * the panel loaded (the server extension's envelope). `extra(dir)` gives the
 * command's own arguments; files it names are written to `dir` by `files`.
 * An exit status not in `ok` fails the test.
 */
async function nativeOnSnapshot(lab, command, extra, files = {}, ok = [0]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tightpack-ui-'));
  const envelope = await (
    await fetch(`${lab.url}/tightpack/snapshot?token=${lab.token}`)
  ).json();
  writeFileSync(
    path.join(dir, 'cluster.json'),
    JSON.stringify(envelope.cluster)
  );
  writeFileSync(path.join(dir, 'pools.json'), JSON.stringify(envelope.pools));
  for (const [name, text] of Object.entries(files))
    writeFileSync(path.join(dir, name), text);
  const r = spawnSync(
    native,
    [
      command,
      '--cluster',
      path.join(dir, 'cluster.json'),
      '--pools',
      path.join(dir, 'pools.json'),
      ...extra(dir),
      '--output',
      'json'
    ],
    { encoding: 'utf8' }
  );
  assert.ok(
    ok.includes(r.status),
    `tightpack ${command} exited ${r.status}: ${r.stderr}`
  );
  return JSON.parse(r.stdout);
}

/**
 * `tightpack forecast` on the cluster and pools the panel loaded, with
 * `args` (--remove-deployments …).
 */
export function forecastPredicted(lab, args) {
  return nativeOnSnapshot(lab, 'forecast', () => args);
}

/**
 * The same figures from the native `tightpack predict` on the pod the panel scheduled and
 * the cluster and pools it loaded (the server extension's envelope: the demo cluster with
 * the user's claim and volume from /home, and the StorageClass), admitted as a GKE API
 * server would (the demo is GKE: the panel asks the same).
 */
export function poolsPredicted(lab, pod, workers, profile) {
  return nativeOnSnapshot(
    lab,
    'predict',
    dir => [
      '--pod',
      path.join(dir, 'pod.json'),
      '--replicas',
      String(workers),
      '--scheduler-name',
      profile,
      '--extended-resource-toleration'
    ],
    { 'pod.json': pod },
    // 0: every worker runs, 3: some never do; both print the answer.
    [0, 3]
  );
}

/** Asserts that the pools `shown` have the figures `tightpack predict` gave. */
export function comparePools(shown, predicted) {
  for (const [name, pool] of Object.entries(shown)) {
    const now = predicted.nodes
      .filter(n => n.pool === name)
      .reduce((s, n) => s + n.replicas, 0);
    const grown = (predicted.scaleUp?.pools ?? []).filter(g => g.pool === name);
    assert.equal(pool.workers, now, `${name}: workers placed now`);
    assert.equal(
      pool.adds,
      grown.reduce((s, g) => s + g.nodesAdded, 0),
      `${name}: nodes added`
    );
    assert.equal(
      pool.addedWorkers,
      grown.reduce((s, g) => s + g.replicas.length, 0),
      `${name}: workers on new nodes`
    );
  }
  for (const g of predicted.scaleUp?.pools ?? [])
    assert.ok(g.pool in shown, `pool ${g.pool} shown`);
}
