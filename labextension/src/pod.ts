// The worker pod the form describes: the template with the user's cores,
// memory, GPUs, tolerations and node selector, as the user would create it.
// What the API server then does to it (defaulting, admission plugins) is the
// engine's to apply: every place request asks for it.
import { IContainer, IPod, Toleration } from './types.js';

export interface IWorkerSettings {
  workers: number;
  cores: string;
  memory: string;
  gpus: number;
  tolerations: Toleration[];
  nodeSelector: Record<string, string>;
}

export const DEFAULT_GPU_RESOURCE = 'nvidia.com/gpu';

/** The container that runs the Dask worker: the one named like it, else the first. */
export function workerContainer(pod: IPod): IContainer | undefined {
  const containers = pod.spec?.containers ?? [];
  return containers.find(c => /worker/.test(c.name ?? '')) ?? containers[0];
}

/** The extended resource the template counts GPUs in (amd.com/gpu, …), nvidia.com/gpu by default. */
export function gpuResource(pod: IPod): string {
  const c = workerContainer(pod);
  const names = Object.keys({
    ...c?.resources?.limits,
    ...c?.resources?.requests
  });
  return names.find(n => /gpu/i.test(n)) ?? DEFAULT_GPU_RESOURCE;
}

/** "12884901888" (bytes, as KubeSpawner and dask-gateway write memory) -> "12Gi". */
export function readableMemory(text: string): string {
  if (!/^\d+$/.test(text)) return text;
  const bytes = Number(text);
  for (const [suffix, size] of [
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
    ['Ki', 2 ** 10]
  ] as [string, number][]) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${suffix}`;
  }
  return text;
}

/** The form's values for a template, as the template sets them. */
export function settingsOf(pod: IPod, workers: number): IWorkerSettings {
  const c = workerContainer(pod);
  const requests = { ...c?.resources?.limits, ...c?.resources?.requests };
  const gpus = Number(requests[gpuResource(pod)] ?? 0);
  return {
    workers,
    cores: requests.cpu ?? '1',
    memory: readableMemory(requests.memory ?? '4Gi'),
    gpus: Number.isFinite(gpus) ? gpus : 0,
    tolerations: [...(pod.spec?.tolerations ?? [])],
    nodeSelector: { ...(pod.spec?.nodeSelector ?? {}) }
  };
}

/**
 * The pod the user would create: requests and limits set from the form (Dask
 * workers run with requests equal to limits).
 */
export function workerPod(template: IPod, s: IWorkerSettings): IPod {
  const pod: IPod = JSON.parse(JSON.stringify(template));
  pod.spec = pod.spec ?? {};
  pod.spec.containers = pod.spec.containers?.length
    ? pod.spec.containers
    : [{ name: 'worker' }];
  const c = workerContainer(pod)!;
  const gpu = gpuResource(template);
  const requests: Record<string, string> = {
    ...c.resources?.limits,
    ...c.resources?.requests
  };
  const limits: Record<string, string> = { ...c.resources?.limits };
  requests.cpu = s.cores.trim();
  requests.memory = s.memory.trim();
  limits.memory = s.memory.trim();
  if (limits.cpu !== undefined) limits.cpu = s.cores.trim();
  delete requests[gpu];
  delete limits[gpu];
  if (s.gpus > 0) {
    requests[gpu] = String(s.gpus);
    limits[gpu] = String(s.gpus);
  }
  c.resources = { requests, limits };
  pod.spec.nodeSelector = { ...s.nodeSelector };
  pod.spec.tolerations = [...s.tolerations];
  return pod;
}

/** "dask=worker:NoSchedule" and back. */
export function tolerationText(t: Toleration): string {
  const key = t.key ?? '';
  const effect = t.effect ? `:${t.effect}` : '';
  if ((t.operator ?? 'Equal') === 'Exists')
    return `${key || '*'}${effect} (exists)`;
  return `${key}=${t.value ?? ''}${effect}`;
}

export function parseTolerations(text: string): {
  tolerations: Toleration[];
  error: string | null;
} {
  const tolerations: Toleration[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const exists =
      /^(\S*?)(?::(NoSchedule|PreferNoSchedule|NoExecute))?\s*\(exists\)$/.exec(
        line
      );
    if (exists) {
      tolerations.push({
        ...(exists[1] && exists[1] !== '*' ? { key: exists[1] } : {}),
        operator: 'Exists',
        ...(exists[2] ? { effect: exists[2] } : {})
      });
      continue;
    }
    const m =
      /^([^=:\s]+)=([^:\s]*)(?::(NoSchedule|PreferNoSchedule|NoExecute))?$/.exec(
        line
      );
    if (!m) {
      return {
        tolerations,
        error: `Toleration "${line}" is not key=value:Effect (Effect: NoSchedule, PreferNoSchedule or NoExecute) or key:Effect (exists)`
      };
    }
    tolerations.push({
      key: m[1],
      operator: 'Equal',
      value: m[2],
      ...(m[3] ? { effect: m[3] } : {})
    });
  }
  return { tolerations, error: null };
}

export function parseSelector(text: string): {
  selector: Record<string, string>;
  error: string | null;
} {
  const selector: Record<string, string> = {};
  for (const raw of text.split(/[\n,]/)) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^([^=\s]+)=(\S*)$/.exec(line);
    if (!m)
      return { selector, error: `Node selector "${line}" is not key=value` };
    selector[m[1]] = m[2];
  }
  return { selector, error: null };
}
