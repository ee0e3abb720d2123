// Kubernetes quantities as the form reads and the answer writes them.
import { describe, expect, test } from '@jest/globals';
import { readableMemory } from '../pod.js';
import {
  cpuError,
  formatWait,
  memoryError,
  parseQuantity
} from '../quantity.js';

describe('quantities', () => {
  test.each([
    ['8Gi', 8 * 2 ** 30],
    ['500m', 0.5],
    ['1.5', 1.5],
    ['2e3', 2000],
    ['7500Mi', 7500 * 2 ** 20]
  ])('%s', (t, v) => {
    expect(parseQuantity(t)).toBeCloseTo(v);
  });
  test('bad memory values say how to write them', () => {
    expect(memoryError('8 GB')).toBe(
      'Memory "8 GB" is not a Kubernetes quantity: write 8Gi'
    );
    expect(memoryError('lots')).toMatch(
      /not a Kubernetes quantity such as 8Gi/
    );
    expect(memoryError('0')).toMatch(/more than 0/);
    expect(memoryError('12Gi')).toBeNull();
    expect(cpuError('two')).toMatch(/Cores "two"/);
    expect(formatWait(600)).toBe('~10 min');
    expect(readableMemory('12884901888')).toBe('12Gi');
    expect(readableMemory('1500000000')).toBe('1500000000');
    expect(readableMemory('8Gi')).toBe('8Gi');
  });
});
