// YAML (configuration files, pod specs) to the JSON values core decodes.
// Native only: core reads JSON, so the browser never needs a YAML parser.
#pragma once

#include <boost/json/value.hpp>
#include <string_view>

#include "tightpack/error.hpp"

namespace tightpack::cli {

// Plain scalars follow the YAML 1.2 core schema (null, booleans, integers);
// numbers with a fraction or exponent stay strings, because every such value
// in a Kubernetes object is a resource quantity and keeps its exact spelling.
// Quoted scalars are strings.
Result<boost::json::value> parse_yaml(std::string_view text);

// JSON when the text starts like JSON, YAML otherwise.
Result<boost::json::value> parse_document(std::string_view text);

}  // namespace tightpack::cli
