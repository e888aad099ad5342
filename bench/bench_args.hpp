// The command line the flow benches share: `[--cuda] [N ...]`, instance sizes (flows) to time
// and whether to time the CUDA backend beside the CPU.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

namespace fabricsim::bench {

struct SizesArgs {
    bool cuda = false;
    std::vector<std::size_t> sizes;  // the defaults when none is given
};

inline SizesArgs sizes_args(int argc, char** argv, std::vector<std::size_t> defaults) {
    SizesArgs out;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cuda")
            out.cuda = true;
        else
            out.sizes.push_back(static_cast<std::size_t>(std::strtoull(a.c_str(), nullptr, 10)));
    }
    if (out.sizes.empty()) out.sizes = std::move(defaults);
    return out;
}

}  // namespace fabricsim::bench
