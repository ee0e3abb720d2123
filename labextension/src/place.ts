// One question to the engine, as every view asks it: `workers` copies of
// `pod` under a built-in scheduler profile, on the loaded cluster, with the
// API server's admission as the snapshot says the cluster runs it.
import type { BuiltInProfile, Placement } from '@tightpack/wasm';
import { ILoadedCluster } from './session.js';
import { IPod } from './types.js';

export interface IPlaced {
  placement: Placement;
  profile: BuiltInProfile;
}

export function placeWorkers(
  loaded: ILoadedCluster,
  pod: IPod,
  workers: number,
  profileName: string
): { ok: true; value: IPlaced } | { ok: false; error: string } {
  const profiles = loaded.summary.builtInProfiles;
  const profile = profiles.find(p => p.name === profileName);
  if (!profile)
    return {
      ok: false,
      error: `scheduler profile "${profileName}": expected one of ${profiles.map(p => p.name).join(', ')}`
    };
  const placed = loaded.cluster.place({
    pod,
    replicas: workers,
    profile: profile.name,
    ...(profile.release ? { release: profile.release } : {}),
    admission: {
      extendedResourceToleration:
        loaded.envelope.admission?.extendedResourceToleration ?? false
    }
  });
  if (!placed.ok) return placed;
  return { ok: true, value: { placement: placed.value, profile } };
}
