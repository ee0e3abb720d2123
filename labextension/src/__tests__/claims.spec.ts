// The notes on the claims a pod mounts: what each claim is comes from the
// real engine on the demo cluster (its default class, binding modes, volumes
// and their zones); the words join it with whose the claim is.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { claimNote, claimsOf } from '../claims.js';
import { IPod, ITemplateClaim } from '../types.js';
import { demo, loadDemo, ok, IDemo } from './demo.js';

let d: IDemo;
beforeAll(async () => {
  d = await loadDemo();
});

const claim = (name: string, spec: object, annotations = {}): object => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'daskhub', annotations },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '10Gi' } },
    ...spec
  }
});

// Beside the demo's default class (standard-rwo, WaitForFirstConsumer) and
// alice's home disk in us-central1-b: an Immediate class, a local volume on
// one node, an NFS volume any node mounts, and a claim of each kind.
const objects = [
  ...demo('home.json').items,
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'premium-now' },
    provisioner: 'pd.csi.storage.gke.io',
    volumeBindingMode: 'Immediate'
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'local-scratch' },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      local: { path: '/mnt/disks/ssd0' },
      claimRef: { namespace: 'daskhub', name: 'scratch' },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                {
                  key: 'kubernetes.io/hostname',
                  operator: 'In',
                  values: ['gke-daskhub-core-pool-7f3a-1x2c']
                }
              ]
            }
          ]
        }
      }
    }
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'daskhub-home-nfs' },
    spec: {
      capacity: { storage: '1Mi' },
      accessModes: ['ReadWriteMany'],
      nfs: { server: '10.0.0.2', path: '/homes/' },
      claimRef: { namespace: 'daskhub', name: 'home-nfs' }
    }
  },
  claim('claim-bob', {}, { 'hub.jupyter.org/username': 'bob' }),
  claim('fast', { storageClassName: 'premium-now' }),
  claim('elsewhere', {}, { 'volume.beta.kubernetes.io/storage-class': 'gone' }),
  claim('static', { storageClassName: '' }),
  claim('scratch', { storageClassName: '', volumeName: 'local-scratch' }),
  claim('home-nfs', { storageClassName: '', volumeName: 'daskhub-home-nfs' })
];

const notes = (
  claimNames: string[],
  told: ITemplateClaim[],
  source: 'profile' | 'dask-kubernetes' = 'profile'
): string[] => {
  const c = demo('cluster.json');
  const cluster = ok(
    d.engine.loadCluster(
      { ...c, items: [...c.items, ...objects] },
      { pools: demo('pools.json') }
    )
  );
  const pod: IPod = {
    metadata: { name: 'jupyter-x', namespace: 'daskhub' },
    spec: {
      containers: [{ name: 'notebook' }],
      volumes: claimNames.map((claimName, i) => ({
        name: `v${i}`,
        persistentVolumeClaim: { claimName }
      }))
    }
  };
  const placement = ok(cluster.place({ pod, replicas: 1 }));
  cluster.dispose();
  return claimsOf(placement.claims, told).map(m => claimNote(m, source));
};

const own = (
  name: string,
  firstSpawn = false,
  homeKnown = true
): ITemplateClaim => ({
  name,
  namespace: 'daskhub',
  own: true,
  firstSpawn,
  homeKnown
});

describe('what a claim holds the pod to, in words', () => {
  test('a home disk in a zone: the notebook runs only there', () => {
    expect(notes(['claim-alice'], [own('claim-alice')])).toEqual([
      'Your home claim claim-alice is on a disk in us-central1-b: the notebook can run only on a node in that zone.'
    ]);
    expect(notes(['claim-alice'], [], 'dask-kubernetes')).toEqual([
      'Claim claim-alice is on a disk in us-central1-b: its pods can run only on nodes in that zone.'
    ]);
  });

  test('a first spawn’s claim without a class gets the default one, as the API server gives it', () => {
    expect(notes(['claim-bob'], [own('claim-bob', true)])).toEqual([
      'Your home claim claim-bob is the one your first spawn creates (you have none yet), with the default class standard-rwo: its disk is made in the zone of the node the notebook lands on.'
    ]);
    expect(notes(['claim-bob'], [own('claim-bob', true, false)])).toEqual([
      'Your home claim claim-bob is the one your first spawn creates (no claim of yours is known), with the default class standard-rwo: its disk is made in the zone of the node the notebook lands on.'
    ]);
  });

  test('classes: Immediate, one the cluster lacks (named by the beta annotation), none', () => {
    expect(notes(['fast', 'elsewhere', 'static'], [])).toEqual([
      'Claim fast is not bound to a disk yet, with class premium-now: its disk is made at once, before the notebook is placed (Immediate binding).',
      'Claim elsewhere is not bound to a disk yet, with class gone: the cluster does not list that class.',
      'Claim static is not bound to a disk yet, with no class: it is bound only to a volume made for it beforehand.'
    ]);
  });

  test('a local volume is held to its node, NFS to none; a missing claim is said', () => {
    expect(notes(['scratch', 'home-nfs', 'nowhere'], [])).toEqual([
      'Claim scratch is on volume local-scratch, which one node of the cluster can mount (its node affinity).',
      'Claim home-nfs is on volume daskhub-home-nfs, which any node can mount.',
      'Claim nowhere is not in the cluster: kube-scheduler leaves the notebook Pending until it is.'
    ]);
  });
});
