// Storage objects as the sidebar may be shown them: v1 JSON holding what
// scheduling reads of a claim, a volume or a class, and nothing else (no
// CSI volume attributes or secrets, no class parameters, no labels but a
// volume's, no status but its phase). core's decoder reads them back to the
// same objects (tested), but for a claim's spec.selector, which is left out
// (KubeSpawner's storage_selector is empty unless an operator sets it).
//
// Who sees what: StorageClasses are the cluster's and go to /snapshot, as do
// nodes. A user's home claims and their volumes go only to that user, on
// /home, after the hub vouches for the token (hub_auth.hpp).
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "daemon/object_store.hpp"
#include "tightpack/objects.hpp"

namespace tightpack::daemon {

boost::json::object published_claim(const PersistentVolumeClaim& claim);
boost::json::object published_volume(const PersistentVolume& volume);
boost::json::object published_storage_class(const StorageClass& storage_class);

// /home's answer for hub user `user`: {"user", "claims": [{"namespace",
// "name", "server", "volume"}], "items": [claims, then the volumes bound to
// them]}. Only claims KubeSpawner made for that user (HubOwner), and only in
// `hub_namespace` when it is set: a cluster with two hubs may have two
// users of one name.
boost::json::object home_answer(const ObjectStore& objects, const std::string& user,
                                const std::string& hub_namespace = "");

}  // namespace tightpack::daemon
