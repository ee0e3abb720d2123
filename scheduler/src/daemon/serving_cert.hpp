// The certificate the daemon's secure port serves: the operator's (a
// Secret's tls.crt and tls.key), or, as kube-scheduler does without one, a
// self-signed certificate made in memory at start for the names the daemon
// answers to. Clients that cannot verify it (Prometheus with
// insecure_skip_verify, the sidebar's server) still get an encrypted channel,
// so a bearer token never crosses the pod network in the clear.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tightpack/error.hpp"

namespace tightpack::daemon {

struct ServingCertificate {
  std::string cert_pem;  // the leaf first, then any chain
  std::string key_pem;
  // Where it was read from (load_serving_certificate); empty for one made in
  // memory. The secure port reads these again when they change: a rotated
  // Secret reaches the mounted files, and the next connections get it.
  std::string cert_file, key_file;
};

// An ECDSA P-256 key and a certificate signed by it, valid for `validity`
// from an hour ago, for the DNS names and IP addresses in `hosts`.
Result<ServingCertificate> self_signed_certificate(
    const std::vector<std::string>& hosts,
    std::chrono::hours validity = std::chrono::hours(24 * 365));

// Reads a PEM certificate (chain) and its private key, and checks that they
// belong together; errors name the flag and the file.
Result<ServingCertificate> load_serving_certificate(const std::string& cert_file,
                                                    const std::string& key_file);

}  // namespace tightpack::daemon
