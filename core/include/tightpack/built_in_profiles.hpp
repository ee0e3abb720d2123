// The profiles every caller may name without a configuration file: the corpus
// format, `tightpack predict`, the what-if layer and the sidebar all resolve a
// name here, so that the engine answers the same in the browser as natively.
#pragma once

#include <boost/json/value.hpp>
#include <span>
#include <string>
#include <string_view>

#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {

// What a built-in profile is called, the schedulerName its real counterpart
// runs under, the kube-scheduler release it runs (empty: the newest modelled),
// a line that says what it does, and its KubeSchedulerConfiguration document.
struct BuiltInProfile {
  const char* name;
  const char* scheduler_name;
  const char* release;
  const char* description;
  boost::json::value (*config)();
};

// default, most-allocated (zero-to-jupyterhub's user-scheduler), rtc, tightpack.
std::span<const BuiltInProfile> built_in_profiles();

// "default, most-allocated, rtc, tightpack": for messages.
std::string built_in_profile_names();

// The configuration document of the built-in profile `name`, or an error at
// `path` that lists the names there are.
Result<boost::json::value> built_in_scheduler_config(std::string_view name, const JsonPath& path);

// The first profile of that document, decoded.
Result<Profile> built_in_profile(std::string_view name, const JsonPath& path = JsonPath());

// The texts of the configuration files shipped in config/ (tests check that the
// files and these agree); tightpack.yaml's profile is derived from the z2jh one.
extern const char* const kDefaultSchedulerConfig;   // config/default-scheduler.yaml
extern const char* const kZ2jhUserSchedulerConfig;  // config/z2jh-user-scheduler.yaml

}  // namespace tightpack
