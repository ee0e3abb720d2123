#!/usr/bin/env node
// The what-if benchmark of the WebAssembly build, on the inputs that
// build/release/bench/tightpack_what_if_inputs writes (the native benchmark,
// BM_WhatIfLoad and BM_WhatIfPlace, measures the same bytes):
//   node wasm/bench/what_if.js DIR [RUNS]
// Prints the median and range of RUNS timed runs after warm-up runs.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { loadEngine, wasmUrl } from '../lib/node.js';

const dir = process.argv[2];
const runs = Number(process.argv[3] ?? 9);
if (!dir) {
  process.stderr.write('usage: node wasm/bench/what_if.js DIR [RUNS]\n');
  process.exit(2);
}

// `after` runs untimed after each run: freeing a cluster is not loading one.
function time(fn, warmups, count, after = () => {}) {
  for (let i = 0; i < warmups; ++i) {
    fn();
    after();
  }
  const samples = [];
  for (let i = 0; i < count; ++i) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
    after();
  }
  samples.sort((a, b) => a - b);
  return {
    median: samples[Math.floor(samples.length / 2)],
    min: samples[0],
    max: samples[samples.length - 1]
  };
}

const ms = t =>
  `${t.median.toFixed(2)} ms (${t.min.toFixed(2)}–${t.max.toFixed(2)})`;

const glue = readFileSync(new URL('../dist/tightpack.mjs', import.meta.url));
const wasm = readFileSync(wasmUrl);
const kb = n => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `size: tightpack.wasm ${kb(wasm.length)} (gzip -9 ${kb(gzipSync(wasm, { level: 9 }).length)}), ` +
    `tightpack.mjs ${kb(glue.length)} (gzip -9 ${kb(gzipSync(glue, { level: 9 }).length)}), ` +
    `together gzip -9 ${kb(gzipSync(wasm, { level: 9 }).length + gzipSync(glue, { level: 9 }).length)}`
);

const startup = performance.now();
const engine = await loadEngine({ wasmBinary: wasm });
console.log(
  `module instantiation: ${(performance.now() - startup).toFixed(1)} ms`
);

for (const nodes of [1000, 5000]) {
  const snapshot = readFileSync(path.join(dir, `snapshot-${nodes}.json`));
  let loaded;
  const t = time(
    () => {
      const r = engine.loadCluster(snapshot);
      if (!r.ok) throw new Error(r.error);
      loaded = r.value;
    },
    2,
    runs,
    () => loaded.dispose()
  );
  loaded = engine.loadCluster(snapshot).value;
  console.log(
    `load ${nodes} nodes, ${loaded.loaded.pods} pods (${(snapshot.length / 1e6).toFixed(1)} MB): ${ms(t)}`
  );
  if (nodes === 1000) {
    for (const profile of ['default', 'tightpack']) {
      const request = readFileSync(path.join(dir, `place-200-${profile}.json`));
      const check = loaded.place(request);
      if (!check.ok || check.value.placed !== 200)
        throw new Error(JSON.stringify(check).slice(0, 300));
      const p = time(() => loaded.place(request), 20, runs * 20);
      console.log(`place 200 replicas on ${nodes} nodes, ${profile}: ${ms(p)}`);
    }
  }
  loaded.dispose();
}
console.log(`memory after: ${(engine.memoryBytes() / 2 ** 20).toFixed(0)} MiB`);
