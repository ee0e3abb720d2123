#!/usr/bin/env node
// The hub's spawn page in Chromium, as a user sees it: logs in through the real
// JupyterHub's form (DummyAuthenticator), opens /hub/spawn, waits for
// tightpack's answers beside the profiles, and prints what is drawn as JSON
// (each badge's kind, text and whether it is visible in the window); with a
// path, a 1440×900 screenshot of the page (test_spawn_page.py writes
// build/screenshots/spawn-page.png; TIGHTPACK_SCREENSHOTS=docs updates the
// one docs/deploy.md shows).
//   node tests/scheduler/spawn_page.mjs HUB_URL USER [SCREENSHOT]
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(
  path.join(path.dirname(new URL(import.meta.url).pathname), '../../package.json')
);
const { chromium } = require('playwright-core');

const [hub, user, screenshot] = process.argv.slice(2);
const context = await chromium.launchPersistentContext(
  mkdtempSync(path.join(tmpdir(), 'tightpack-spawn-page-')),
  {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking']
  }
);
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${hub}/hub/login?next=%2Fhub%2Fspawn`);
  await page.fill('input[name="username"]', user);
  await page.fill('input[name="password"]', 'any');
  await Promise.all([page.waitForURL(/\/hub\/spawn/), page.click('#login_submit')]);
  await page.locator('.tightpack-outlook').first().waitFor({ timeout: 30000 });
  const badges = await page.locator('.tightpack-outlook').evaluateAll(els =>
    els.map(el => {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return {
        kind: [...el.classList].find(c => c.startsWith('tightpack-outlook-'))?.slice(18),
        text: el.textContent,
        inWindow: box.top >= 0 && box.bottom <= innerHeight && box.width > 0,
        background: style.backgroundColor
      };
    })
  );
  const choices = await page
    .locator('select option')
    .evaluateAll(els => els.map(el => el.textContent.trim()));
  if (screenshot) await page.screenshot({ path: screenshot });
  console.log(JSON.stringify({ badges, choices }));
} finally {
  await context.close();
}
