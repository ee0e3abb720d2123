// Edits of a KubeSchedulerConfiguration document before it is decoded: the
// built-in profiles derive from one another this way, and the corpus format's
// overrides (scoringStrategy, scoreWeights, disabledScore) are applied so.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string_view>

namespace tightpack::config_edit {

// The first entry of "profiles"; the document must have one.
boost::json::object& first_profile(boost::json::value& config);

// plugins.score.<which> ("enabled" or "disabled"), created empty if absent.
boost::json::array& score_list(boost::json::object& profile, const char* which);

// Whether a plugin-set or pluginConfig entry is {"name": name, …}.
bool is_named(const boost::json::value& entry, std::string_view name);
void erase_named(boost::json::array& list, std::string_view name);
bool contains_named(const boost::json::array& list, std::string_view name);

// The NodeResourcesFit entry's args in pluginConfig, created empty if absent.
boost::json::object& fit_args(boost::json::object& profile);

}  // namespace tightpack::config_edit
