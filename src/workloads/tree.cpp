// NCCL's double binary tree all-reduce (Sanders, Speck & Träff, "Two-tree algorithms for full
// bandwidth broadcast, reduction and scan", Parallel Computing 35(12), 2009; NCCL 2.4's
// trees, NVIDIA developer blog "Massively Scale Your Deep Learning Training with NCCL 2.4").
//
// Nodes (servers, or ranks when the group is inside one server) form two binary trees in
// which a node that is interior in one is a leaf in the other; each tree carries half of the
// channel's bytes. Inside a server the ranks form a chain hanging off the rank that talks to
// the other servers. The all-reduce reduces every message up the tree and broadcasts it back
// down, pipelined message by message: a node sends message m up once it has m from all its
// children, and down once it has m from its parent (the root: once it has reduced m). Every
// hop is flow-controlled by the receiver's consumption (SendChain::forward): a child's slot at
// its parent frees when the parent has sent the message on (up, or, at the root, down to both
// children, NCCL's recvReduceCopySend), so the reduction runs at most the window per hop ahead
// of the broadcast, as in NCCL, and a run holds the same state whatever its bytes.
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"

#include <algorithm>
#include <map>

namespace fabricsim::workloads {

namespace {

// NCCL's in-order binary tree over 0..n-1 (src/graph/trees.cc, ncclGetBtree): node r's parent
// flips its lowest set bit and sets the next one, or only flips it when that leaves the
// range; node 0 is the root. Returns parent[r], -1 for the root.
std::vector<int> binary_tree(int n) {
    std::vector<int> parent(static_cast<std::size_t>(n), -1);
    for (int r = 1; r < n; ++r) {
        const int bit = r & -r;
        int up = (r ^ bit) | (bit << 1);
        if (up >= n) up = r ^ bit;
        parent[static_cast<std::size_t>(r)] = up;
    }
    return parent;
}

// The second tree: the first mirrored (n even) or shifted by one (n odd), so that leaves of
// one are interior nodes of the other (ncclGetDtree).
std::vector<int> second_tree(int n) {
    const std::vector<int> first = binary_tree(n);
    const auto map = [n](int r) { return n % 2 == 0 ? n - 1 - r : (r + 1) % n; };
    std::vector<int> parent(static_cast<std::size_t>(n), -1);
    for (int r = 0; r < n; ++r)
        if (first[static_cast<std::size_t>(r)] >= 0)
            parent[static_cast<std::size_t>(map(r))] = map(first[static_cast<std::size_t>(r)]);
    return parent;
}

struct RankTree {
    std::vector<int> parent;  // by position in `order`; -1: root
    std::vector<std::vector<int>> children;
};

// `order` lists ranks server by server, each server's chain head first (ring_order does so).
RankTree rank_tree(const std::vector<RankId>& order, const RankLayout& layout, bool mirrored) {
    std::vector<int> heads;  // position of each server's first rank
    for (std::size_t i = 0; i < order.size(); ++i)
        if (i == 0 || !layout.same_server(order[i], order[i - 1])) heads.push_back(static_cast<int>(i));
    RankTree t;
    t.parent.assign(order.size(), -1);
    t.children.resize(order.size());
    if (heads.size() == 1) {
        // One server: the tree is over its ranks.
        const int n = static_cast<int>(order.size());
        t.parent = mirrored ? second_tree(n) : binary_tree(n);
    } else {
        const int n = static_cast<int>(heads.size());
        const std::vector<int> node_parent = mirrored ? second_tree(n) : binary_tree(n);
        for (int s = 0; s < n; ++s) {
            const auto us = static_cast<std::size_t>(s);
            if (node_parent[us] >= 0)
                t.parent[static_cast<std::size_t>(heads[us])] = heads[static_cast<std::size_t>(node_parent[us])];
            const int end = s + 1 < n ? heads[us + 1] : static_cast<int>(order.size());
            for (int i = heads[us] + 1; i < end; ++i) t.parent[static_cast<std::size_t>(i)] = i - 1;  // the chain
        }
    }
    for (std::size_t i = 0; i < order.size(); ++i)
        if (t.parent[i] >= 0) t.children[static_cast<std::size_t>(t.parent[i])].push_back(static_cast<int>(i));
    return t;
}

void tree_reduce_broadcast(ChannelContext& ctx, const std::vector<RankId>& order, const RankTree& t, Bytes bytes,
                           int channel_key) {
    if (bytes <= Bytes::zero()) return;
    const std::size_t n = order.size();
    const std::int64_t messages = (bytes.count() + ctx.message_bytes.count() - 1) / ctx.message_bytes.count();
    // Nodes in an order where every child comes before its parent (reduce) — deepest first.
    std::vector<int> depth(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (int p = t.parent[i]; p >= 0; p = t.parent[static_cast<std::size_t>(p)]) ++depth[i];
    std::vector<int> up_order(n);
    for (std::size_t i = 0; i < n; ++i) up_order[i] = static_cast<int>(i);
    std::stable_sort(up_order.begin(), up_order.end(), [&](int a, int b) {
        return depth[static_cast<std::size_t>(a)] > depth[static_cast<std::size_t>(b)];
    });

    std::vector<OpId> up(n), down(n);  // this message's send from node i to its parent / from its parent to i
    std::vector<OpId> deps;
    const UnitRange built = unit_range(ctx.units, static_cast<std::uint32_t>(ctx.chain.graph().ops().size()), messages,
                                       bytes.count() % messages);
    for (std::int64_t unit = 0; unit < built.count; ++unit) {
        const Bytes size = share(bytes, messages, built.offset + unit);
        std::fill(up.begin(), up.end(), OpId::invalid());
        std::fill(down.begin(), down.end(), OpId::invalid());
        for (int i : up_order) {  // reduce: after the message has come up from every child
            const auto ui = static_cast<std::size_t>(i);
            if (t.parent[ui] < 0) continue;
            deps.clear();
            for (int c : t.children[ui]) deps.push_back(up[static_cast<std::size_t>(c)]);
            const RankId src = order[ui], dst = order[static_cast<std::size_t>(t.parent[ui])];
            up[ui] = ctx.chain.forward(src, dst, size, channel_key, ctx.rail(src, dst), deps);
        }
        for (auto it = up_order.rbegin(); it != up_order.rend(); ++it) {  // broadcast, root first
            const auto ui = static_cast<std::size_t>(*it);
            for (int c : t.children[ui]) {
                deps.clear();
                if (t.parent[ui] >= 0) {
                    deps.push_back(down[ui]);  // received from its parent
                } else {
                    for (int k : t.children[ui])
                        deps.push_back(up[static_cast<std::size_t>(k)]);  // the root reduced it
                }
                const RankId src = order[ui], dst = order[static_cast<std::size_t>(c)];
                down[static_cast<std::size_t>(c)] =
                    ctx.chain.forward(src, dst, size, channel_key, ctx.rail(src, dst), deps);
            }
        }
    }
}

}  // namespace

int tree_depth(const std::vector<RankId>& order, const RankLayout& layout) {
    int deepest = 0;
    for (bool mirrored : {false, true}) {
        const RankTree t = rank_tree(order, layout, mirrored);
        for (std::size_t i = 0; i < order.size(); ++i) {
            int d = 0;
            for (int p = t.parent[i]; p >= 0; p = t.parent[static_cast<std::size_t>(p)]) ++d;
            deepest = std::max(deepest, d);
        }
    }
    return deepest;
}

void double_binary_tree_all_reduce(ChannelContext& ctx, const std::vector<RankId>& order, Bytes channel_bytes) {
    if (order.size() < 2) return;
    // Each tree is its own connection set (NCCL gives the two trees separate channels).
    for (int k = 0; k < 2; ++k)
        tree_reduce_broadcast(ctx, order, rank_tree(order, ctx.layout, k == 1), share(channel_bytes, 2, k),
                              2 * ctx.channel + k);
}

}  // namespace fabricsim::workloads
