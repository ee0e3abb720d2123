// Embind bindings: bytes in, JSON text out, nothing else. Every answer is
// made by core's text entry points, the ones the native command prints, so
// both builds give the same bytes.
//
// Inputs arrive as (pointer, length) of UTF-8 the JavaScript side copied into
// the heap: passing a 5 MB snapshot as std::string cost ~10x more. Answers go
// back as a Text the JavaScript side copies out of the heap as bytes, so an
// answer is never re-encoded on the way.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "tightpack/advice/advice.hpp"
#include "tightpack/autoscaler/autoscaler.hpp"
#include "tightpack/replay.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace {

std::string_view bytes(uintptr_t data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

class Text {
 public:
  explicit Text(std::string text) : text_(std::move(text)) {}
  uintptr_t data() const { return reinterpret_cast<uintptr_t>(text_.data()); }
  size_t size() const { return text_.size(); }

 private:
  std::string text_;
};

// The module must stay usable after any input: whatever escapes core as an
// exception (in practice std::bad_alloc near the 2 GB memory limit) becomes
// an error value.
template <class Answer>
Text guarded(Answer&& answer) {
  try {
    return Text(answer());
  } catch (const std::bad_alloc&) {
    return Text(tightpack::error_text(
        "out of memory: the input needs more than the 2 GB of WebAssembly memory"));
  } catch (const std::exception& e) {
    return Text(tightpack::error_text(std::string("internal error: ") + e.what()));
  } catch (...) {
    return Text(tightpack::error_text("internal error"));
  }
}

Text replay(uintptr_t data, size_t size) {
  return guarded([&] { return tightpack::replay_text(bytes(data, size)); });
}

Text autoscale(uintptr_t data, size_t size) {
  return guarded([&] { return tightpack::autoscaler::autoscale_text(bytes(data, size)); });
}

Text quantity(uintptr_t data, size_t size) {
  return guarded([&] { return tightpack::quantity_text(bytes(data, size)); });
}

std::string version() {
  return TIGHTPACK_VERSION;
}

// Bytes malloc has handed out and not had back: the leak check of the tests
// (the WebAssembly memory itself only ever grows).
size_t heap_bytes_in_use() {
  return mallinfo().uordblks;
}

// A cluster loaded once and asked many questions.
class LoadedCluster {
 public:
  Text load(uintptr_t snapshot, size_t snapshot_size, uintptr_t pools, size_t pools_size,
            uintptr_t config, size_t config_size) {
    return guarded([&] {
      cluster_.reset();
      auto loaded = tightpack::load_what_if_cluster(
          bytes(snapshot, snapshot_size), bytes(pools, pools_size), bytes(config, config_size));
      if (!loaded) return tightpack::error_text(loaded.error().what());
      cluster_.emplace(std::move(*loaded));
      return tightpack::loaded_text(*cluster_);
    });
  }
  Text place(uintptr_t request, size_t size) {
    return guarded([&] {
      return cluster_ ? tightpack::place_text(*cluster_, bytes(request, size)) : not_loaded();
    });
  }
  Text explain(uintptr_t request, size_t size) {
    return guarded([&] {
      return cluster_ ? tightpack::explain_text(*cluster_, bytes(request, size)) : not_loaded();
    });
  }
  Text advise(uintptr_t request, size_t size) {
    return guarded([&] {
      return cluster_ ? tightpack::advice::advise_text(*cluster_, bytes(request, size))
                      : not_loaded();
    });
  }
  Text forecast(uintptr_t request, size_t size) {
    return guarded([&] {
      return cluster_ ? tightpack::forecast_text(*cluster_, bytes(request, size)) : not_loaded();
    });
  }
  Text summary() {
    return guarded([&] { return cluster_ ? tightpack::summary_text(*cluster_) : not_loaded(); });
  }

 private:
  static std::string not_loaded() { return tightpack::error_text("no cluster is loaded"); }
  std::optional<tightpack::WhatIfCluster> cluster_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(tightpack) {
  using namespace emscripten;
  class_<Text>("Text").function("data", &Text::data).function("size", &Text::size);
  function("replay", &replay);
  function("autoscale", &autoscale);
  function("quantity", &quantity);
  function("version", &version);
  function("heapBytesInUse", &heap_bytes_in_use);
  class_<LoadedCluster>("LoadedCluster")
      .constructor<>()
      .function("load", &LoadedCluster::load)
      .function("place", &LoadedCluster::place)
      .function("explain", &LoadedCluster::explain)
      .function("advise", &LoadedCluster::advise)
      .function("forecast", &LoadedCluster::forecast)
      .function("summary", &LoadedCluster::summary);
}
