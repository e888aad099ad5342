// Reading a resolved scenario (result.json's "scenario", VariantResult::scenario) by key path,
// for the reports that label or group variants by what they ran on.
#pragma once

#include "scenario/resolved_tree.hpp"

#include <string>
#include <string_view>

namespace fabricsim::report {

// The value at a dotted key path ("cluster.fabric.technology"), or nullptr.
const scenario::Value* value_at(const scenario::Value& root, std::string_view path);
// Its text when it is a string, else "".
std::string text_at(const scenario::Value& root, std::string_view path);

}  // namespace fabricsim::report
