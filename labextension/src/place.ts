// One question to the engine, as every view asks it: `workers` copies of
// `pod` under a built-in scheduler profile, on the loaded cluster, with the
// API server's admission as the snapshot says the cluster runs it; and the
// advice the engine proves for the same question.
import type {
  Advice,
  BuiltInProfile,
  Placement,
  PlaceRequest
} from '@tightpack/wasm';
import { ILoadedCluster } from './session.js';
import { IPod } from './types.js';

export interface IPlaced {
  placement: Placement;
  profile: IProfileRef;
}

/** A profile place() takes: a built-in one, or one the cluster's configuration has. */
export interface IProfileRef {
  name: string;
  release: BuiltInProfile['release'];
}

type Answer<T> = { ok: true; value: T } | { ok: false; error: string };

function request(
  loaded: ILoadedCluster,
  pod: IPod,
  workers: number,
  profileName: string
): Answer<{ request: PlaceRequest; profile: IProfileRef }> {
  const { builtInProfiles, profiles } = loaded.summary;
  const builtIn = builtInProfiles.find(p => p.name === profileName);
  const profile: IProfileRef | undefined = builtIn
    ? { name: builtIn.name, release: builtIn.release }
    : profiles.includes(profileName)
      ? { name: profileName, release: null }
      : undefined;
  if (!profile)
    return {
      ok: false,
      error: `scheduler profile "${profileName}": expected one of ${profiles.join(', ')}`
    };
  return {
    ok: true,
    value: {
      profile,
      request: {
        pod,
        replicas: workers,
        profile: profile.name,
        ...(profile.release ? { release: profile.release } : {}),
        admission: {
          // null: the engine infers it from the nodes (GKE's API server runs it)
          extendedResourceToleration:
            loaded.envelope.admission?.extendedResourceToleration ?? null
        }
      }
    }
  };
}

export function placeWorkers(
  loaded: ILoadedCluster,
  pod: IPod,
  workers: number,
  profileName: string
): Answer<IPlaced> {
  const r = request(loaded, pod, workers, profileName);
  if (!r.ok) return r;
  const placed = loaded.cluster.place(r.value.request);
  if (!placed.ok) return placed;
  return {
    ok: true,
    value: { placement: placed.value, profile: r.value.profile }
  };
}

/**
 * The tiling and the fixes for the same question: every fix was decided
 * again by the engine. null when the cluster has no pools (none in the
 * snapshot, no pool labels on its nodes): there is nothing to tile or grow.
 */
export function adviseWorkers(
  loaded: ILoadedCluster,
  pod: IPod,
  workers: number,
  profileName: string
): Answer<Advice | null> {
  if (!(loaded.summary.pools ?? []).length) return { ok: true, value: null };
  const r = request(loaded, pod, workers, profileName);
  if (!r.ok) return r;
  return loaded.cluster.advise(r.value.request);
}
