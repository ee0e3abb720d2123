#include "daemon/serving_cert.hpp"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>

#include "read_file.hpp"

namespace tightpack::daemon {

namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

std::string openssl_error() {
  const unsigned long e = ERR_get_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

bool is_ip(const std::string& host) {
  ASN1_OCTET_STRING* ip = a2i_IPADDRESS(host.c_str());
  ASN1_OCTET_STRING_free(ip);
  return ip != nullptr;
}

}  // namespace

Result<ServingCertificate> self_signed_certificate(const std::vector<std::string>& hosts,
                                                   std::chrono::hours validity) {
  const std::string what = "self-signed serving certificate";
  if (hosts.empty()) return Error{what, "no host name to issue it for"};
  Key key(EVP_EC_gen("P-256"));
  if (!key) return Error{what, "cannot make an ECDSA key: " + openssl_error()};
  Cert cert(X509_new());
  if (!cert) return Error{what, openssl_error()};
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1)
    return Error{what, "no randomness: " + openssl_error()};
  serial[0] &= 0x7f;  // a positive serial number
  std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>> bn(BN_bin2bn(serial, sizeof serial, nullptr));
  BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()));
  // From an hour ago, as client-go's cert utility does, for clocks a little behind.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(validity.count()) * 3600);
  X509_set_pubkey(cert.get(), key.get());
  // kube-scheduler names its own "<host>@<unix time>" and so does this one.
  const std::string cn = hosts.front() + "@" + std::to_string(std::time(nullptr));
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  std::string san;
  for (const auto& h : hosts)
    san += (san.empty() ? "" : ",") + std::string(is_ip(h) ? "IP:" : "DNS:") + h;
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  for (const auto& [nid, value] : {std::pair<int, std::string>{NID_subject_alt_name, san},
                                   {NID_basic_constraints, "critical,CA:FALSE"},
                                   {NID_key_usage, "critical,digitalSignature"},
                                   {NID_ext_key_usage, "serverAuth"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (!ext) return Error{what, "extension " + value + ": " + openssl_error()};
    X509_add_ext(cert.get(), ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0)
    return Error{what, "cannot sign: " + openssl_error()};
  Bio cert_bio(BIO_new(BIO_s_mem())), key_bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(cert_bio.get(), cert.get()) ||
      !PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
    return Error{what, "cannot encode: " + openssl_error()};
  }
  return ServingCertificate{bio_text(cert_bio.get()), bio_text(key_bio.get())};
}

Result<ServingCertificate> load_serving_certificate(const std::string& cert_file,
                                                    const std::string& key_file) {
  ServingCertificate out;
  out.cert_file = cert_file;
  out.key_file = key_file;
  if (!read_file(cert_file, out.cert_pem))
    return Error{"--tls-cert-file", "cannot read " + quote_value(cert_file)};
  if (!read_file(key_file, out.key_pem))
    return Error{"--tls-private-key-file", "cannot read " + quote_value(key_file)};
  Bio cb(BIO_new_mem_buf(out.cert_pem.data(), static_cast<int>(out.cert_pem.size())));
  Cert cert(PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr));
  if (!cert)
    return Error{"--tls-cert-file",
                 quote_value(cert_file) + " holds no PEM certificate: " + openssl_error()};
  Bio kb(BIO_new_mem_buf(out.key_pem.data(), static_cast<int>(out.key_pem.size())));
  Key key(PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr));
  if (!key) {
    return Error{"--tls-private-key-file",
                 quote_value(key_file) + " holds no PEM private key: " + openssl_error()};
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return Error{"--tls-private-key-file", quote_value(key_file) +
                                               " is not the private key of the certificate in " +
                                               quote_value(cert_file)};
  }
  return out;
}

}  // namespace tightpack::daemon
