// The JSON the server extension sends (docs/sidebar-server.md).
import type { Toleration } from '@tightpack/wasm';

// A v1 Toleration, as the engine declares it.
export type { Toleration };

export interface ISnapshotSource {
  kind: 'scheduler' | 'kubernetes' | 'file' | 'demo';
  detail: string;
}

export interface ISnapshotEnvelope {
  source: ISnapshotSource;
  fetchedAt: string;
  cluster: object;
  pools: object | null;
  schedulerConfiguration: object | null;
  profiles: object[];
  // The hub's KubeSpawner settings under every profile, as the scheduler publishes them (or null).
  kubespawnerDefaults: Record<string, unknown> | null;
  // dask-gateway's server-side worker settings, as the scheduler publishes them (or null);
  // the server extension applies them to the gateway template, the panel does not read them.
  daskGateway: {
    worker?: { extraPodConfig?: object; extraContainerConfig?: object };
  } | null;
  // null: neither the setting nor the source says; the engine infers it from the nodes.
  admission: { extendedResourceToleration: boolean | null };
  // The user's own claims, from the tightpack scheduler's /home (or null): the claims and
  // volumes themselves are in `cluster`. Nothing of any other user is ever here.
  home: IHomeClaims | null;
  notes: string[];
}

export interface IHomeClaims {
  user: string;
  // server: the named server's name, "" for the default server; volume: the bound volume.
  claims: {
    namespace: string;
    name: string;
    server: string;
    volume: string | null;
  }[];
}

/**
 * Whose a claim a template's pod mounts is, as the server extension knows it: what the
 * claim is (its class, disk, zones) is the engine's answer (Placement.claims).
 */
export interface ITemplateClaim {
  name: string;
  namespace: string;
  /** The user's own: listed by /home, or named after the user by a template. */
  own: boolean;
  /** The claim the user's first spawn creates (the cluster has the server's copy of it). */
  firstSpawn: boolean;
  /** /home answered for the user: "you have none yet" rather than "no claim of yours is known". */
  homeKnown: boolean;
}

export interface IContainer {
  name?: string;
  image?: string;
  resources?: {
    requests?: Record<string, string>;
    limits?: Record<string, string>;
  };
  [key: string]: unknown;
}

export interface IPod {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    /** As the client will own the pod (the engine reads them for scale-down's drain rules). */
    ownerReferences?: {
      apiVersion: string;
      kind: string;
      name: string;
      uid?: string;
      controller?: boolean;
    }[];
  };
  spec?: {
    containers?: IContainer[];
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
  | { kind: 'profile'; slug: string }
  // A pod manifest from a notebook's preview(): created as the notebook creates it.
  | { kind: 'pod' };

export interface IWorkerTemplate {
  id: string;
  name: string;
  source: 'dask-kubernetes' | 'dask-gateway' | 'profile' | 'pod';
  description: string;
  pod: IPod;
  workers: number;
  start: StartSpec;
  notes: string[];
  /** Profiles: the claims the pod mounts. */
  claims?: ITemplateClaim[];
}

export interface ITemplatesResponse {
  templates: IWorkerTemplate[];
  errors: string[];
}
