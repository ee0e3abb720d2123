// What /snapshot publishes of a bound pod but for its name, namespace, owner
// name and node, as JSON text: a PodGroup's template (core's visit_objects).
// Only what placement and scale-down read: requests, limits, host ports,
// priority, tolerations, node selector, owner kind, cluster-autoscaler's
// annotations, emptyDir volumes; nothing that names a user, image or label.
// The cache keeps it with each pod (interned: pods alike share it), so a
// snapshot does not write it again under the cache's lock.
#pragma once

#include <string>

#include "tightpack/autoscaler/scenario.hpp"

namespace tightpack::daemon {

std::string published_template(const autoscaler::CaPod& pod);

// What a sidebar that decodes the template reads of the pod: the pod with
// every field the template withholds cleared, each for its reason. A field
// the decoder comes to read is kept here until it is withheld by name, so
// the test that holds the template to this view fails until someone decides.
autoscaler::CaPod published_view(const autoscaler::CaPod& pod);

}  // namespace tightpack::daemon
