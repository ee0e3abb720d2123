#include "daemon/credentials.hpp"

#include <openssl/sha.h>

#include <cctype>

namespace tightpack::daemon {

std::string authorization_token(std::string_view authorization,
                                std::initializer_list<std::string_view> schemes) {
  const size_t space = authorization.find(' ');
  if (space == std::string_view::npos) return "";
  std::string scheme(authorization.substr(0, space));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool known = false;
  for (std::string_view s : schemes) known = known || scheme == s;
  if (!known) return "";
  std::string_view token = authorization.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return std::string(token);
}

std::string sha256(std::string_view text) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), out);
  return std::string(reinterpret_cast<const char*>(out), sizeof out);
}

}  // namespace tightpack::daemon
