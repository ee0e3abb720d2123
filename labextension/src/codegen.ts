// "Copy code": the Python that starts exactly the workers the panel shows.
import { workerContainer } from './pod.js';
import { ISchedulerChoice } from './schedulers.js';
import { IPod, IWorkerTemplate } from './types.js';

const DEFAULT = 'default-scheduler';

/** A note as Python comments, wrapped at about 88 columns. */
function comment(text: string): string[] {
  const out: string[] = [];
  let line = '#';
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > 88) {
      out.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  out.push(line);
  return out;
}

function py(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    const inner = indent + '    ';
    return `[\n${value.map(v => inner + py(v, inner)).join(',\n')},\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.length) return '{}';
  const inner = indent + '    ';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${py(v, inner)}`).join(',\n')},\n${indent}}`;
}

function kubeCluster(
  template: IWorkerTemplate,
  pod: IPod,
  workers: number,
  scheduler: ISchedulerChoice | undefined
): string {
  const start = template.start.kind === 'kubecluster' ? template.start : null;
  const c = workerContainer(pod);
  const name = start?.name ?? 'dask';
  const image = c?.image ?? (start?.image || 'ghcr.io/dask/dask:latest');
  const lines = [
    'from dask_kubernetes.operator import KubeCluster, make_cluster_spec',
    '',
    `spec = make_cluster_spec(name=${py(name)}, image=${py(image)}, resources=${py(c?.resources ?? {})})`,
    'worker = spec["spec"]["worker"]["spec"]'
  ];
  if (scheduler?.schedulerName && scheduler.schedulerName !== DEFAULT)
    lines.push(
      ...comment(scheduler.note),
      `worker["schedulerName"] = ${py(scheduler.schedulerName)}`
    );
  else if (scheduler && scheduler.schedulerName === null)
    lines.push(...comment(scheduler.note));
  if (pod.spec?.tolerations?.length)
    lines.push(`worker["tolerations"] = ${py(pod.spec.tolerations)}`);
  if (Object.keys(pod.spec?.nodeSelector ?? {}).length)
    lines.push(`worker["nodeSelector"] = ${py(pod.spec!.nodeSelector)}`);
  lines.push(
    '# Each worker is a one-replica Deployment: cluster-autoscaler may evict workers to remove',
    '# a node, and their memory is lost. To keep them while they run, uncomment:',
    '# worker.setdefault("metadata", {}).setdefault("annotations", {})["cluster-autoscaler.kubernetes.io/safe-to-evict"] = "false"',
    '# To retire workers node by node when the cluster shrinks, so that whole nodes empty',
    '# (tightpack-dask installed in the image), pass env=operator_env() to make_cluster_spec',
    '# after: from tightpack_dask.kubernetes import operator_env'
  );
  const ns = start?.namespace ? `, namespace=${py(start.namespace)}` : '';
  lines.push(
    `cluster = KubeCluster(custom_cluster_spec=spec${ns})`,
    `cluster.scale(${workers})`,
    'client = cluster.get_client()'
  );
  return lines.join('\n');
}

function gateway(
  template: IWorkerTemplate,
  pod: IPod,
  workers: number,
  scheduler: ISchedulerChoice | undefined
): string {
  const start = template.start.kind === 'gateway' ? template.start : null;
  const c = workerContainer(pod)?.resources?.requests ?? {};
  const lines = [
    'from dask_gateway import Gateway',
    '',
    `gateway = Gateway(${start ? py(start.address) : ''})`,
    'options = gateway.cluster_options()'
  ];
  const options = start?.options ?? {};
  if ('worker_cores' in options && c.cpu)
    lines.push(`options.worker_cores = ${Number.parseFloat(c.cpu) || c.cpu}`);
  if ('worker_memory' in options && c.memory) {
    const gib = /^(\d+(?:\.\d+)?)Gi$/.exec(c.memory);
    lines.push(`options.worker_memory = ${gib ? gib[1] : py(c.memory)}  # GiB`);
  }
  // dask-gateway's server, not its client, says which scheduler places workers.
  const own = pod.spec?.schedulerName || DEFAULT;
  if (scheduler && scheduler.schedulerName !== own)
    lines.push(
      ...comment(
        `dask-gateway's server names the workers' scheduler (${own}), not these options: the answer above is for ${scheduler.schedulerName ?? scheduler.value}; ask the operator to set schedulerName in the gateway's worker extraPodConfig.`
      )
    );
  lines.push(
    'cluster = gateway.new_cluster(options)',
    `cluster.scale(${workers})`,
    'client = cluster.get_client()'
  );
  return lines.join('\n');
}

/**
 * A KubeSpawner profile is not started from code: the hub starts the server
 * it describes, with the hub's own settings (the scheduler among them), so
 * the form's edits cannot be carried over. Say how, and what the form changed.
 */
function profile(template: IWorkerTemplate, pod: IPod): string {
  const slug = template.start.kind === 'profile' ? template.start.slug : '';
  const name = pod.spec?.schedulerName;
  return [
    `# "${template.name}" is a profile of your JupyterHub: the hub starts it, with the hub's`,
    '# own settings, so the cores, memory and tolerations above are what the profile sets.',
    name
      ? `# The hub starts it under the scheduler ${name}.`
      : "# The profile names no scheduler: kube-scheduler's default (default-scheduler) places it.",
    '# In JupyterLab: File > Hub Control Panel > Stop My Server, then Start My Server',
    `# and choose "${template.name}" (slug ${slug}).`
  ].join('\n');
}

/**
 * `scheduler`: the chosen profile with the scheduler of this cluster that
 * runs it (schedulers.ts); kube-scheduler's own, default-scheduler, is left
 * unsaid, and a profile no scheduler here runs is said to be one.
 */
export function startCode(
  template: IWorkerTemplate,
  pod: IPod,
  workers: number,
  scheduler?: ISchedulerChoice
): string {
  if (template.start.kind === 'gateway')
    return gateway(template, pod, workers, scheduler);
  if (template.start.kind === 'profile') return profile(template, pod);
  if (template.start.kind === 'pod')
    return [
      `# ${template.name} came from a notebook's preview(): create its ${workers} copies as`,
      '# that notebook does. The pod as Kubernetes schedules it is below.'
    ].join('\n');
  return kubeCluster(template, pod, workers, scheduler);
}
