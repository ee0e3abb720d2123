// Kubernetes quantities as users type them, for the form's checks and for
// drawing fills; the engine parses them exactly on its own.

const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60
};
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18
};
const QUANTITY =
  /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

/** The value of a quantity, or null when Kubernetes would reject the text. */
export function parseQuantity(text: string): number | null {
  const m = QUANTITY.exec(text.trim());
  if (!m) return null;
  const number = Number(m[1]);
  if (m[3] !== undefined) return number * 10 ** Number(m[3]);
  const suffix = m[2] ?? '';
  return number * (BINARY[suffix] ?? DECIMAL[suffix]);
}

/** A message for a memory value the API server would reject, else null. */
export function memoryError(text: string): string | null {
  const t = text.trim();
  if (t === '') return 'Memory is required, e.g. 8Gi';
  const v = parseQuantity(t);
  if (v === null) {
    const hint = /^(\d+(?:\.\d+)?)\s*([KMGT])i?B$/i.exec(t);
    const fix = hint
      ? `: write ${hint[1]}${hint[2].toUpperCase()}i`
      : ' such as 8Gi or 7500Mi';
    return `Memory "${t}" is not a Kubernetes quantity${fix}`;
  }
  if (v <= 0) return `Memory "${t}" must be more than 0`;
  return null;
}

/** A message for a cpu value the API server would reject, else null. */
export function cpuError(text: string): string | null {
  const t = text.trim();
  if (t === '') return 'Cores are required, e.g. 2 or 500m';
  const v = parseQuantity(t);
  if (v === null)
    return `Cores "${t}" is not a Kubernetes quantity such as 2, 1.5 or 500m`;
  if (v <= 0) return `Cores "${t}" must be more than 0`;
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
