// Demo = docs: every Python snippet of docs/notebook.md, and the starter
// notebook scripts/demo.sh opens, run top to bottom in a kernel of the
// demo's environment (scripts/demo-requirements.txt and the wheel, as
// jupyterlab.mjs installs them), and each preview draws the tightpack
// output. A snippet about a running cluster gets the test double of
// notebook.test.mjs (RUNNING_CLUSTER_CELL), since no Kubernetes runs here.
//   node --test labextension/ui-tests/docs.test.mjs   (after scripts/build_labextension.sh)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';
import {
  installAsAUser,
  repoDir,
  RUNNING_CLUSTER_CELL,
  venv
} from './jupyterlab.mjs';

const MIME = 'application/vnd.tightpack.preview+json';

before(() => installAsAUser({ reuse: true }));

function cell(source) {
  return {
    cell_type: 'code',
    metadata: {},
    execution_count: null,
    outputs: [],
    source
  };
}

/** Runs `nb` with nbconvert in the demo environment's kernel; the executed notebook. */
function execute(nb, name) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tightpack-docs-'));
  const file = path.join(dir, `${name}.ipynb`);
  writeFileSync(file, JSON.stringify(nb));
  const r = spawnSync(
    path.join(venv, 'bin', 'jupyter'),
    [
      'nbconvert',
      '--to',
      'notebook',
      '--execute',
      '--ExecutePreprocessor.timeout=120',
      '--output',
      `${name}.out.ipynb`,
      file
    ],
    {
      encoding: 'utf8',
      cwd: dir,
      // The kernel runs with the environment's Python, as a lab started from it does.
      env: {
        ...process.env,
        PATH: `${path.join(venv, 'bin')}:${process.env.PATH}`,
        HOME: dir
      }
    }
  );
  assert.equal(r.status, 0, `${name} did not run top to bottom:\n${r.stderr}`);
  return JSON.parse(readFileSync(path.join(dir, `${name}.out.ipynb`), 'utf8'));
}

/** The cells whose source asks for a preview, and whether each drew one. */
function previews(nb) {
  return nb.cells
    .filter(c => c.cell_type === 'code')
    .filter(c => /preview\(|%tightpack /.test([c.source].flat().join('')))
    .map(c => ({
      source: [c.source].flat().join(''),
      drawn: c.outputs.filter(o => o.data?.[MIME]).length,
      lines: [c.source]
        .flat()
        .join('')
        .split('\n')
        .filter(l => /^\s*(await )?preview\(|^%tightpack /.test(l)).length
    }));
}

test("every snippet of docs/notebook.md runs in the demo's environment", () => {
  const md = readFileSync(path.join(repoDir, 'docs', 'notebook.md'), 'utf8');
  const snippets = [...md.matchAll(/```python\n([\s\S]*?)```/g)].map(m => m[1]);
  assert.ok(snippets.length >= 3, `snippets found: ${snippets.length}`);
  const cells = [];
  for (const s of snippets) {
    // A running cluster: the test double, given what its own start sets.
    if (/\bcluster\b/.test(s) && !/^cluster\s*=/m.test(s))
      cells.push(
        cell(
          [
            'from dask_kubernetes.operator import KubeCluster, make_cluster_spec',
            ...RUNNING_CLUSTER_CELL
          ].join('\n')
        )
      );
    cells.push(cell(s));
  }
  const done = execute(
    {
      cells,
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
      nbformat: 4,
      nbformat_minor: 5
    },
    'notebook-md'
  );
  const drawn = previews(done);
  assert.ok(drawn.length >= 3);
  for (const p of drawn)
    assert.equal(p.drawn, p.lines, `a preview for each call in:\n${p.source}`);
});

test('the starter notebook runs top to bottom and draws each preview', () => {
  const nb = JSON.parse(
    readFileSync(
      path.join(repoDir, 'examples', 'notebook', 'tightpack-starter.ipynb'),
      'utf8'
    )
  );
  const drawn = previews(execute(nb, 'starter'));
  assert.equal(drawn.length, 4);
  for (const p of drawn)
    assert.equal(p.drawn, p.lines, `a preview for each call in:\n${p.source}`);
});
