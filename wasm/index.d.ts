// Hand-written: Emscripten 3.1.6 does not generate declarations. Kept honest
// by test/types.test.js, which type-checks a client and compares every answer
// the engine gives with the interfaces below.

/** A JSON document: text, its UTF-8 bytes, or a value to be written as JSON. */
export type JsonInput = string | Uint8Array | object;

/** Every failure comes back as a value whose message names the field and value. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: string };

export interface LoadOptions {
  /** The wasm bytes; the Node entry reads dist/tightpack.wasm when absent. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where the browser glue fetches tightpack.wasm from. */
  locateFile?: (path: string, scriptDirectory: string) => string;
}

export function loadEngine(options?: LoadOptions): Promise<Engine>;

export interface ClusterOptions {
  /** A NodePools document (tightpack.io/v1alpha1); without one, pools are inferred from node labels. */
  pools?: JsonInput | null;
  /** A KubeSchedulerConfiguration whose profiles are chosen by schedulerName before the built-in ones. */
  schedulerConfig?: JsonInput | null;
}

export class Engine {
  private constructor();
  readonly version: string;
  /** `tightpack replay` on one scenario: the same bytes, without the final newline. */
  replayBytes(scenario: JsonInput): Uint8Array;
  replay(scenario: JsonInput): string;
  /** `tightpack autoscale` on one scenario: the same bytes, without the final newline. */
  autoscaleBytes(scenario: JsonInput): Uint8Array;
  autoscale(scenario: JsonInput): string;
  /**
   * A quantity as the API server reads one (resource.ParseQuantity): its sign, or why
   * the API server would refuse the text ("invalid quantity …").
   */
  quantity(text: string): Result<QuantityAnswer>;
  /**
   * Decodes a cluster snapshot once: a v1 List as `kubectl get nodes,pods -A -o json`
   * prints it (DaemonSets, controllers, PodDisruptionBudgets, Services, Namespaces,
   * PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSI objects may be
   * listed too; an unbound claim without a class gets the default one),
   * a NodeList or PodList, or {"nodes": [...], "pods": [...]}.
   */
  loadCluster(snapshot: JsonInput, options?: ClusterOptions): Result<Cluster>;
  /** The size of the WebAssembly memory, in bytes; it only grows. */
  memoryBytes(): number;
  /** Bytes of that memory allocated and not yet freed. */
  heapBytesInUse(): number;
}

export class Cluster {
  private constructor();
  readonly loaded: Loaded;
  /** Where `replicas` copies of the pod land, one after another, and the scale-up for the rest. */
  place(request: PlaceRequest | Uint8Array | string): Result<Placement>;
  /** kube-scheduler's decision for one pod: every node's filter verdict and every plugin's scores. */
  explain(request: ExplainRequest | Uint8Array | string): Result<Explanation>;
  /**
   * Worker sizes that tile the nodes of each pool the pod is meant for, and, with
   * replicas, the fixes for copies that never run, each decided again by the engine:
   * what `tightpack advise --output json` prints. Needs pools (inferred or given).
   */
  advise(request: AdviseRequest | Uint8Array | string): Result<Advice>;
  /**
   * cluster-autoscaler's scale-down after the pods `remove` selects (a label selector in
   * kubectl's syntax, e.g. "dask.org/cluster-name=alice") left: which nodes go, what keeps
   * the others. What `tightpack forecast --output json` prints.
   */
  forecast(request?: ForecastRequest | Uint8Array | string): Result<Forecast>;
  summary(): Result<ClusterSummary>;
  /** Frees the cluster's WebAssembly memory; later calls return an error. */
  dispose(): void;
}

export interface QuantityAnswer {
  sign: -1 | 0 | 1;
}

export interface Loaded {
  nodes: number;
  pods: number;
  pendingPods: number;
  pools: number;
}

export interface ExplainRequest {
  /** A v1 Pod. */
  pod: object;
  /**
   * A schedulerName of the loaded configuration, or default, most-allocated
   * (zero-to-jupyterhub's user-scheduler), rtc or tightpack. Without it: the
   * pod's schedulerName if configured, else the first configured profile, else default.
   */
  profile?: string;
  /**
   * The kube-scheduler release to decide and word the answer as (default
   * v1.37): zero-to-jupyterhub's released charts run v1.30.14.
   */
  release?: Release;
  /**
   * What the API server runs besides defaulting and DefaultTolerationSeconds:
   * extendedResourceToleration makes a pod that requests an extended resource
   * tolerate the taint of that name. The pod is admitted first. Left out or null,
   * the engine infers it from the nodes: on where they carry GKE's node-pool label
   * (GKE's API server runs it), off elsewhere.
   */
  admission?: { extendedResourceToleration?: boolean | null };
}

/**
 * One change the API server's admission made to the requested pod: a request set
 * from its limit (defaulting), or a toleration an admission plugin added.
 */
export type AdmissionChange =
  | { by: 'defaulting'; container: string; resource: string; request: string }
  | {
      by: 'DefaultTolerationSeconds' | 'ExtendedResourceToleration';
      toleration: Toleration;
    };

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** The kube-scheduler releases the engine models. */
export type Release = 'v1.37' | 'v1.36' | 'v1.35' | 'v1.30';

export interface PlaceRequest extends ExplainRequest {
  /** 1 to 1000000. */
  replicas: number;
}

/** A place request whose replicas may be left out: then the tiling alone. */
export interface AdviseRequest extends ExplainRequest {
  /** 1 to 1000000. */
  replicas?: number;
}

/** A share per resource the pod asks for: cpu, memory, ephemeral-storage, extended ones. */
export type Shares = Record<string, number>;

/** Quantities as kubectl prints them, per resource: {"cpu": "3950m", "memory": "16Gi"}. */
export type Quantities = Record<string, string>;

export interface Advice {
  schedulerName: string;
  replicas?: number;
  /** Each pool meant for the pod whose new node admits it but for its size. */
  pools: PoolTiling[];
  /** Pools the pod is not meant for: advice never steers it there. */
  notMeant: {
    pool: string;
    why: 'gpu' | 'hub-core' | 'reserved' | 'selector';
  }[];
  /** With replicas: where the copies run as the pod is. */
  asIs?: Outcome;
  /** With replicas: changes that run more copies where they are meant, best first. */
  fixes?: Fix[];
  admission: AdmissionChange[];
}

/** How copies of the pod fill a new node of one pool (cluster-autoscaler's template). */
export interface PoolTiling {
  pool: string;
  /** Copies a new node takes, placed by kube-scheduler's filters. */
  perNode: number;
  /** What stops one more: a resource, "pods", or the rejecting filter plugin. */
  binding: string;
  /** Of the resources the pod asks for. */
  allocatable: Quantities;
  /** Allocatable less what the node's DaemonSet pods request. */
  free: Quantities;
  /** Share of allocatable left unrequested with perNode copies. */
  idle: Shares;
  /** The binding resource is more than 10 % idle and a smaller shape fits more. */
  worthTiling: boolean;
  /** The largest shapes at or below the request that fit more copies, fewest first. */
  suggestions: Shape[];
}

export interface Shape {
  perNode: number;
  /** The pod's whole request at this shape. */
  requests: Quantities;
  /** The container that gives up the difference, and its new requests. */
  container: string;
  containerRequests: Quantities;
  /** (new - old) / old per resource: -0.0125 for 4 cpus to 3950m. */
  change: Shares;
  /** With replicas, on the first shape of a pool worth tiling: the copies at this shape. */
  outcome?: Outcome;
}

/** Where the copies of one answer run. */
export interface Outcome {
  replicas: number;
  now: number;
  afterScaleUp: number;
  never: number;
  /** Running on pools not meant for the pod (the hub's core pool, ...). */
  offPool: number;
  /** Existing nodes that take copies, and nodes added for them. */
  nodes: number;
  nodesAdded: number;
  readyInSeconds: number;
  pools: { pool: string | null; replicas: number }[];
}

export interface Fix {
  /** The pool the change is for; null for fewer copies. */
  pool: string | null;
  change: {
    addTolerations?: Toleration[];
    addNodeSelector?: Record<string, string>;
    requests?: Quantities;
    container?: string;
    containerRequests?: Quantities;
    /** (new - old) / old per resource the pod asks for. */
    requestChange?: Shares;
    /** Copies per new node of the pool at the new requests. */
    perNode?: number;
    replicas?: number;
  };
  /** A pool's max size, which only the cluster's operator can change. */
  maxSize?: { pool: string; from: number; to: number };
  byOperator: boolean;
  /** Copies running where meant, beyond the answer as it is. */
  gained: number;
  outcome: Outcome;
}

export interface ForecastRequest {
  /** Pods to take away first: a label selector in kubectl's syntax. */
  remove?: string;
  /**
   * Pods to take away first, as "namespace/name" (dask-gateway names a worker
   * after its pod).
   */
  removePods?: string[];
  /**
   * Deployments whose pods to take away first, as "namespace/name" (the
   * dask-kubernetes operator runs each worker as a one-replica Deployment
   * named after the worker). A pod is a Deployment's when its ReplicaSet is
   * named `<deployment>-<its pod-template-hash label>`.
   */
  removeDeployments?: string[];
  /**
   * When pods' ages are judged, RFC 3339 (`new Date().toISOString()`):
   * kube-system pods without a disruption budget block only in their first
   * hour. Without it ages are unknown and such pods block.
   */
  now?: string;
}

export interface Forecast {
  summary: { nodes: number; removable: number; notAutoscaled: number };
  /** --scale-down-unneeded-time, as the configuration spells it ("10m"). */
  unneededTime: string;
  pools: ForecastPool[];
  nodes: NodeForecast[];
  /** namespace/name of the pods taken away first. */
  removedPods?: string[];
  notes: string[];
}

export interface ForecastPool {
  name: string;
  source: 'configured' | 'inferred';
  minSize: number;
  nodes: number;
  removable: number;
}

export interface NodeForecast {
  node: string;
  pool: string | null;
  /** The deciding resource and its requested share; GPU nodes are judged by GPU. */
  utilization: {
    resource: string;
    value: number;
    cpu?: number;
    memory?: number;
    gpu?: number;
  };
  threshold: number;
  removable: boolean;
  /** Removable with nothing to move (DaemonSet and mirror pods only). */
  empty?: boolean;
  podsToMove?: number;
  /** cluster-autoscaler's reason ("NotUnderutilized", "BlockedByPod/NotReplicated", …). */
  reason?: string;
  blockingPod?: string;
  /** What a user can do about the blocker. */
  fix?: string;
  message: string;
}

export interface Placement {
  schedulerName: string;
  replicas: number;
  placed: number;
  /** The nodes that take copies, by name. */
  nodes: LandedNode[];
  /** One per copy, in order: <namespace>/<name>-<i>. */
  placements: CopyPlacement[];
  unschedulable?: Unschedulable;
  scaleUp?: ScaleUp;
  /**
   * Pools whose nodes carry a NoSchedule/NoExecute taint the pod tolerates (with pools).
   * pinned: its node selector or required affinity admits no node of another pool;
   * nodeLabel: the label that selects the pool.
   */
  toleratedPoolTaints: {
    pool: string;
    taint: string;
    pinned: boolean;
    nodeLabel: { key: string; value: string } | null;
  }[];
  /**
   * What cluster-autoscaler's scale-down does with the pod on a node it would remove, by its
   * drain rules on the pod as given (owner, annotations, local volumes; no budgets): evicted,
   * or the rule (drainability's reason) that keeps the node. A pod without an owner is
   * NotReplicated; a DaemonSet's goes with its node (neither).
   */
  scaleDown: {
    evicted: boolean;
    blockedBy: DrainBlock | null;
  };
  /**
   * One pod's answer in words (replicas 1 only), as the hub's spawn page and the event on a
   * waiting pod give it.
   */
  outlook?: Outlook;
  /** The claims the pod mounts, as the cluster has them. */
  claims: MountedClaim[];
  /** What admission changed in the pod before it was placed. */
  admission: AdmissionChange[];
}

/**
 * A persistentVolumeClaim volume of the pod, as the API server and kube-scheduler's volume
 * plugins see its claim: words for "your home disk is in us-central1-b" come from these.
 */
export interface MountedClaim {
  namespace: string;
  name: string;
  /** The cluster has the claim; without it the pod waits and nothing below is known. */
  listed: boolean;
  /** Its class; null for none. */
  storageClass: string | null;
  /** The class is the cluster's default one, given because the claim names none. */
  defaultClass: boolean;
  /** The class' volumeBindingMode; null without a class or when the cluster lacks it. */
  bindingMode: 'WaitForFirstConsumer' | 'Immediate' | null;
  /** spec.volumeName. */
  volume: string | null;
  /** The cluster has that volume: the claim's disk exists. */
  bound: boolean;
  /** The zones the volume's required node affinity allows; empty when it names none. */
  zones: string[];
  /**
   * How many of the cluster's nodes that node affinity admits (a local volume's, one by
   * hostname); null when the volume has none and any node may mount it.
   */
  mountableNodes: number | null;
}

/** cluster-autoscaler's drainability reasons for keeping a node. */
export type DrainBlock =
  | 'NotReplicated'
  | 'ControllerNotFound'
  | 'UnmovableKubeSystemPod'
  | 'LocalStorageRequested'
  | 'NotSafeToEvictAnnotation'
  | 'NotEnoughPdb';

export interface Outlook {
  /** now: a node has room; new-node: cluster-autoscaler adds one that will; cannot: neither. */
  kind: 'now' | 'new-node' | 'cannot';
  /** "Ready now", "About 10 minutes", "Cannot start now". */
  summary: string;
  /** The summary and why, in one sentence. */
  message: string;
  /** new-node: the pools that grow for it and until their new nodes are ready. */
  pools?: string[];
  readyInSeconds?: number;
  /** cannot: what stops it. */
  reason?: string;
}

export interface LandedNode {
  node: string;
  pool: string | null;
  replicas: number;
  cpu: Fill;
  memory: Fill;
  /**
   * What the node has requested once the copies land, in the scheduler's units as
   * NodeSummary.requested (cpu in millicores, memory in bytes): every request of the
   * pod counted, init containers, sidecars, overhead and pod-level resources included.
   */
  requestedAfter: { cpu: number; memory: number };
}

/** Quantities as kubectl prints them ("3920m", "13Gi"). */
export interface Fill {
  allocatable: string;
  requestedBefore: string;
  requestedAfter: string;
}

export interface CopyPlacement {
  pod: string;
  node: string | null;
  /** How many nodes shared the best score: kube-scheduler picks among them at random. */
  tiedNodes: number;
}

export interface Unschedulable {
  replicas: number;
  /** kube-scheduler's FailedScheduling message. */
  message: string;
  /** Why, as data: advise from these, not from the message's words. */
  facts: UnschedulableFacts;
}

export interface UnschedulableFacts {
  /** The NoSchedule/NoExecute taints the pod does not tolerate on the nodes TaintToleration rejected. */
  untoleratedTaints: { taint: string; nodes: number; pools: string[] }[];
  /**
   * The resources NodeResourcesFit found short (on nodes that passed every filter before it),
   * in its order, with the most any of those nodes has free: cpu in millicores, memory in bytes.
   */
  insufficient: {
    resource: string;
    requested: number;
    largestFree: number;
    node: string;
    pool: string | null;
  }[];
  /** Nodes the pod's node selector or required node affinity excludes. */
  nodeAffinityMismatch: number;
  /** Extended resources the pod asks for that no node has. */
  unoffered: string[];
}

export interface ScaleUp {
  expander: string;
  replicasPending: number;
  loops: number;
  pools: PoolGrowth[];
  unplaced: Unplaced[];
  notes: string[];
  everyReplicaRuns: boolean;
}

export interface PoolGrowth {
  pool: string;
  source: 'configured' | 'inferred';
  nodesAdded: number;
  /** The estimator's node count: more than nodesAdded when the pool's max size capped the increase. */
  estimated: number;
  replicas: string[];
  otherPendingPods: string[];
  provisioningSeconds: number;
  readyInSeconds: number;
  templateFromConfiguration: boolean;
  preemptible: boolean;
  /**
   * Who adds the pool's nodes, as far as the input tells: the growth shown is always
   * cluster-autoscaler's model (Karpenter is not modelled yet; the answer's notes say so).
   */
  managedBy: PoolManager;
  maxSizeReached: boolean;
  loops: number[];
  maxSize: number | null;
  pricePerHour: number | null;
  addedPricePerHour: number | null;
  /** Pools the expander found equally good; the lowest name was chosen. */
  tied?: string[];
}

export interface Unplaced {
  replicas: string[];
  reason: string;
  pools: PoolDetail[];
  /** Pools that would take these replicas but are at their max size. */
  poolsAtMax: { pool: string; maxSize: number }[];
  /** Resources they ask for that no pool offers. */
  unoffered: string[];
  /**
   * Pools below their max size that would take them but for their volumes
   * (a disk in another zone): where they could run if the volume were elsewhere.
   */
  blockedByVolumes: string[];
}

export interface PoolDetail {
  pool: string;
  autoscaler: string[];
  filters: string[];
}

export interface Explanation {
  schedulerName: string;
  result: Decision;
  /** What admission changed in the pod before it was explained. */
  admission: AdmissionChange[];
}

/**
 * One decision as `tightpack replay` and the shared corpus encode it. A pod the
 * engine cannot decide (an unsupported feature, an invalid score) has only
 * `pod` and `error`.
 */
export interface Decision {
  pod: string;
  error?: string;
  /** Per node: "ok", or the reasons it fails. */
  filter?: Record<string, 'ok' | string[]>;
  /** Per failing node: the plugin that rejected it. */
  filterPlugin?: Record<string, string>;
  /** Per feasible node: the weighted score of each enabled plugin, and "total". */
  scores?: Record<string, Record<string, number>>;
  feasible?: number;
  scored?: boolean;
  /** The nodes sharing the best total; kube-scheduler picks one of them at random. */
  top?: string[];
  chosen?: string | null;
  /** kube-scheduler's FailedScheduling message when no node fits. */
  message?: string;
}

export interface ClusterSummary {
  nodes: NodeSummary[];
  pendingPods: number;
  pools?: PoolSummary[];
  notes?: string[];
  /** The profiles place() and explain() accept. */
  profiles: string[];
  /** The built-in ones among them, with what they stand for. */
  builtInProfiles: BuiltInProfile[];
}

export interface BuiltInProfile {
  name: string;
  /** The schedulerName its real counterpart runs under. */
  schedulerName: string;
  /** The kube-scheduler release its real counterpart runs; null: the newest. */
  release: Release | null;
  description: string;
}

/** cpu in millicores, memory in bytes, every other resource in its plain unit. */
export type ResourceAmounts = Record<string, number> & {
  cpu: number;
  memory: number;
  pods: number;
};

export interface NodeSummary {
  name: string;
  pool: string | null;
  ready: boolean;
  cordoned: boolean;
  labels: Record<string, string>;
  /** As kubectl prints them: "dask=worker:NoSchedule". */
  taints: string[];
  allocatable: ResourceAmounts;
  requested: ResourceAmounts;
}

/** karpenter: the pool's nodes carry karpenter.sh/nodepool, or its nodeLabels select it. */
export type PoolManager = 'cluster-autoscaler' | 'karpenter';

export interface PoolSummary {
  name: string;
  source: 'configured' | 'inferred';
  nodes: string[];
  minSize: number;
  maxSize: number | null;
  provisioningSeconds: number;
  preemptible: boolean;
  managedBy: PoolManager;
  pricePerHour: number | null;
  canGrow: boolean;
}
