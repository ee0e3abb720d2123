// Every scenario of the shared corpora through `tightpack-wasm` and the
// native `tightpack`: the outputs must be the same bytes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  nativeTightpack,
  repoDir,
  required,
  sharedDir,
  wasmCommand
} from './paths.js';

function run(command, args) {
  const r = spawnSync(command[0], [...command.slice(1), ...args], {
    maxBuffer: 1 << 30
  });
  if (r.error) throw r.error;
  if (r.status !== 0)
    throw new Error(
      `${command.join(' ')} ${args.join(' ')} exited ${r.status}: ${r.stderr}`
    );
  return r.stdout;
}

function lines(buffer) {
  const out = [];
  let start = 0;
  while (start < buffer.length) {
    let end = buffer.indexOf(0x0a, start);
    if (end < 0) end = buffer.length;
    out.push(buffer.subarray(start, end));
    start = end + 1;
  }
  return out;
}

// The first scenario whose answers differ, named by its corpus id, with the
// first byte where they part.
function firstDifference(corpus, native, wasm) {
  const scenarios = readFileSync(corpus, 'utf8')
    .split('\n')
    .filter(l => l.trim() !== '');
  const a = lines(native);
  const b = lines(wasm);
  for (let i = 0; i < Math.max(a.length, b.length); ++i) {
    if (a[i] && b[i] && a[i].equals(b[i])) continue;
    let at = 0;
    while (a[i] && b[i] && at < a[i].length && a[i][at] === b[i][at]) ++at;
    let id = `line ${i + 1}`;
    try {
      id = `${JSON.parse(scenarios[i]).meta?.id ?? id} (line ${i + 1})`;
    } catch {}
    const show = x =>
      x ? x.subarray(Math.max(0, at - 80), at + 80).toString() : '<missing>';
    return `${path.basename(corpus)}: scenario ${id} differs at byte ${at}\n  native: …${show(a[i])}…\n  wasm:   …${show(b[i])}…`;
  }
  return null;
}

const corpora = [
  ['replay', 'corpus/dev.jsonl'],
  ['replay', 'corpus/edge.jsonl'],
  ['autoscale', 'autoscaler/dev.jsonl']
];

describe.each(corpora)('tightpack-wasm %s --jsonl %s', (command, file) => {
  test('prints the same bytes as the native tightpack', () => {
    const corpus = required(
      path.join(sharedDir, file),
      'set TIGHTPACK_SHARED_DIR to the shared/ folder'
    );
    required(
      nativeTightpack,
      'build it with `cmake --build --preset release` or set TIGHTPACK_NATIVE'
    );
    const native = run([nativeTightpack], [command, '--jsonl', corpus]);
    const wasm = run(
      [process.execPath, wasmCommand],
      [command, '--jsonl', corpus]
    );
    expect(lines(native).length).toBeGreaterThan(100);
    const difference = native.equals(wasm)
      ? null
      : firstDifference(corpus, native, wasm);
    expect(difference).toBeNull();
  });
});

// Generated scenarios reach what the shared corpus does not: Services,
// ReplicaSets and StatefulSets with the pods they select, topology spread
// constraints and their float64 scores, a DaskHub's storage (claims,
// volumes, classes, CSI objects; tests/conformance/generate --volumes) and
// inter-pod affinity with its float64 normalisation (--affinity).
describe('tightpack-wasm replay --jsonl on 400 generated scenarios', () => {
  test('prints the same bytes as the native tightpack', () => {
    required(
      nativeTightpack,
      'build it with `cmake --build --preset release` or set TIGHTPACK_NATIVE'
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'tightpack-generated-'));
    const file = path.join(dir, 'generated.jsonl');
    run(
      ['python3'],
      [
        path.join(repoDir, 'tests', 'conformance', 'generate', 'generate.py'),
        '--seed',
        'wasm-1',
        '--count',
        '400',
        '--volumes',
        '--affinity',
        '-o',
        file
      ]
    );
    const native = run([nativeTightpack], ['replay', '--jsonl', file]);
    const wasm = run(
      [process.execPath, wasmCommand],
      ['replay', '--jsonl', file]
    );
    expect(native.toString()).toContain('"PodTopologySpread"');
    expect(native.toString()).toContain('"VolumeBinding"');
    expect(native.toString()).toContain("didn't match pod anti-affinity rules");
    const difference = native.equals(wasm)
      ? null
      : firstDifference(file, native, wasm);
    expect(difference).toBeNull();
  });
});

describe('tightpack-wasm replay', () => {
  const scenario = JSON.stringify({
    profile: 'most-allocated',
    nodes: [
      {
        metadata: { name: 'n1' },
        status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } }
      }
    ],
    incoming: [
      {
        metadata: { name: 'w' },
        spec: { containers: [{ resources: { requests: { cpu: '1' } } }] },
        replicas: 3
      }
    ]
  });

  test.each([
    ['a document on standard input', [], scenario],
    ['bad JSON', [], '{"nodes": ['],
    ['a wrong type', [], '{"nodes": 5}'],
    [
      'blank lines in JSON Lines',
      ['--jsonl'],
      `\n${scenario}\n  \r\n${scenario}\n`
    ],
    [
      'non-UTF-8 bytes',
      [],
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])
    ]
  ])('answers %s as the native command does', (_, flags, input) => {
    required(
      nativeTightpack,
      'build it with `cmake --build --preset release` or set TIGHTPACK_NATIVE'
    );
    const native = spawnSync(nativeTightpack, ['replay', ...flags], { input });
    const wasm = spawnSync(
      process.execPath,
      [wasmCommand, 'replay', ...flags],
      { input }
    );
    expect(wasm.status).toBe(native.status);
    expect(wasm.stdout.toString('latin1')).toBe(
      native.stdout.toString('latin1')
    );
  });

  test('a reader that stops early ends it as SIGPIPE ends the native command', () => {
    const corpus = required(
      path.join(sharedDir, 'corpus/edge.jsonl'),
      'set TIGHTPACK_SHARED_DIR to the shared/ folder'
    );
    const r = spawnSync('bash', [
      '-c',
      `"$0" "$1" replay --jsonl "$2" | head -c 10 >/dev/null; echo \${PIPESTATUS[0]}`,
      process.execPath,
      wasmCommand,
      corpus
    ]);
    expect(r.stderr.toString()).toBe('');
    expect(r.stdout.toString().trim()).toBe('141');
  });

  test.each([
    [['replay', '--frobnicate'], 2],
    [['replay', 'a', 'b'], 2],
    [['replay', '/nonexistent/scenario.json'], 1],
    [['replay', '--help'], 0],
    [['bogus'], 2]
  ])('%j exits %i', (args, code) => {
    const r = spawnSync(process.execPath, [wasmCommand, ...args]);
    expect(r.status).toBe(code);
    if (args[1] === '/nonexistent/scenario.json') {
      expect(r.stderr.toString()).toContain(
        'cannot read /nonexistent/scenario.json: No such file or directory'
      );
    }
  });
});
