// Kubernetes quantities as users type them, checked by the engine (which reads
// them as the API server does), and amounts worded for the answer.
import type { Engine } from '@tightpack/wasm';

/** A message for a memory value the API server would reject, else null. */
export function memoryError(text: string, engine: Engine): string | null {
  const t = text.trim();
  if (t === '') return 'Memory is required, e.g. 8Gi';
  const q = engine.quantity(t);
  if (!q.ok) {
    // "8GB", "8 gb": what people write for gibibytes.
    const hint = /^(\d+(?:\.\d+)?)\s*([KMGT])i?B$/i.exec(t);
    const fix = hint
      ? `: write ${hint[1]}${hint[2].toUpperCase()}i`
      : ' such as 8Gi or 7500Mi';
    return `Memory "${t}" is not a Kubernetes quantity${fix}`;
  }
  if (q.value.sign <= 0) return `Memory "${t}" must be more than 0`;
  return null;
}

/** A message for a cpu value the API server would reject, else null. */
export function cpuError(text: string, engine: Engine): string | null {
  const t = text.trim();
  if (t === '') return 'Cores are required, e.g. 2 or 500m';
  const q = engine.quantity(t);
  if (!q.ok)
    return `Cores "${t}" is not a Kubernetes quantity such as 2, 1.5 or 500m`;
  if (q.value.sign <= 0) return `Cores "${t}" must be more than 0`;
  return null;
}

/** 13958643712 -> "13 GiB", 1.5 * 2**30 -> "1.5 GiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    ++u;
  }
  return `${Number(v.toFixed(1))} ${units[u]}`;
}

/** Millicores -> "3.9 cores". */
export function formatCores(millis: number): string {
  const cores = Number((millis / 1000).toFixed(2));
  return `${cores} ${cores === 1 ? 'core' : 'cores'}`;
}

/** Seconds -> "~3 min", "~45 s" (as `tightpack predict` prints waits). */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `~${seconds} s`;
  return `~${Math.floor((seconds + 30) / 60)} min`;
}
