// Keeps index.d.ts honest: a client type-checks against it, the runtime
// classes have exactly the declared members, and every answer the engine
// gives has exactly the declared properties, recursively.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import * as wasm from '@tightpack/wasm';
import { packageDir, repoDir } from './paths.js';
import { daskWorker } from './fixtures.js';

const declarationFile = path.join(packageDir, 'index.d.ts');
const source = ts.createSourceFile(
  declarationFile,
  readFileSync(declarationFile, 'utf8'),
  ts.ScriptTarget.Latest
);

// name -> {kind, members: Map(name -> {optional, type})} for interfaces and classes.
const declared = new Map();
const aliases = new Map();
for (const statement of source.statements) {
  if (
    ts.isInterfaceDeclaration(statement) ||
    ts.isClassDeclaration(statement)
  ) {
    const members = new Map();
    for (const m of statement.members) {
      if (!m.name || ts.isConstructorDeclaration(m)) continue;
      if (m.modifiers?.some(x => x.kind === ts.SyntaxKind.PrivateKeyword))
        continue;
      members.set(m.name.getText(source), {
        optional: !!m.questionToken,
        type: m.type,
        method: ts.isMethodSignature(m) || ts.isMethodDeclaration(m)
      });
    }
    for (const h of statement.heritageClauses ?? []) {
      for (const t of h.types) {
        for (const [k, v] of declared.get(t.expression.getText(source)).members)
          members.set(k, v);
      }
    }
    declared.set(statement.name.text, { members });
  } else if (ts.isTypeAliasDeclaration(statement)) {
    aliases.set(statement.name.text, statement.type);
  }
}

// Checks a JSON value against a type node; returns the first mismatch.
function check(value, type, where) {
  if (!type) return null;
  if (ts.isParenthesizedTypeNode(type)) return check(value, type.type, where);
  if (ts.isUnionTypeNode(type)) {
    const errors = type.types.map(t => check(value, t, where));
    return errors.includes(null) ? null : errors[0];
  }
  if (ts.isLiteralTypeNode(type)) {
    if (type.literal.kind === ts.SyntaxKind.NullKeyword)
      return value === null ? null : `${where}: expected null`;
    const literal = JSON.parse(
      type.literal.getText(source).replace(/^'|'$/g, '"')
    );
    return value === literal
      ? null
      : `${where}: expected ${JSON.stringify(literal)}, got ${JSON.stringify(value)}`;
  }
  switch (type.kind) {
    case ts.SyntaxKind.StringKeyword:
      return typeof value === 'string'
        ? null
        : `${where}: expected a string, got ${JSON.stringify(value)}`;
    case ts.SyntaxKind.NumberKeyword:
      return typeof value === 'number'
        ? null
        : `${where}: expected a number, got ${JSON.stringify(value)}`;
    case ts.SyntaxKind.BooleanKeyword:
      return typeof value === 'boolean'
        ? null
        : `${where}: expected a boolean, got ${JSON.stringify(value)}`;
    case ts.SyntaxKind.ObjectKeyword:
      return value !== null && typeof value === 'object'
        ? null
        : `${where}: expected an object`;
  }
  if (ts.isArrayTypeNode(type)) {
    if (!Array.isArray(value)) return `${where}: expected an array`;
    for (let i = 0; i < value.length; ++i) {
      const e = check(value[i], type.elementType, `${where}[${i}]`);
      if (e) return e;
    }
    return null;
  }
  if (ts.isIntersectionTypeNode(type)) {
    for (const t of type.types) {
      const e = check(value, t, where);
      if (e) return e;
    }
    return null;
  }
  if (ts.isTypeLiteralNode(type)) {
    return checkMembers(
      value,
      new Map(
        type.members.map(m => [
          m.name.getText(source),
          { optional: !!m.questionToken, type: m.type }
        ])
      ),
      where,
      true
    );
  }
  if (ts.isTypeReferenceNode(type)) {
    const name = type.typeName.getText(source);
    if (name === 'Record') {
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        return `${where}: expected an object`;
      for (const [k, v] of Object.entries(value)) {
        const e = check(v, type.typeArguments[1], `${where}.${k}`);
        if (e) return e;
      }
      return null;
    }
    if (aliases.has(name)) return check(value, aliases.get(name), where);
    if (declared.has(name))
      return checkMembers(value, declared.get(name).members, where, false);
  }
  throw new Error(
    `types.test.js cannot check ${type.getText(source)} at ${where}`
  );
}

function checkMembers(value, members, where, open) {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return `${where}: expected an object`;
  for (const [name, m] of members) {
    if (!(name in value)) {
      if (!m.optional) return `${where}.${name}: declared but missing`;
      continue;
    }
    const e = check(value[name], m.type, `${where}.${name}`);
    if (e) return e;
  }
  if (!open) {
    for (const k of Object.keys(value))
      if (!members.has(k)) return `${where}.${k}: present but not declared`;
  }
  return null;
}

function runtimeMembers(cls) {
  const names = new Set(Object.getOwnPropertyNames(cls.prototype));
  names.delete('constructor');
  return [...names].sort();
}

function declaredMembers(name) {
  return [...declared.get(name).members.keys()].sort();
}

test('a client of the declarations type-checks', () => {
  const program = ts.createProgram(
    [path.join(packageDir, 'test', 'client.ts')],
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: false,
      types: []
    }
  );
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map(d => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(diagnostics).toEqual([]);
});

test('the module exports what is declared', () => {
  expect(
    Object.keys(wasm)
      .filter(k => k !== 'wasmUrl')
      .sort()
  ).toEqual(['Cluster', 'Engine', 'loadEngine']);
  expect(runtimeMembers(wasm.Engine)).toEqual(declaredMembers('Engine'));
  expect(runtimeMembers(wasm.Cluster)).toEqual(declaredMembers('Cluster'));
});

describe('answers have the declared shapes', () => {
  let engine;
  let cluster;
  const worker = daskWorker;
  beforeAll(async () => {
    engine = await wasm.loadEngine();
    const demo = readFileSync(
      path.join(repoDir, 'examples', 'daskhub-demo', 'cluster.json')
    );
    cluster = engine.loadCluster(demo).value;
  });

  function expectShape(value, name) {
    const t = declared.has(name) ? null : aliases.get(name);
    const e = t
      ? check(value, t, name)
      : checkMembers(value, declared.get(name).members, name, false);
    expect(e).toBeNull();
  }

  test('Loaded', () => expectShape(cluster.loaded, 'Loaded'));
  test('Placement, every copy placed', () =>
    expectShape(
      cluster.place({ ...worker(3), profile: 'most-allocated' }).value,
      'Placement'
    ));
  test('Placement with a scale-up and copies that never run', () => {
    const many = cluster.place(worker(300)).value;
    expect(many.scaleUp.pools.length).toBeGreaterThan(0);
    expectShape(many, 'Placement');
    const gpus = cluster.place(worker(2, { 'example.com/fpga': '1' })).value;
    expect(gpus.scaleUp.unplaced.length).toBeGreaterThan(0);
    expectShape(gpus, 'Placement');
  });
  test('Placement with every kind of admission change', () => {
    const gpu = {
      pod: {
        metadata: { name: 'gpu' },
        spec: {
          containers: [
            {
              name: 'nb',
              resources: { limits: { 'nvidia.com/gpu': '1', memory: '8Gi' } }
            }
          ]
        }
      },
      replicas: 1,
      admission: { extendedResourceToleration: true }
    };
    const p = cluster.place(gpu).value;
    expect(p.admission.map(c => c.by)).toEqual([
      'defaulting',
      'defaulting',
      'DefaultTolerationSeconds',
      'DefaultTolerationSeconds',
      'ExtendedResourceToleration'
    ]);
    expectShape(p, 'Placement');
    expect(
      cluster.place({
        ...gpu,
        admission: { extendedResourceTolerations: true }
      }).error
    ).toBe(
      '$.admission.extendedResourceTolerations: unknown field "extendedResourceTolerations" (known: extendedResourceToleration)'
    );
  });
  test('Explanation', () =>
    expectShape(
      cluster.explain({ pod: worker(1).pod, profile: 'tightpack' }).value,
      'Explanation'
    ));
  test('Explanation of a pod that fits nowhere', () => {
    const r = cluster.explain({ pod: worker(1, { cpu: '64' }).pod }).value;
    expect(r.result.message).toContain('Insufficient cpu');
    expectShape(r, 'Explanation');
  });
  test('Advice: the tiling alone, and fixes of every kind', () => {
    const gke = engine.loadCluster(
      readFileSync(
        path.join(repoDir, 'examples', 'daskhub-gke', 'cluster.json')
      ),
      {
        pools: readFileSync(
          path.join(
            repoDir,
            'labextension',
            'jupyterlab_tightpack',
            'demo',
            'pools.json'
          )
        )
      }
    ).value;
    const bare = worker(400);
    delete bare.pod.spec.tolerations;
    expectShape(gke.advise({ pod: bare.pod }).value, 'Advice');
    const advice = gke.advise(bare).value;
    expectShape(advice, 'Advice');
    const kinds = new Set(
      advice.fixes.flatMap(f => [
        ...Object.keys(f.change),
        ...(f.maxSize ? ['maxSize'] : [])
      ])
    );
    for (const kind of [
      'addTolerations',
      'addNodeSelector',
      'requests',
      'replicas',
      'maxSize'
    ])
      expect(kinds).toContain(kind);
    const tiled = gke.advise({
      ...worker(40, { cpu: '4', memory: '16Gi' })
    }).value;
    expect(tiled.pools[0].suggestions[0].outcome).toBeDefined();
    expectShape(tiled, 'Advice');
    expect(gke.advise({ ...bare, replicas: 0 }).error).toBe(
      '$.replicas: 0 is not a whole number from 1 to 1000000'
    );
    gke.dispose();
  });
  test('Forecast, with and without pods taken away', () => {
    const all = cluster.forecast().value;
    expectShape(all, 'Forecast');
    const some = cluster.forecast({
      remove: 'app.kubernetes.io/component=worker'
    }).value;
    expectShape(some, 'Forecast');
    expect(cluster.forecast({ remove: 'a in (b' }).error).toContain('remove');
    expect(cluster.forecast({ removed: 'x' }).error).toContain('unknown field');
    expectShape(
      cluster.forecast({ removePods: ['a/b'], removeDeployments: ['a/c'] })
        .value,
      'Forecast'
    );
    expect(cluster.forecast({ removeDeployments: ['web'] }).error).toBe(
      '$.removeDeployments[0]: "web" is not a Deployment reference: expected namespace/name'
    );
    expect(cluster.forecast({ removePods: 'a/b' }).error).toContain(
      '$.removePods'
    );
    expectShape(
      cluster.forecast({ now: '2026-11-30T12:00:00.123Z' }).value,
      'Forecast'
    );
    expect(cluster.forecast({ now: 'yesterday' }).error).toContain(
      'now: "yesterday" is not an RFC 3339 time'
    );
  });
  test('ClusterSummary', () =>
    expectShape(cluster.summary().value, 'ClusterSummary'));
  test('Result failures', () => {
    const r = cluster.place({});
    expect(Object.keys(r).sort()).toEqual(['error', 'ok']);
    expect(typeof r.error).toBe('string');
  });
  test('the declared checker catches what it should', () => {
    expect(
      checkMembers(
        { schedulerName: 'x' },
        declared.get('Placement').members,
        'p',
        false
      )
    ).toMatch(/declared but missing/);
    const good = cluster.place(worker(1)).value;
    expect(
      checkMembers(
        { ...good, extra: 1 },
        declared.get('Placement').members,
        'p',
        false
      )
    ).toMatch(/not declared/);
  });
});
