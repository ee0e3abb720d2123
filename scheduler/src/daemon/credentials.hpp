// What both of the secure port's authenticators (delegated_auth.hpp for
// Kubernetes tokens, hub_auth.hpp for JupyterHub's) read of a request: the
// token of its Authorization header, and a digest to cache answers by, so
// that no token is kept in memory as it came.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace tightpack::daemon {

// The token after one of `schemes` ("bearer", "token"; compared without
// case, RFC 6750) and a space, trimmed; "" when the scheme is another.
std::string authorization_token(std::string_view authorization,
                                std::initializer_list<std::string_view> schemes);

// SHA-256 of `text`, as 32 raw bytes.
std::string sha256(std::string_view text);

}  // namespace tightpack::daemon
