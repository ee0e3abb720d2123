#include "cli/scale_up_table.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace tightpack::cli {
namespace {

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
  return out;
}

std::string price_text(double price) {
  char buf[64];
  // Cents, unless the figure is smaller than a cent.
  std::snprintf(buf, sizeof buf, price > 0 && price < 0.01 ? "$%.4f/h" : "$%.2f/h", price);
  return buf;
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string note_of(const pools::PoolGrowth& g) {
  std::vector<std::string> parts;
  if (g.preemptible) parts.push_back("preemptible");
  if (g.added_price_per_hour) parts.push_back(price_text(*g.added_price_per_hour) + " added");
  if (g.template_from_configuration) parts.push_back("size 0: template from configuration");
  if (g.max_size_reached && g.max_size) {
    parts.push_back("at max size " + std::to_string(*g.max_size));
  }
  if (!g.other_pods.empty()) {
    parts.push_back("+" + plural(g.other_pods.size(), "other pending pod", "other pending pods"));
  }
  if (!g.tied.empty())
    parts.push_back("tied with " + joined(g.tied, ", ") + ": lowest name chosen");
  return joined(parts, ", ");
}

// Every reason a pool gives, CA's own first.
std::vector<std::string> detail_reasons(const pools::PoolDetail& d) {
  std::vector<std::string> out = d.autoscaler;
  for (const std::string& r : d.filters) {
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

}  // namespace

std::string wait_text(int64_t seconds) {
  if (seconds < 60) return "~" + std::to_string(seconds) + " s";
  return "~" + std::to_string((seconds + 30) / 60) + " min";
}

void print_scale_up(std::ostream& out, const ScaleUpAnswer& a) {
  const pools::ScaleUpPrediction& p = a.prediction;
  out << "\n";
  for (const std::string& n : a.resolved.notes) out << "Note: " << n << "\n";
  for (const std::string& n : p.notes) out << "Note: " << n << "\n";
  if (p.replicas_pending == 0) {
    out << "Scale-up: none needed, every replica fits an existing node\n";
    return;
  }
  out << "Scale-up (cluster-autoscaler, expander " << joined(p.expanders, ",") << "):\n";
  if (p.growth.empty()) {
    out << "no pool grows\n";
  } else {
    size_t width = 4;
    for (const auto& g : p.growth) width = std::max(width, g.pool.size());
    out << std::left << std::setw(static_cast<int>(width)) << "POOL"
        << "  ADD  REPLICAS  READY IN  NOTE\n";
    for (const auto& g : p.growth) {
      const std::string note = note_of(g);
      std::ostringstream row;
      row << std::left << std::setw(static_cast<int>(width)) << g.pool << "  " << std::right
          << std::setw(3) << g.nodes_added << "  " << std::setw(8) << g.replicas.size() << "  "
          << std::left << std::setw(8) << wait_text(g.ready_in_seconds) << "  " << note;
      std::string line = row.str();
      line.erase(line.find_last_not_of(' ') + 1);
      out << line << "\n";
    }
  }
  for (const auto& u : p.unplaced) {
    out << "Not schedulable on any pool: " << u.replicas.size() << " replica(s): " << u.reason
        << "\n";
    for (const auto& d : u.pools) {
      const std::vector<std::string> reasons = detail_reasons(d);
      out << "  " << d.pool << ": " << (reasons.empty() ? "fits" : joined(reasons, "; ")) << "\n";
    }
  }
}

}  // namespace tightpack::cli
