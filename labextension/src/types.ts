// The JSON the server extension sends (docs/sidebar-server.md).

export interface SnapshotSource {
  kind: 'scheduler' | 'kubernetes' | 'file' | 'demo';
  detail: string;
}

export interface SnapshotEnvelope {
  source: SnapshotSource;
  fetchedAt: string;
  cluster: object;
  pools: object | null;
  schedulerConfiguration: object | null;
  profiles: object[];
  // The hub's KubeSpawner settings under every profile, as the scheduler publishes them (or null).
  kubespawnerDefaults: Record<string, unknown> | null;
  // dask-gateway's server-side worker settings, as the scheduler publishes them (or null);
  // the server extension applies them to the gateway template, the panel does not read them.
  daskGateway: { worker?: { extraPodConfig?: object; extraContainerConfig?: object } } | null;
  admission: { extendedResourceToleration: boolean };
  notes: string[];
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface Container {
  name?: string;
  image?: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  [key: string]: unknown;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: {
    containers?: Container[];
    tolerations?: Toleration[];
    nodeSelector?: Record<string, string>;
    schedulerName?: string;
    [key: string]: unknown;
  };
}

export type StartSpec =
  | {
      kind: 'kubecluster';
      name: string;
      namespace: string | null;
      image: string;
      resources: object;
      env: object;
      customClusterSpec: string | null;
    }
  | { kind: 'gateway'; address: string; options: Record<string, unknown> }
  | { kind: 'profile'; slug: string };

export interface WorkerTemplate {
  id: string;
  name: string;
  source: 'dask-kubernetes' | 'dask-gateway' | 'profile';
  description: string;
  pod: Pod;
  workers: number;
  start: StartSpec;
  notes: string[];
}

export interface TemplatesResponse {
  templates: WorkerTemplate[];
  errors: string[];
}
