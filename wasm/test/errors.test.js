// Bad input gives an error value naming the field and value; the module stays
// usable after it; repeated calls do not leak.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadEngine } from '@tightpack/wasm';
import { repoDir } from './paths.js';
import { daskWorker } from './fixtures.js';

const demo = readFileSync(
  path.join(repoDir, 'examples', 'daskhub-demo', 'cluster.json')
);
const worker = { ...daskWorker(20), profile: 'tightpack' };

let engine;
beforeAll(async () => {
  engine = await loadEngine();
});

function expectError(result, ...fragments) {
  expect(result.ok).toBe(false);
  for (const f of fragments) expect(result.error).toContain(f);
}

function expectUsable() {
  const c = engine.loadCluster(demo);
  expect(c.ok).toBe(true);
  const p = c.value.place(worker);
  expect(p.ok).toBe(true);
  expect(p.value.placed).toBeGreaterThan(0);
  c.value.dispose();
}

test('invalid JSON names the document, line and column', () => {
  expectError(
    engine.loadCluster('{"items": [}'),
    'snapshot: invalid JSON at line 1 column'
  );
  expectError(engine.loadCluster(demo, { pools: '{' }), 'pools: invalid JSON');
  expectError(
    engine.loadCluster(demo, { schedulerConfig: 'profiles:\n- x' }),
    'schedulerConfig: invalid JSON'
  );
  expectUsable();
});

test('wrong types name the path and what was expected', () => {
  expectError(
    engine.loadCluster({ kind: 'List', items: 5 }),
    'snapshot: $.items',
    'expected an array'
  );
  expectError(
    engine.loadCluster(42),
    'snapshot: expected a JSON string, UTF-8 bytes or an object, got number'
  );
  const badCpu = {
    kind: 'NodeList',
    items: [
      {
        metadata: { name: 'n1' },
        status: { allocatable: { cpu: 'lots', memory: '1Gi' } }
      }
    ]
  };
  expectError(
    engine.loadCluster(badCpu),
    '$.items[0].status.allocatable.cpu',
    '"lots"'
  );
  const c = engine.loadCluster(demo).value;
  expectError(
    c.place({ ...worker, replicas: 0 }),
    'replicas',
    '0 is not a whole number from 1 to 1000000'
  );
  expectError(
    c.place({ ...worker, replicas: 'ten' }),
    'replicas',
    'expected an integer'
  );
  expectError(
    c.place({ ...worker, colour: 'blue' }),
    '$.colour',
    'unknown field'
  );
  expectError(c.place({ replicas: 1 }), '$.pod', 'is required');
  expectError(
    c.place({ ...worker, profile: 'spread-everything' }),
    'no profile "spread-everything"'
  );
  expectError(
    c.place({ ...worker, release: 'v1.26' }),
    'release',
    'unknown kube-scheduler release "v1.26" (v1.37, v1.36, v1.35, v1.30)'
  );
  expectError(
    c.place({ ...worker, release: 130 }),
    'release',
    'expected a string'
  );
  expectError(
    c.explain({
      pod: {
        spec: { containers: [{ resources: { requests: { memory: '4 GiB' } } }] }
      }
    }),
    'memory',
    '"4 GiB"'
  );
  expectError(c.place(undefined), 'request: expected a JSON string');
  c.dispose();
  expectError(c.place(worker), 'disposed');
  expectUsable();
});

test('a snapshot with no nodes is an error', () => {
  expectError(
    engine.loadCluster({ apiVersion: 'v1', kind: 'List', items: [] }),
    'has no nodes'
  );
  expectError(engine.loadCluster({ nodes: [], pods: [] }), 'has no nodes');
  expectUsable();
});

test('50 MB of garbage is an error, not a crash', () => {
  const garbage = new Uint8Array(50 * 1024 * 1024);
  let x = 12345;
  for (let i = 0; i < garbage.length; ++i) {
    x = (x * 1103515245 + 12345) >>> 0;
    garbage[i] = x >>> 24;
  }
  expectError(engine.loadCluster(garbage), 'snapshot: invalid JSON');
  expect(JSON.parse(engine.replay(garbage)).error).toContain('invalid JSON');
  // Valid JSON, 50 MB of it in one string where a List belongs.
  const huge = `{"kind": "List", "items": "${'x'.repeat(50 * 1024 * 1024)}"}`;
  const r = engine.loadCluster(huge);
  expectError(r, '$.items', 'expected an array');
  expect(r.error.length).toBeLessThan(1000);
  // 50 MB of nesting.
  expectError(
    engine.loadCluster('['.repeat(50 * 1024 * 1024)),
    'snapshot: invalid JSON'
  );
  expectUsable();
});

test('10,000 calls leave the heap as they found it', async () => {
  // A fresh module: the 50 MB inputs above grew the other one's memory.
  engine = await loadEngine();
  const start = engine.memoryBytes();
  const cluster = engine.loadCluster(demo).value;
  const round = i => {
    switch (i % 5) {
      case 0: {
        const c = engine.loadCluster(demo);
        c.value.place(worker);
        c.value.dispose();
        break;
      }
      case 1:
        cluster.place({ ...worker, replicas: 1 + (i % 50) });
        break;
      case 2:
        cluster.explain({ pod: worker.pod, profile: 'most-allocated' });
        break;
      case 3:
        engine.loadCluster(
          '{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": 7}}]}'
        );
        break;
      default:
        engine.replay('{"nodes": [');
        cluster.place({ ...worker, replicas: -1 });
    }
  };
  for (let i = 0; i < 200; ++i) round(i); // warm: caches and the allocator's free lists
  const memory = engine.memoryBytes();
  const inUse = engine.heapBytesInUse();
  for (let i = 0; i < 10000; ++i) round(i);
  const grownMemory = engine.memoryBytes() - memory;
  const grownInUse = engine.heapBytesInUse() - inUse;
  console.log(
    `fresh module: ${start} bytes of memory; 10,000 calls: memory ${memory} -> ${engine.memoryBytes()} bytes (+${grownMemory}), ` +
      `heap in use ${inUse} -> ${engine.heapBytesInUse()} bytes (${grownInUse >= 0 ? '+' : ''}${grownInUse})`
  );
  expect(grownMemory).toBe(0);
  expect(engine.memoryBytes()).toBeLessThanOrEqual(32 * 1024 * 1024);
  expect(grownInUse).toBeLessThanOrEqual(4096);
  cluster.dispose();
});

// The native engine's answers for the same texts (core's what_if_test reads
// this file too): the sidebar's form asks these of the engine.
test('quantities are read as the API server reads them, as natively', () => {
  const cases = JSON.parse(
    readFileSync(
      path.join(repoDir, 'core', 'tests', 'data', 'quantity_answers.json'),
      'utf8'
    )
  );
  expect(cases.length).toBeGreaterThan(10);
  for (const [text, expected] of cases) {
    const got = engine.quantity(text);
    expect(got).toEqual(
      expected.error === undefined
        ? { ok: true, value: expected }
        : { ok: false, error: expected.error }
    );
  }
  expectError(engine.quantity(8), 'quantity: expected a string, got number');
  expectUsable();
});
