// quantity_values: what tightpack's Quantity makes of each spelling, in the
// shape `kube-scheduler-reference --quantities` prints (quantities.py compares
// the two). One JSON string per input line; per output line
// {"value":V,"milli":M} or {"error":"…"}. A spelling whose allocation-free
// path (Quantity::fast_scaled, which the decoder tries first) answers
// differently from the exact one is printed as an error naming both, so that
// the comparison fails on it.
#include <boost/json.hpp>
#include <iostream>
#include <string>

#include "tightpack/quantity.hpp"

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    boost::json::error_code ec;
    boost::json::value v = boost::json::parse(line, ec);
    if (ec || !v.is_string()) {
      std::cerr << "quantity_values: not a JSON string: " << line << "\n";
      return 2;
    }
    const std::string text(v.get_string());
    auto q = tightpack::Quantity::parse(text);
    if (!q) {
      std::cout << "{\"error\":" << boost::json::serialize(boost::json::value(q.error().what()))
                << "}\n";
      continue;
    }
    const int64_t value = q->value(), milli = q->milli_value();
    bool fast_agrees = true;
    for (int32_t shift : {0, 3}) {
      auto fast = tightpack::Quantity::fast_scaled(text, shift);
      if (fast && *fast != (shift == 3 ? milli : value)) fast_agrees = false;
    }
    if (!fast_agrees) {
      std::cout << "{\"error\":\"fast_scaled disagrees with parse\"}\n";
      continue;
    }
    std::cout << "{\"value\":" << value << ",\"milli\":" << milli << "}\n";
  }
  return 0;
}
