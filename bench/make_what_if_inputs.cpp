// Writes the what-if benchmark inputs into a folder: snapshot-1000.json,
// snapshot-5000.json and place-200-<profile>.json, for wasm/bench/what_if.js.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "what_if_inputs.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: tightpack_what_if_inputs DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream f(dir + "/" + name, std::ios::binary);
    f << text;
    if (!f) {
      std::cerr << "tightpack_what_if_inputs: cannot write " << dir << "/" << name << "\n";
      std::exit(1);
    }
  };
  for (size_t nodes : {1000, 5000}) {
    write("snapshot-" + std::to_string(nodes) + ".json", tightpack::bench::what_if_snapshot(nodes));
  }
  for (const char* profile : {"default", "tightpack"}) {
    write(std::string("place-200-") + profile + ".json",
          tightpack::bench::place_request(200, profile));
  }
  return 0;
}
