// What the mover's two files share: the dask-kubernetes operator's API paths
// and the clock a move's state is written in.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace tightpack::daemon {

inline constexpr std::string_view kDaskApi = "/apis/kubernetes.dask.org/v1";

inline std::string dask_path(std::string_view kind, const std::string& ns,
                             const std::string& name) {
  return std::string(kDaskApi) + "/namespaces/" + ns + "/" + std::string(kind) + "/" + name;
}

// Unix seconds: a move's state outlives the daemon that wrote it.
inline int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tightpack::daemon
