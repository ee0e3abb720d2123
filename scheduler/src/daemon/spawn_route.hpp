// POST /spawn/v1/profiles: the hub's spawn page asks, for one user before she
// presses Start, what each profile's pod would do on the cluster now (a node
// has room; cluster-autoscaler adds one, ready in about N minutes; or neither,
// and why). The question and answer are tightpack/what_if/spawn_question.hpp:
// the pods KubeSpawner's own make_pod built with the hub's settings, her home
// claim as make_pvc makes it, and per pod an outlook that names no node, pod
// or other user.
//
// The hub asks on the user's behalf with its service account's token: the
// caller must be allowed to create pods in the question's namespace (a
// SubjectAccessReview; zero-to-jupyterhub's hub may, it spawns there). Who
// may create pods there can learn what such a pod would do by creating one;
// this answers without the pod. A user's browser never reaches the daemon.
#pragma once

#include <chrono>

#include "daemon/delegated_auth.hpp"
#include "daemon/http_server.hpp"
#include "daemon/scheduler.hpp"

namespace tightpack::daemon {

// Questions are answered one at a time; one that waits longer than this for
// its turn gets 429 (the hub's page is drawn without the answers).
inline constexpr std::chrono::seconds kSpawnQueueWait{2};

HttpAnswer spawn_answer(const HttpRequest& request, DelegatedAuth& auth, Scheduler& scheduler);

}  // namespace tightpack::daemon
