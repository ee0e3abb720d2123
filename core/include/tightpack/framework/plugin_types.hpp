// The plugins that are types (framework/plugin.hpp): their state is a slot
// of the plan's CycleState and the framework reaches their extension points
// through this list. A plugin added here needs no other line in the
// framework.
#pragma once

#include "tightpack/framework/plugin.hpp"
#include "tightpack/plugins/balanced_allocation.hpp"
#include "tightpack/plugins/cohort.hpp"
#include "tightpack/plugins/image_locality.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"
#include "tightpack/plugins/node_affinity.hpp"
#include "tightpack/plugins/node_name.hpp"
#include "tightpack/plugins/node_ports.hpp"
#include "tightpack/plugins/node_resources_fit.hpp"
#include "tightpack/plugins/node_unschedulable.hpp"
#include "tightpack/plugins/node_volume_limits.hpp"
#include "tightpack/plugins/pod_topology_spread.hpp"
#include "tightpack/plugins/taint_toleration.hpp"
#include "tightpack/plugins/volume_binding.hpp"
#include "tightpack/plugins/volume_restrictions.hpp"
#include "tightpack/plugins/volume_zone.hpp"

namespace tightpack {

// In PreFilter order: NodeName's restriction before NodeAffinity's. A pod
// that needs what the input lacks is refused for the first plugin in this
// order that says so: InterPodAffinity's namespaces before the volume
// plugins' claims.
using PluginTypes = PluginList<
    plugins::NodeUnschedulablePlugin, plugins::NodeNamePlugin, plugins::TaintTolerationPlugin,
    plugins::NodeAffinityPlugin, plugins::ImageLocalityPlugin, plugins::NodePortsPlugin,
    plugins::NodeResourcesFitPlugin, plugins::BalancedAllocationPlugin,
    plugins::PodTopologySpreadPlugin, plugins::InterPodAffinityPlugin, plugins::VolumeBindingPlugin,
    plugins::VolumeZonePlugin, plugins::VolumeRestrictionsPlugin, plugins::NodeVolumeLimitsPlugin,
    plugins::TightpackCohortPlugin>;
using CycleState = PluginStates<PluginTypes>;
using ScratchCounts = PluginCounts<PluginTypes>;

}  // namespace tightpack
