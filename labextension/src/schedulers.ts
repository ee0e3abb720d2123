// The scheduler profiles the form offers, each with the scheduler of this
// cluster that runs its rules: the code the sidebar writes names a scheduler
// only when the cluster says one exists, never a guess.
//
// What the cluster says: the configuration the tightpack scheduler
// publishes with its snapshot (its own profiles, by their schedulerName), and
// the hub's KubeSpawner settings (zero-to-jupyterhub sets scheduler_name to
// its user-scheduler's, "<release>-user-scheduler", when that is enabled).
// kube-scheduler's own, default-scheduler, is in every cluster.
import type { BuiltInProfile, ClusterSummary, Release } from '@tightpack/wasm';
import { ISnapshotEnvelope } from './types.js';

export interface ISchedulerChoice {
  /** What place() takes as the profile. */
  value: string;
  /** The option's text: the scheduler's name here, short enough for the panel. */
  label: string;
  /** What its rules are, shown under the select. */
  description: string;
  /** The kube-scheduler release the rules are decided as; null: the newest. */
  release: Release | null;
  /**
   * The schedulerName of the scheduler in this cluster that runs these
   * rules ("default-scheduler" for kube-scheduler's own); null when none does.
   */
  schedulerName: string | null;
  /** How that is known, or that no scheduler here runs the rules. */
  note: string;
}

const DEFAULT_SCHEDULER = 'default-scheduler';

function hubSchedulerName(envelope: ISnapshotEnvelope): string | null {
  const name = envelope.kubespawnerDefaults?.['scheduler_name'];
  return typeof name === 'string' && name && name !== DEFAULT_SCHEDULER
    ? name
    : null;
}

export function schedulerChoices(
  summary: ClusterSummary,
  envelope: ISnapshotEnvelope
): ISchedulerChoice[] {
  // summary.profiles lists the configuration's profiles, then the built-in ones.
  const configured = summary.profiles.slice(
    0,
    summary.profiles.length - summary.builtInProfiles.length
  );
  const published = new Set(configured);
  const out: ISchedulerChoice[] = configured.map(name => ({
    value: name,
    label: name,
    description: `this cluster's scheduler ${name}, as its configuration is published`,
    release: null,
    schedulerName: name,
    note: `${name} is a scheduler this cluster runs: its configuration came with the snapshot.`
  }));
  const hub = hubSchedulerName(envelope);
  for (const p of summary.builtInProfiles) {
    // A configured profile of the same name is the one the engine uses.
    if (published.has(p.name)) continue;
    out.push(builtInChoice(p, hub && !published.has(hub) ? hub : null));
  }
  return out;
}

function builtInChoice(
  p: BuiltInProfile,
  hub: string | null
): ISchedulerChoice {
  const choice = {
    value: p.name,
    release: p.release,
    description: p.description
  };
  if (p.schedulerName === DEFAULT_SCHEDULER && p.name === 'default')
    return {
      ...choice,
      label: DEFAULT_SCHEDULER,
      schedulerName: DEFAULT_SCHEDULER,
      note: "kube-scheduler's own scheduler, default-scheduler, places pods that name no other."
    };
  if (p.name === 'most-allocated' && hub)
    return {
      ...choice,
      label: hub,
      schedulerName: hub,
      note: `${hub} is the hub's user-scheduler, as the hub's KubeSpawner settings name it.`
    };
  return {
    ...choice,
    label: `${p.name} (not in this cluster)`,
    description: `${p.description}: no scheduler here runs these rules`,
    schedulerName: null,
    note: `No scheduler in this cluster is known to run these rules (${p.name}): the code names none, so kube-scheduler's default would place the workers, not as shown.`
  };
}

/** The choice whose scheduler is `schedulerName` (a pod's), if one is. */
export function choiceFor(
  choices: ISchedulerChoice[],
  schedulerName: string | undefined
): ISchedulerChoice | undefined {
  const name = schedulerName || DEFAULT_SCHEDULER;
  return choices.find(c => c.schedulerName === name);
}
