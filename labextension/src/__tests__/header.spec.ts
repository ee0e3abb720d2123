/**
 * @jest-environment jsdom
 */
// The header's source line over time: its age kept current, and a failed
// load said until a load succeeds (the age timer once drew the old source
// back over the error).
import { afterEach, beforeEach, expect, jest, test } from '@jest/globals';
import type { ClusterSummary } from '@tightpack/wasm';
import { SourceHeader } from '../header.js';
import { ISnapshotEnvelope } from '../types.js';

const envelope = {
  source: { kind: 'demo', detail: 'built-in DaskHub on GKE' },
  fetchedAt: '2026-12-04T12:00:00Z',
  notes: []
} as unknown as ISnapshotEnvelope;
const summary = { nodes: [{}, {}], notes: [] } as unknown as ClusterSummary;

beforeEach(() => {
  jest.useFakeTimers();
  jest.setSystemTime(new Date('2026-12-04T12:00:30Z'));
});
afterEach(() => jest.useRealTimers());

const line = (h: SourceHeader) => h.node.querySelector('.tp-source')!;

test('the age is kept current', () => {
  const header = new SourceHeader(() => undefined);
  header.show(envelope, summary);
  expect(line(header).textContent).toBe(
    'demo cluster: built-in DaskHub on GKE · 2 nodes · 30 s ago'
  );
  jest.advanceTimersByTime(60000);
  expect(line(header).textContent).toMatch(/· 1 min ago$/);
  header.dispose();
});

test('a failed refresh stays said until a load succeeds', () => {
  const header = new SourceHeader(() => undefined);
  header.show(envelope, summary);
  header.failed('snapshot file /data/cluster.yaml: no such file');
  jest.advanceTimersByTime(60000);
  expect(line(header).textContent).toBe(
    'Cannot load the cluster: snapshot file /data/cluster.yaml: no such file'
  );
  expect(line(header).classList.contains('tp-source-error')).toBe(true);
  header.show(envelope, summary);
  expect(line(header).classList.contains('tp-source-error')).toBe(false);
  expect(line(header).textContent).toMatch(/^demo cluster: /);
  header.dispose();
});
