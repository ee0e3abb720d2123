// Kubernetes timestamps (metav1.Time: RFC 3339 in UTC, "2026-11-30T10:00:00Z",
// or with an offset or fractional seconds) as seconds since the Unix epoch,
// without the C library's time zone machinery, so that the browser build
// reads them as the native one does.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tightpack {

// std::nullopt when `text` is not an RFC 3339 date-time.
std::optional<int64_t> rfc3339_seconds(std::string_view text);

}  // namespace tightpack
