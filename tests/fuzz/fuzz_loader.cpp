// libFuzzer harness for the scenario loader: any input must either load or raise
// ConfigError; anything else (a crash, a sanitizer report, another exception) is a bug.
//
// Two more oracles: every loaded variant's resolved YAML must load again to the same spec
// (to_yaml and the loader agree), and leading "#set key=value" lines of the input become
// --set overrides, so overrides are fuzzed with the file.
#include "scenario/loader.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace fabricsim;
using namespace fabricsim::scenario;

namespace {

// A folder that does not exist: relative includes fail fast instead of reading the disk.
constexpr const char* kFile = "/nonexistent-fuzz-dir/fuzz.yaml";

LoadOptions options_for(std::string_view& text) {
    LoadOptions options;
    options.config_dirs = {FABRICSIM_SOURCE_DIR "/configs"};
    while (text.starts_with("#set ")) {
        const auto end = text.find('\n');
        options.sets.emplace_back(text.substr(5, end == std::string_view::npos ? end : end - 5));
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    }
    return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    const LoadOptions options = options_for(text);
    LoadedScenario loaded;
    try {
        loaded = load_scenario_text(std::string(text), kFile, options);
    } catch (const ConfigError&) {
        return 0;
    }
    LoadOptions presets_only;
    presets_only.config_dirs = options.config_dirs;
    for (const auto& v : loaded.variants) {
        const std::string yaml = to_yaml(v.resolved);
        try {
            const auto again = load_scenario_text(yaml, "resolved.yaml", presets_only);
            if (again.variants.size() != 1 || !(again.variants[0].spec == v.spec)) std::abort();
        } catch (const ConfigError&) {
            std::abort();  // the loader rejected what it printed itself
        }
    }
    return 0;
}
