// Kubernetes quantities as the form checks them (the engine reads them) and
// as the answer writes them.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { readableMemory } from '../pod.js';
import { cpuError, formatWait, memoryError } from '../quantity.js';
import { loadDemo, IDemo } from './demo.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
});

describe('quantities', () => {
  test('what the API server accepts passes', () => {
    for (const t of ['8Gi', '7500Mi', '1.5', '2e3', ' 12Gi '])
      expect(memoryError(t, d.engine)).toBeNull();
    for (const t of ['500m', '2', '1.5'])
      expect(cpuError(t, d.engine)).toBeNull();
  });
  test('bad memory values say how to write them', () => {
    expect(memoryError('8 GB', d.engine)).toBe(
      'Memory "8 GB" is not a Kubernetes quantity: write 8Gi'
    );
    expect(memoryError('lots', d.engine)).toMatch(
      /not a Kubernetes quantity such as 8Gi/
    );
    // The API server's suffixes are case-sensitive: 1K is no quantity.
    expect(memoryError('1K', d.engine)).toMatch(/not a Kubernetes quantity/);
    expect(memoryError('0', d.engine)).toMatch(/more than 0/);
    expect(memoryError('-1Gi', d.engine)).toMatch(/more than 0/);
    expect(memoryError('', d.engine)).toBe('Memory is required, e.g. 8Gi');
    expect(cpuError('two', d.engine)).toMatch(/Cores "two"/);
    expect(cpuError('0m', d.engine)).toMatch(/more than 0/);
    expect(formatWait(600)).toBe('~10 min');
    expect(readableMemory('12884901888')).toBe('12Gi');
    expect(readableMemory('1500000000')).toBe('1500000000');
    expect(readableMemory('8Gi')).toBe('8Gi');
  });
});
