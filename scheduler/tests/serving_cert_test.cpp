// The secure port's certificate: the self-signed one a start makes, and the
// operator's files with clear errors.
#include "daemon/serving_cert.hpp"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <fstream>
#include <memory>

namespace tightpack::daemon {
namespace {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};

std::unique_ptr<X509, X509Free> parse(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return std::unique_ptr<X509, X509Free>(x);
}

std::filesystem::path write(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / ("serving_cert_test_" + name);
  std::ofstream(path) << text;
  return path;
}

TEST(ServingCertificate, SelfSignedCoversTheHostsAndMatchesItsKey) {
  auto made = self_signed_certificate({"localhost", "127.0.0.1", "tightpack-0"});
  ASSERT_TRUE(made) << made.error().what();
  auto cert = parse(made->cert_pem);
  ASSERT_TRUE(cert);
  EXPECT_EQ(X509_check_host(cert.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_host(cert.get(), "tightpack-0", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "127.0.0.1", 0), 1);
  EXPECT_NE(X509_check_host(cert.get(), "example.com", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_purpose(cert.get(), X509_PURPOSE_SSL_SERVER, 0), 1);
  EXPECT_LT(X509_cmp_current_time(X509_get0_notBefore(cert.get())), 0);
  EXPECT_GT(X509_cmp_current_time(X509_get0_notAfter(cert.get())), 0);
  // Two starts, two keys.
  auto again = self_signed_certificate({"localhost"});
  ASSERT_TRUE(again);
  EXPECT_NE(again->key_pem, made->key_pem);

  const auto c = write("ok.crt", made->cert_pem), k = write("ok.key", made->key_pem);
  auto loaded = load_serving_certificate(c.string(), k.string());
  ASSERT_TRUE(loaded) << loaded.error().what();
  EXPECT_EQ(loaded->cert_pem, made->cert_pem);
}

TEST(ServingCertificate, BadFilesNameTheFlagAndTheFile) {
  auto a = self_signed_certificate({"localhost"});
  auto b = self_signed_certificate({"localhost"});
  ASSERT_TRUE(a && b);
  const auto cert = write("a.crt", a->cert_pem), other_key = write("b.key", b->key_pem);
  const auto junk = write("junk", "not PEM\n");

  auto missing = load_serving_certificate("/nonexistent/tls.crt", other_key.string());
  ASSERT_FALSE(missing);
  EXPECT_NE(std::string(missing.error().what()).find("--tls-cert-file"), std::string::npos);
  EXPECT_NE(std::string(missing.error().what()).find("/nonexistent/tls.crt"), std::string::npos);

  auto not_pem = load_serving_certificate(junk.string(), other_key.string());
  ASSERT_FALSE(not_pem);
  EXPECT_NE(std::string(not_pem.error().what()).find("no PEM certificate"), std::string::npos);

  auto no_key = load_serving_certificate(cert.string(), junk.string());
  ASSERT_FALSE(no_key);
  EXPECT_NE(std::string(no_key.error().what()).find("--tls-private-key-file"), std::string::npos);

  auto mismatched = load_serving_certificate(cert.string(), other_key.string());
  ASSERT_FALSE(mismatched);
  EXPECT_NE(std::string(mismatched.error().what()).find("not the private key of the certificate"),
            std::string::npos);
}

}  // namespace
}  // namespace tightpack::daemon
