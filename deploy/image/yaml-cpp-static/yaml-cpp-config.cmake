# yaml-cpp as a static library, for the image's fully static `tightpack`
# (deploy/image/build_binary.sh passes -Dyaml-cpp_DIR=<this folder>).
# Debian's own yaml-cpp-config.cmake imports only the shared library, although
# libyaml-cpp-dev ships libyaml-cpp.a beside it.
find_library(TIGHTPACK_YAML_CPP_STATIC NAMES libyaml-cpp.a REQUIRED)
find_path(TIGHTPACK_YAML_CPP_INCLUDE yaml-cpp/yaml.h REQUIRED)
if(NOT TARGET yaml-cpp)
  add_library(yaml-cpp STATIC IMPORTED)
  set_target_properties(yaml-cpp PROPERTIES
    IMPORTED_LOCATION "${TIGHTPACK_YAML_CPP_STATIC}"
    INTERFACE_INCLUDE_DIRECTORIES "${TIGHTPACK_YAML_CPP_INCLUDE}")
endif()
set(yaml-cpp_FOUND TRUE)
set(YAML_CPP_LIBRARIES yaml-cpp)
set(YAML_CPP_INCLUDE_DIR "${TIGHTPACK_YAML_CPP_INCLUDE}")
