// `fabricsim docs`: what is generated from the scenario key tables (scenario/key_docs.hpp):
// --keys prints docs/SCENARIO.md's key reference tables (--update FILE rewrites them in FILE);
// --json-schema prints a JSON Schema of the scenario format for editors.
#pragma once

#include <string>

namespace fabricsim::cli {

struct DocsArgs {
    bool keys = false;
    bool json_schema = false;
    std::string update;  // with --keys: the file whose generated tables are rewritten
};

int docs_command(const DocsArgs& args);

}  // namespace fabricsim::cli
