#include "workloads/transfer.hpp"

namespace fabricsim::workloads {

void add_transfer(OpGraph& graph, std::uint32_t entry, const scenario::TransferSpec& transfer) {
    graph.add_send(entry, transfer.from, transfer.to, transfer.size, transfer.start);
}

}  // namespace fabricsim::workloads
