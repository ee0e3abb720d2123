// Pseudonyms for what /snapshot must not name (pods, namespaces,
// controllers): SipHash-2-4, Aumasson and Bernstein's keyed PRF, of the name
// under a key drawn for each snapshot. Without the key nobody can test a
// guessed name ("jupyter-alice") against a pseudonym, the next snapshot's
// key makes every pseudonym new, and a name gets the same pseudonym in one
// snapshot whatever order the names are met in, so the redaction needs no
// sort while it holds the cache's lock.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace tightpack::daemon {

using PseudonymKey = std::array<uint64_t, 2>;

// SipHash-2-4 of the concatenated `parts` (the reference's test vectors in
// daemon_cache_test.cpp).
inline uint64_t siphash24(const PseudonymKey& key, std::initializer_list<std::string_view> parts) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ key[0];
  uint64_t v1 = 0x646f72616e646f6dULL ^ key[1];
  uint64_t v2 = 0x6c7967656e657261ULL ^ key[0];
  uint64_t v3 = 0x7465646279746573ULL ^ key[1];
  auto rotl = [](uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  auto round = [&] {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  };
  auto compress = [&](uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  };
  uint64_t word = 0;  // bytes not yet compressed, little-endian
  size_t length = 0;
  for (std::string_view part : parts) {
    for (unsigned char c : part) {
      word |= uint64_t{c} << (8 * (length % 8));
      if (++length % 8 == 0) {
        compress(word);
        word = 0;
      }
    }
  }
  compress(word | (uint64_t{length & 0xff} << 56));
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace tightpack::daemon
