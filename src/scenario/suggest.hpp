// "did you mean ...?": the nearest valid word to a misspelt one.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::scenario {

// Optimal-string-alignment Damerau–Levenshtein distance: insertions, deletions,
// substitutions and transpositions of adjacent characters each cost 1. Case-insensitive
// (ASCII), since "Servers" for "servers" is a misspelling too.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is close enough to be a likely misspelling of it
// (at most 1 edit for words up to 5 letters, 2 up to 9, 3 beyond). Ties go to the earlier
// candidate, so callers list candidates in the schema's order.
std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates);

// `; did you mean "servers"?` or "": ready to append to a message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace fabricsim::scenario
