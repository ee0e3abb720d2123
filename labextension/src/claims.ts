// What the claims a pod mounts hold it to, in words. The engine says what each
// claim is (a placement's `claims`: its class as the API server defaults it,
// the class' binding mode, the volume it is bound to and where that volume
// can be mounted); the server extension says whose it is (a template's
// `claims`: the user's home claim, the one a first spawn creates, a shared
// one). The words join the two; no storage rule is read here.
import type { MountedClaim } from '@tightpack/wasm';
import { ITemplateClaim, IWorkerTemplate } from './types.js';

/** A claim as the engine has it, with whose it is. */
export interface IClaim extends MountedClaim {
  own: boolean;
  firstSpawn: boolean;
  homeKnown: boolean;
}

/** The engine's claims, each with what the server extension says of it (nothing: a shared one). */
export function claimsOf(
  mounted: MountedClaim[],
  told: ITemplateClaim[] = []
): IClaim[] {
  return mounted.map(m => {
    const t = told.find(c => c.name === m.name && c.namespace === m.namespace);
    return {
      ...m,
      own: t?.own ?? false,
      firstSpawn: t?.firstSpawn ?? false,
      homeKnown: t?.homeKnown ?? true
    };
  });
}

/** "us-central1-b", "us-central1-b or us-central1-c". */
export function zonesText(zones: string[]): string {
  return zones.join(' or ');
}

/**
 * One sentence per claim: "Your home claim claim-alice is on a disk in us-central1-b: the
 * notebook can run only on a node in that zone."
 */
export function claimNote(
  c: IClaim,
  source?: IWorkerTemplate['source']
): string {
  const notebook = source === 'profile';
  const who = c.own ? `Your home claim ${c.name}` : `Claim ${c.name}`;
  if (!c.listed)
    return `${who} is not in the cluster: kube-scheduler leaves ${notebook ? 'the notebook' : 'every pod that mounts it'} Pending until it is.`;
  if (c.bound) {
    if (c.zones.length)
      return `${who} is on a disk in ${zonesText(c.zones)}: ${notebook ? 'the notebook can run only on a node' : 'its pods can run only on nodes'} in that zone.`;
    if (c.mountableNodes !== null)
      return `${who} is on volume ${c.volume}, which ${c.mountableNodes === 1 ? 'one node' : `${c.mountableNodes} nodes`} of the cluster can mount (its node affinity).`;
    return `${who} is on volume ${c.volume}, which any node can mount.`;
  }
  const cls = c.storageClass;
  const what = cls
    ? c.defaultClass
      ? `the default class ${cls}`
      : `class ${cls}`
    : 'no class';
  let where: string;
  if (!cls) where = 'it is bound only to a volume made for it beforehand';
  else if (c.bindingMode === 'WaitForFirstConsumer')
    where = `its disk is made in the zone of the node ${notebook ? 'the notebook lands on' : 'the first pod that mounts it lands on'}`;
  else if (c.bindingMode === 'Immediate')
    where = `its disk is made at once, before ${notebook ? 'the notebook is' : 'its pods are'} placed (Immediate binding)`;
  else where = 'the cluster does not list that class';
  if (c.firstSpawn) {
    const known = c.homeKnown
      ? 'you have none yet'
      : 'no claim of yours is known';
    return `${who} is the one your first spawn creates (${known}), with ${what}: ${where}.`;
  }
  return `${who} is not bound to a disk yet, with ${what}: ${where}.`;
}
