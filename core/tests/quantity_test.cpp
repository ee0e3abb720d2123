#include "tightpack/quantity.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace tightpack {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t value(std::string_view s) {
  auto q = Quantity::parse(s);
  if (!q) {
    ADD_FAILURE() << s << ": " << q.error().what();
    return INT64_MIN;
  }
  return q->value();
}

int64_t milli(std::string_view s) {
  auto q = Quantity::parse(s);
  if (!q) {
    ADD_FAILURE() << s << ": " << q.error().what();
    return INT64_MIN;
  }
  return q->milli_value();
}

// The parse error for `s`, or an empty Error when it parses.
Error parse_error(std::string_view s) {
  auto q = Quantity::parse(s);
  if (q) {
    ADD_FAILURE() << "\"" << s << "\" parsed, expected an error";
    return {};
  }
  return q.error();
}

TEST(Quantity, DecimalSuffixes) {
  EXPECT_EQ(value("1"), 1);
  EXPECT_EQ(value("1k"), 1000);
  EXPECT_EQ(value("1M"), 1000000);
  EXPECT_EQ(value("1G"), 1000000000);
  EXPECT_EQ(value("1T"), 1000000000000);
  EXPECT_EQ(value("1P"), 1000000000000000);
  EXPECT_EQ(value("1E"), 1000000000000000000);
  EXPECT_EQ(value("3k"), 3000);
  EXPECT_EQ(milli("1"), 1000);
  EXPECT_EQ(milli("1m"), 1);
  EXPECT_EQ(milli("100m"), 100);
  EXPECT_EQ(milli("2k"), 2000000);
}

TEST(Quantity, SubUnitSuffixesRoundUp) {
  // Value() and MilliValue() are ceilings: any non-zero amount is at least one unit.
  EXPECT_EQ(value("1n"), 1);
  EXPECT_EQ(value("1u"), 1);
  EXPECT_EQ(value("1m"), 1);
  EXPECT_EQ(value("1000m"), 1);
  EXPECT_EQ(value("1001m"), 2);
  EXPECT_EQ(milli("1n"), 1);
  EXPECT_EQ(milli("1u"), 1);
  EXPECT_EQ(milli("1000u"), 1);
  EXPECT_EQ(milli("1001u"), 2);
  EXPECT_EQ(milli("999999n"), 1);
  EXPECT_EQ(milli("1000000n"), 1);
  EXPECT_EQ(milli("1000001n"), 2);
  EXPECT_EQ(milli("1500000u"), 1500);
}

TEST(Quantity, BinarySuffixes) {
  EXPECT_EQ(value("1Ki"), 1024);
  EXPECT_EQ(value("1Mi"), 1048576);
  EXPECT_EQ(value("1Gi"), 1073741824);
  EXPECT_EQ(value("1Ti"), 1099511627776);
  EXPECT_EQ(value("1Pi"), 1125899906842624);
  EXPECT_EQ(value("1Ei"), 1152921504606846976);
  EXPECT_EQ(value("7Ei"), 8070450532247928832);
  EXPECT_EQ(value("200Mi"), 209715200);
  EXPECT_EQ(milli("1Ki"), 1024000);
}

TEST(Quantity, Exponents) {
  EXPECT_EQ(value("1e3"), 1000);
  EXPECT_EQ(value("1E3"), 1000);
  EXPECT_EQ(value("1e+3"), 1000);
  EXPECT_EQ(value("1e0"), 1);
  EXPECT_EQ(milli("1E-3"), 1);
  EXPECT_EQ(value("1E-3"), 1);  // 0.001 rounds up to one
  EXPECT_EQ(milli("1.5e3"), 1500000);
  EXPECT_EQ(value("12e-1"), 2);
  EXPECT_EQ(milli("12e-1"), 1200);
  EXPECT_EQ(value("5e18"), 5000000000000000000);
  EXPECT_EQ(milli("25e-5"), 1);  // 0.25m
}

TEST(Quantity, Fractions) {
  EXPECT_EQ(value("1.5Gi"), 1610612736);
  // 0.1 × 2^30 = 107374182.4 bytes: Value() rounds up.
  EXPECT_EQ(value("0.1Gi"), 107374183);
  EXPECT_EQ(value("0.5Ki"), 512);
  EXPECT_EQ(value("2.5k"), 2500);
  EXPECT_EQ(milli("1.5"), 1500);
  EXPECT_EQ(milli("0.5"), 500);
  EXPECT_EQ(milli("0.25"), 250);
  EXPECT_EQ(milli("100.1m"), 101);
}

TEST(Quantity, KubernetesLeniencies) {
  // parseQuantityString accepts a missing integer part and an empty fraction.
  EXPECT_EQ(milli(".5"), 500);
  EXPECT_EQ(value("1."), 1);
  EXPECT_EQ(milli("1.m"), 1);
  EXPECT_EQ(value("1.G"), 1000000000);
  EXPECT_EQ(value("."), 0);
  // A bare suffix or sign has an implied zero.
  EXPECT_EQ(value("m"), 0);
  EXPECT_EQ(value("Ki"), 0);
  EXPECT_EQ(value("-"), 0);
  EXPECT_EQ(value("+"), 0);
}

TEST(Quantity, Signs) {
  EXPECT_EQ(value("+1"), 1);
  EXPECT_EQ(milli("+0.5"), 500);
  EXPECT_EQ(value("-1"), -1);
  EXPECT_EQ(milli("-1"), -1000);
  EXPECT_EQ(value("-1Ki"), -1024);
  EXPECT_TRUE(Quantity::parse("-1")->negative());
  EXPECT_FALSE(Quantity::parse("+1")->negative());
  // Zero has no sign.
  EXPECT_FALSE(Quantity::parse("-0")->negative());
  EXPECT_TRUE(Quantity::parse("-0")->is_zero());
  EXPECT_EQ(value("-0"), 0);
  EXPECT_EQ(value("-0.000m"), 0);
}

TEST(Quantity, LeadingZeros) {
  EXPECT_EQ(value("007"), 7);
  EXPECT_EQ(value("000"), 0);
  EXPECT_EQ(milli("00.5"), 500);
  EXPECT_EQ(milli("0.0010"), 1);
  EXPECT_EQ(value("0001Ki"), 1024);
  EXPECT_TRUE(Quantity::parse("0000")->is_zero());
  EXPECT_TRUE(Quantity::parse("0.000")->is_zero());
}

TEST(Quantity, MilliRoundsUp) {
  // Quantity.MilliValue is ceil(q × 1000).
  EXPECT_EQ(milli("0.0001"), 1);
  EXPECT_EQ(milli("0.0011"), 2);
  EXPECT_EQ(milli("0.001"), 1);
  EXPECT_EQ(milli("1.0001"), 1001);
  EXPECT_EQ(milli("0.1m"), 1);
  EXPECT_EQ(milli("1e-30"), 1);  // far below one unit, still rounds up
  EXPECT_EQ(value("1e-30"), 1);
}

TEST(Quantity, NegativeValues) {
  // An int64Amount rounds away from zero.
  EXPECT_EQ(value("-1.5"), -2);
  EXPECT_EQ(value("-100m"), -1);
  EXPECT_EQ(value("-1001m"), -2);
  EXPECT_EQ(milli("-0.0001"), -1);
  EXPECT_EQ(milli("-0.1m"), -1);
  // An inf.Dec (a binary fraction) divides -U truncating and adds one for a
  // remainder: -107374182.4 becomes -107374181, as apimachinery answers.
  EXPECT_EQ(value("-0.1Gi"), -107374181);
}

TEST(Quantity, KeepsText) {
  auto q = Quantity::parse("1.5Gi");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->text(), "1.5Gi");
  EXPECT_FALSE(q->is_zero());
}

TEST(Quantity, ErrorsNameTheValue) {
  struct Case {
    const char* text;
    const char* quoted;
  };
  for (const Case& c :
       {Case{"", "\"\""}, Case{"12Qi", "\"12Qi\""}, Case{"1..2", "\"1..2\""}, Case{"1K", "\"1K\""},
        Case{"1e", "\"1e\""}, Case{"abc", "\"abc\""}, Case{"1.5.5", "\"1.5.5\""},
        Case{" 1", "\" 1\""}, Case{"1 ", "\"1 \""}, Case{"0x10", "\"0x10\""},
        Case{"1Mi5", "\"1Mi5\""}, Case{"--1", "\"--1\""}, Case{"1e3.5", "\"1e3.5\""},
        Case{"1e+-3", "\"1e+-3\""}, Case{"1E3i", "\"1E3i\""}, Case{"1i", "\"1i\""},
        Case{"1KiB", "\"1KiB\""}, Case{"1Ki ", "\"1Ki \""}}) {
    Error e = parse_error(c.text);
    EXPECT_NE(e.message.find(std::string("invalid quantity ") + c.quoted), std::string::npos)
        << c.text << " -> " << e.message;
  }
  EXPECT_NE(parse_error("").message.find("empty"), std::string::npos);
  // 'Q' is not a suffix character at all; 'K' is, but "K" is no suffix.
  EXPECT_NE(parse_error("12Qi").message.find("not a number"), std::string::npos);
  EXPECT_NE(parse_error("12K").message.find("unknown suffix"), std::string::npos);
}

// Beyond int64, Value() and MilliValue() answer as apimachinery's do, by the
// form ParseQuantity gives the amount (tests/conformance/quantities.py holds the
// whole grammar to the Go code; these are its landmarks).
TEST(Quantity, BeyondInt64AsKubernetesCountsIt) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // int64Amount{1, 30}: scaling by 10^30 overflows in a loop that answers 0.
  EXPECT_EQ(value("1e30"), 0);
  EXPECT_EQ(milli("1e30"), 0);
  EXPECT_EQ(value("10E"), 0);
  EXPECT_EQ(value("1e19"), 0);
  EXPECT_EQ(value("-10E"), 0);
  // BinarySI beyond 2^63 - 1 is capped there; MilliValue multiplies the cap by 1000, wrapping.
  EXPECT_EQ(value("9Ei"), kMax);
  EXPECT_EQ(value("8Ei"), kMax);  // exactly 2^63
  EXPECT_EQ(milli("9Ei"), -1000);
  EXPECT_EQ(value("12345678901234567890123Ki"), kMax);
  // An inf.Dec (19 or more digits): the low 64 bits of the ceiling.
  EXPECT_EQ(value("9223372036854775808"), kMin);
  EXPECT_EQ(value("9223372036854775807.1"), kMin);
  EXPECT_EQ(value("99999999999999999999"), 7766279631452241919);
  EXPECT_EQ(milli("7Ei"), kMin);
  // Scaling by 10^3 is one multiplication whose wrapped product is kept.
  EXPECT_EQ(milli("9223372036854776"), -9223372036854775616);
  // The exponent is an int64 cut to int32, and int32 sums wrap.
  EXPECT_EQ(value("1e4294967296"), 1);
  EXPECT_EQ(milli("1e2147483647"), 1);
  EXPECT_EQ(milli("1.5e-2147483648"), 15);
  // Without a digit, the inf.Dec path has nothing to parse.
  EXPECT_FALSE(Quantity::parse("e-33"));
  EXPECT_EQ(value("m"), 0);
}

TEST(Quantity, LimitsOfInt64) {
  EXPECT_EQ(value("9223372036854775807"), kMax);
  // 19 digits make an inf.Dec; its negative nano amount's low bits give 1.
  EXPECT_EQ(value("-9223372036854775807"), 1);
  EXPECT_EQ(milli("9223372036854775807m"), kMax);
  EXPECT_EQ(milli("9223372036854775.807"), kMax);
  EXPECT_EQ(milli("9223372036854775"), 9223372036854775000);
  EXPECT_EQ(value("9223372036854775806.1"), kMax);
}

TEST(Quantity, TenMegabyteInputsAnswerQuickly) {
  const size_t kSize = 10 * 1024 * 1024;
  auto start = std::chrono::steady_clock::now();

  // 111…1 modulo 2^64, as big.Int.Int64() takes it.
  std::string ones(kSize, '1');
  uint64_t low = 0;
  for (size_t i = 0; i < kSize; ++i) low = low * 10 + 1;
  EXPECT_EQ(value(ones), static_cast<int64_t>(low));

  std::string zeros(kSize, '0');
  EXPECT_EQ(value(zeros), 0);

  // 0.000…001: far below a milli, rounds up to one.
  std::string tiny = "0." + std::string(kSize, '0') + "1";
  EXPECT_EQ(milli(tiny), 1);

  // 1.000…000Ei: long, but exactly 2^60.
  std::string long_exact = "1." + std::string(kSize, '0') + "Ei";
  EXPECT_EQ(value(long_exact), 1152921504606846976);

  std::string garbage(kSize, '1');
  garbage[kSize / 2] = 'x';
  auto g = Quantity::parse(garbage);
  ASSERT_FALSE(g);
  EXPECT_LT(g.error().message.size(), 300u);

  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(), 10);
}

TEST(QuantityFormat, Milli) {
  EXPECT_EQ(format_milli(1500), "1500m");
  EXPECT_EQ(format_milli(2000), "2");
  EXPECT_EQ(format_milli(2000000), "2k");
  EXPECT_EQ(format_milli(2500000), "2500");
  EXPECT_EQ(format_milli(2500000000), "2500k");
  EXPECT_EQ(format_milli(100), "100m");
  EXPECT_EQ(format_milli(1), "1m");
  EXPECT_EQ(format_milli(0), "0");
  EXPECT_EQ(format_milli(-1500), "-1500m");
  EXPECT_EQ(format_milli(-2000), "-2");
}

TEST(QuantityFormat, Decimal) {
  EXPECT_EQ(format_decimal(0), "0");
  EXPECT_EQ(format_decimal(2), "2");
  EXPECT_EQ(format_decimal(999), "999");
  EXPECT_EQ(format_decimal(1000), "1k");
  EXPECT_EQ(format_decimal(2000), "2k");
  EXPECT_EQ(format_decimal(1500), "1500");
  EXPECT_EQ(format_decimal(1234000), "1234k");
  EXPECT_EQ(format_decimal(2000000), "2M");
  EXPECT_EQ(format_decimal(3000000000), "3G");
  EXPECT_EQ(format_decimal(4000000000000), "4T");
  EXPECT_EQ(format_decimal(5000000000000000), "5P");
  EXPECT_EQ(format_decimal(1000000000000000000), "1E");
  EXPECT_EQ(format_decimal(-3000), "-3k");
}

TEST(QuantityFormat, Bytes) {
  EXPECT_EQ(format_bytes(kMax), "9223372036854775807");
  EXPECT_EQ(format_bytes(1073741824), "1Gi");
  EXPECT_EQ(format_bytes(1536LL * 1024 * 1024), "1536Mi");
  EXPECT_EQ(format_bytes(1500), "1500");
  EXPECT_EQ(format_bytes(1023), "1023");
  EXPECT_EQ(format_bytes(1024), "1Ki");
  EXPECT_EQ(format_bytes(1536), "1536");
  EXPECT_EQ(format_bytes(0), "0");
  EXPECT_EQ(format_bytes(512), "512");
  EXPECT_EQ(format_bytes(209715200), "200Mi");
  EXPECT_EQ(format_bytes(1000000000), "1000000000");  // not a power-of-1024 multiple
  EXPECT_EQ(format_bytes(7 * 1152921504606846976LL), "7Ei");
  EXPECT_EQ(format_bytes(-1024), "-1Ki");
  EXPECT_EQ(format_bytes(-1023), "-1023");
}

TEST(QuantityFormat, BytesBelowOneKibibyteAreDecimalSI) {
  // Quantity.CanonicalizeBytes switches BinarySI amounts in (-1024, 1024) to
  // DecimalSI, so NewQuantity(1000, BinarySI).String() is "1k".
  EXPECT_EQ(format_bytes(1000), "1k");
  EXPECT_EQ(format_bytes(-1000), "-1k");
  EXPECT_EQ(format_bytes(100), "100");
}

TEST(QuantityFormat, RoundTrips) {
  for (int64_t m : {0LL, 1LL, 250LL, 1000LL, 1500LL, 64000LL, 123456789LL, 1000000000000LL}) {
    EXPECT_EQ(milli(format_milli(m)), m) << format_milli(m);
  }
  for (int64_t b :
       {0LL, 1LL, 1000LL, 1023LL, 1024LL, 1536LL, 209715200LL, 1LL << 40, 123456789012LL}) {
    EXPECT_EQ(value(format_bytes(b)), b) << format_bytes(b);
    EXPECT_EQ(value(format_decimal(b)), b) << format_decimal(b);
  }
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

// The allocation-free path must agree with the exact one wherever it answers.
TEST(QuantityFastPath, AgreesWithTheExactParser) {
  std::mt19937_64 rng(11);
  const std::vector<std::string> suffixes = {"",   "m",  "k",  "M",   "G",   "T",   "P",
                                             "E",  "n",  "u",  "Ki",  "Mi",  "Gi",  "Ti",
                                             "Pi", "Ei", "e3", "E-2", "e+5", "e-12"};
  std::uniform_int_distribution<int> len(1, 20), digit(0, 9), pick(0, 99);
  int answered = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string text;
    if (pick(rng) < 5) text += pick(rng) < 50 ? "-" : "+";
    int n = len(rng);
    for (int k = 0; k < n; ++k) text += static_cast<char>('0' + digit(rng));
    if (pick(rng) < 40) {
      text += '.';
      int f = len(rng) / 3;
      for (int k = 0; k < f; ++k) text += static_cast<char>('0' + digit(rng));
    }
    text += suffixes[static_cast<size_t>(pick(rng)) % suffixes.size()];
    for (int shift : {0, 3}) {
      auto fast = Quantity::fast_scaled(text, shift);
      if (!fast) continue;
      ++answered;
      auto q = Quantity::parse(text);
      ASSERT_TRUE(q) << text;
      ASSERT_EQ(*fast, shift == 3 ? q->milli_value() : q->value()) << text << " shift " << shift;
    }
  }
  EXPECT_GT(answered, 100000);
  EXPECT_EQ(Quantity::fast_scaled("100m", 3), 100);
  EXPECT_EQ(Quantity::fast_scaled("0.1Gi", 0), 107374183);
  EXPECT_FALSE(Quantity::fast_scaled("12Qi", 0));
  EXPECT_FALSE(Quantity::fast_scaled("-1", 0));
}

}  // namespace
}  // namespace tightpack
