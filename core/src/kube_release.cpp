#include "tightpack/kube_release.hpp"

#include "tightpack/profile.hpp"

namespace tightpack::kube_release {

std::optional<Error> apply(Profile& profile, std::string_view release, std::string_view field) {
  if (release == "v1.37") {
    profile.kube_minor = 37;
  } else if (release == "v1.36") {
    profile.kube_minor = 36;
  } else if (release == "v1.35") {
    profile.kube_minor = 35;
  } else if (release == "v1.30") {
    profile.kube_minor = 30;
  } else {
    return Error{std::string(field),
                 "unknown kube-scheduler release " + quote_value(release) + " (" + kNames + ")"};
  }
  if (!dra_in_default_profile(profile.kube_minor)) profile.dra_post_filter = false;
  return std::nullopt;
}

}  // namespace tightpack::kube_release
