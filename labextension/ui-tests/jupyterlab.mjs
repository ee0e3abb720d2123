// A real JupyterLab from PyPI with the wheel installed as a user would
// (`pip install jupyterlab build/dist/jupyterlab_tightpack-*.whl` into a
// fresh virtual environment), served on loopback, and Debian's Chromium
// driven by playwright-core.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repoDir = path.resolve(
  fileURLToPath(new URL('../..', import.meta.url))
);
export const venv = path.join(repoDir, 'build', 'venv-user');

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

/**
 * A fresh environment with JupyterLab from PyPI and the wheel, as a user
 * makes one; with `reuse`, an existing one gets the current wheel only.
 */
export function installAsAUser({ reuse = false } = {}) {
  const whl = wheel();
  const pip = path.join(venv, 'bin', 'pip');
  if (reuse && existsSync(pip)) {
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
  execFileSync(pip, ['install', '--quiet', 'jupyterlab>=4.2,<5', whl], {
    stdio: 'inherit'
  });
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
          stop: () => child.kill('SIGTERM')
        };
    } catch {}
    await new Promise(r => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`jupyter lab did not start in 60 s:\n${log}`);
}

export async function launchChromium() {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'tightpack-chromium-'));
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 1500 },
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
