// cluster.fabric.switches and cluster.fabric.links (validate.hpp). Each link end
// is a switch of the list or a server's compute NIC, s<server>.nic<k>, the name the topology
// gives that NIC; the defaults a link leaves out (its speed, its length) are resolved here, so
// that `validate --print` shows the values the builder uses.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/describe.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/key_types.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

namespace fabricsim::scenario {

namespace {

// Parallel cables between two switches; far beyond any switch's radix (kMaxRadix, 4096).
constexpr std::int64_t kMaxParallel = 4'096;
// Server NICs named in one "no link for ..." message before "and N more".
constexpr std::size_t kListed = 5;

struct NicName {
    int server = 0;
    int nic = 0;
};

// "s3.nic0" -> {3, 0}; digits only, no sign, no leading zeros (s03.nic0 is not a NIC's name).
std::optional<int> parse_index(std::string_view digits) {
    if (digits.empty() || (digits.size() > 1 && digits.front() == '0')) return std::nullopt;
    int value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    return value;
}

std::optional<NicName> parse_nic(std::string_view name) {
    const auto dot = name.find(".nic");
    if (name.size() < 2 || name.front() != 's' || dot == std::string_view::npos) return std::nullopt;
    const auto server = parse_index(name.substr(1, dot - 1));
    const auto nic = parse_index(name.substr(dot + 4));
    if (!server || !nic) return std::nullopt;
    return NicName{*server, *nic};
}

std::string nic_name(int server, int nic) { return fmt::format("s{}.nic{}", server, nic); }

// One end of a link, resolved.
struct End {
    bool known = false;
    bool is_nic = false;
    int index = 0;  // switch index, or the NIC's flat index server * nics + k
    std::string name;
    std::optional<Bandwidth> rate;  // the end's port speed, when it was read without an issue
    std::string rate_what;          // "line rate", "port speed"
};

struct Context {
    const FabricSpec& spec;
    std::vector<std::string> switch_names;
    std::map<std::string, int> switch_index;
    std::vector<bool> switch_rate_known;
    std::optional<int> servers;  // cluster.servers, when known
    std::optional<int> nics;     // NICs per server, when known
    std::optional<Bandwidth> nic_rate;

    std::string nic_range() const {
        if (!servers || !nics || *nics == 0) return "s<server>.nic<k>";
        return fmt::format("{} .. {}", nic_name(0, 0), nic_name(*servers - 1, *nics - 1));
    }
};

// `name`: the end's name as the link's table read it from `node`.
End resolve_end(const Node& node, const std::string& key, const std::string& name, const Context& c, Issues& issues) {
    End end;
    end.name = name;
    if (auto it = c.switch_index.find(name); it != c.switch_index.end()) {
        end.known = true;
        end.index = it->second;
        const auto i = static_cast<std::size_t>(it->second);
        if (c.switch_rate_known[i]) end.rate = c.spec.custom.switches[i].model.port_speed;
        end.rate_what = "port speed";
        return end;
    }
    if (const auto nic = parse_nic(name)) {
        if (c.servers && c.nics && (nic->server >= *c.servers || nic->nic >= *c.nics)) {
            issues.add(node.location, key,
                       "no NIC \"{}\": the cluster has {} server{} with {} NIC{} each; expected one of {}", name,
                       *c.servers, *c.servers == 1 ? "" : "s", *c.nics, *c.nics == 1 ? "" : "s", c.nic_range());
            return end;
        }
        end.known = true;
        end.is_nic = true;
        end.index = c.nics ? nic->server * *c.nics + nic->nic : 0;
        end.rate = c.nic_rate;
        end.rate_what = "line rate";
        return end;
    }
    std::string switches = c.switch_names.empty() ? std::string(" (cluster.fabric.switches names none)")
                                                  : available_choices(name, c.switch_names);
    issues.add(node.location, key, "unknown switch or NIC \"{}\"; expected a server NIC {} or a switch{}", name,
               c.nic_range(), switches);
    return end;
}

void read_switches(const Node& list, const std::string& path, FabricSpec& spec, const SwitchRead& base, Context& c,
                   Issues& issues) {
    if (!list.is_sequence() || list.items.empty()) {
        add_expected(issues, list, path, "a list of switches ({name, radix, port_speed} each)");
        return;
    }
    const std::optional<Technology> tech = spec.technology;
    std::map<std::string, SourceLocation> seen;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const Node& item = list.items[i];
        const std::string at = index_path(path, i);
        CustomSwitchSpec out;
        out.model = base.spec;
        if (tech) out.model.technology = *tech;
        out.location = item.location;
        const SectionRead r = read_table(item, at, custom_switch_table(), out, issues);
        if (r.map == nullptr || !r.ok("name")) continue;
        const Node* name = r.given("name");
        if (auto [it, inserted] = seen.try_emplace(out.name, name->location); !inserted) {
            issues.add(name->location, key_path(at, "name"),
                       "duplicate switch name \"{}\" (first at {}); expected each switch once", out.name,
                       it->second.str());
            continue;
        }
        if ((r.given("technology") == nullptr || r.ok("technology")) && out.model.technology != spec.technology)
            issues.add(item.location, key_path(at, "technology"),
                       "{} is {}, but cluster.fabric.technology is {}; every switch of a fabric has its "
                       "technology",
                       out.name, name_of(out.model.technology), name_of(spec.technology));
        c.switch_index.emplace(out.name, static_cast<int>(spec.custom.switches.size()));
        c.switch_names.push_back(out.name);
        c.switch_rate_known.push_back(r.ok("port_speed"));
        spec.custom.switches.push_back(std::move(out));
    }
}

// A link's ends as an unordered pair, for finding the same cable twice.
std::pair<std::string, std::string> pair_of(const End& a, const End& b) {
    return a.name < b.name ? std::pair(a.name, b.name) : std::pair(b.name, a.name);
}

void read_links(const Node& list, const std::string& path, FabricSpec& spec, const Context& c, Issues& issues) {
    if (!list.is_sequence() || list.items.empty()) {
        add_expected(issues, list, path, "a list of links ({from, to} each, as {from: s0.nic0, to: sw0})");
        return;
    }
    bool complete = true;  // every link read: the NICs without one can be named
    std::map<std::pair<std::string, std::string>, std::size_t> pairs;
    std::map<int, std::size_t> nic_link;  // NIC -> link index
    std::vector<std::int64_t> ports(spec.custom.switches.size(), 0);
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const Node& item = list.items[i];
        const std::string at = index_path(path, i);
        CustomLinkSpec link;
        link.location = item.location;
        const SectionRead r = read_table(item, at, custom_link_table(), link, issues);
        const Node* map = r.map;
        if (map == nullptr || !r.ok("from") || !r.ok("to")) {
            complete = false;
            continue;
        }
        const End a = resolve_end(*r.given("from"), key_path(at, "from"), link.from, c, issues);
        const End b = resolve_end(*r.given("to"), key_path(at, "to"), link.to, c, issues);
        if (!a.known || !b.known) {
            complete = false;
            continue;
        }
        if (a.is_nic && b.is_nic) {
            issues.add(map->location, at,
                       "links NIC {} to NIC {}; expected a link from a NIC to a switch or between two "
                       "switches",
                       a.name, b.name);
            complete = false;
            continue;
        }
        if (!a.is_nic && !b.is_nic && a.index == b.index) {
            issues.add(map->location, at, "links {} to itself; expected two different ends", a.name);
            continue;
        }
        if ((a.is_nic || b.is_nic) && link.count != 1) {
            issues.add(map->find("count")->location, key_path(at, "count"),
                       "{} has one port, found count {}; expected 1 for a NIC's link", a.is_nic ? a.name : b.name,
                       link.count);
            continue;
        }
        bool repeated = false;
        for (const End* e : {&a, &b}) {
            if (!e->is_nic) continue;
            if (auto [it, inserted] = nic_link.try_emplace(e->index, i); !inserted) {
                issues.add(map->location, at, "{} already has a link, {} ({}); expected one link per NIC", e->name,
                           index_path(path, it->second), list.items[it->second].location.str());
                repeated = true;
            }
        }
        if (repeated) continue;
        if (auto [it, inserted] = pairs.try_emplace(pair_of(a, b), i); !inserted) {
            issues.add(map->location, at,
                       "{} - {} is already linked by {} ({}); expected each pair once (give that link "
                       "count: {} for parallel cables)",
                       a.name, b.name, index_path(path, it->second), list.items[it->second].location.str(), 2);
            continue;
        }
        // The speed: written (no faster than either end's port), or the slower end's port.
        std::optional<Bandwidth> slower;
        for (const End* e : {&a, &b})
            if (e->rate && (!slower || *e->rate < *slower)) slower = e->rate;
        if (const Node* n = r.given("speed")) {
            // Named once, by the slower end (the first when both are as slow).
            const End& e = !b.rate || (a.rate && *a.rate <= *b.rate) ? a : b;
            if (r.ok("speed") && slower && link.speed > *slower)
                issues.add(n->location, key_path(at, "speed"),
                           "{} is faster than the {} of {}, {}; expected at most {}", to_string(link.speed),
                           e.rate_what, e.name, to_string(*slower), to_string(*slower));
        } else if (slower) {
            link.speed = *slower;
        }
        if (r.given("length") == nullptr)
            link.length = a.is_nic || b.is_nic ? spec.cable_length : spec.uplink_cable_length;
        for (const End* e : {&a, &b})
            if (!e->is_nic) ports[static_cast<std::size_t>(e->index)] += link.count;
        spec.custom.links.push_back(std::move(link));
    }

    for (std::size_t s = 0; s < spec.custom.switches.size(); ++s) {
        const CustomSwitchSpec& sw = spec.custom.switches[s];
        if (ports[s] <= sw.model.radix) continue;
        issues.add(sw.location, key_path(index_path("cluster.fabric.switches", s), "radix"),
                   "{} has {} links in {}, more than its radix, {}; expected at most {} (a link takes a "
                   "port)",
                   sw.name, ports[s], path, sw.model.radix, sw.model.radix);
    }

    if (!complete || !c.servers || !c.nics) return;
    std::vector<std::string> missing;
    std::size_t unlinked = 0;
    for (int s = 0; s < *c.servers; ++s)
        for (int k = 0; k < *c.nics; ++k)
            if (nic_link.count(s * *c.nics + k) == 0 && unlinked++ < kListed) missing.push_back(nic_name(s, k));
    if (unlinked == 0) return;
    issues.add(list.location, path, "no link for {}{}; expected a link for every server NIC, {}", join(missing),
               unlinked > kListed ? fmt::format(" and {} more", unlinked - kListed) : std::string(), c.nic_range());
}

}  // namespace

void validate_custom_fabric(const Node* map, const std::string& path, FabricSpec& spec, const SwitchRead& base,
                            const ServerRead& server, std::optional<int> servers, Issues& issues) {
    const Node* switches = map == nullptr ? nullptr : map->find("switches");
    const Node* links = map == nullptr ? nullptr : map->find("links");
    if (spec.topology != TopologyKind::custom) {
        for (const auto& [node, key] : {std::pair(switches, "switches"), std::pair(links, "links")})
            if (node != nullptr)
                issues.add(node->location, key_path(path, key),
                           "given with topology: {}; switches and links describe a custom topology: set "
                           "topology: custom or leave them out",
                           name_of(spec.topology));
        return;
    }
    const SourceLocation here = map != nullptr ? map->location : SourceLocation{};
    for (const char* key : {"link_speed", "oversubscription"})
        if (const Node* n = map != nullptr ? map->find(key) : nullptr)
            issues.add(n->location, key_path(path, key),
                       "{} with topology: custom; each link of cluster.fabric.links has its own speed and "
                       "place, so expected no {}",
                       describe_found(*n), key);
    if (spec.planes != 1)
        issues.add(map != nullptr && map->find("planes") ? map->find("planes")->location : here,
                   key_path(path, "planes"),
                   "{} planes with topology: custom; expected 1 (a custom fabric is one graph: describe "
                   "every plane's switches in it)",
                   spec.planes);
    if (server.usable && server.nics_known && server.spec.nics == 0)
        issues.add(here, key_path(path, "topology"),
                   "custom, but the servers have no NICs (cluster.server.nics is 0); expected servers with NICs");
    if (switches == nullptr) issues.add(here, key_path(path, "switches"), "missing required key with topology: custom");
    if (links == nullptr) issues.add(here, key_path(path, "links"), "missing required key with topology: custom");
    Context c{spec, {}, {}, {}, servers, std::nullopt, std::nullopt};
    if (server.usable && server.nics_known) c.nics = server.spec.nics;
    if (server.usable && server.nic_rate_known) c.nic_rate = server.spec.nic.line_rate;
    if (switches != nullptr) read_switches(*switches, key_path(path, "switches"), spec, base, c, issues);
    if (switches == nullptr || links == nullptr) return;
    spec.custom.location = links->location;
    read_links(*links, key_path(path, "links"), spec, c, issues);
}

const Table<CustomSwitchSpec>& custom_switch_table() {
    using S = CustomSwitchSpec;
    static const Table<S> t{
        "cluster.fabric.switches", [] {
            std::vector<Key<S>> keys{
                custom_key<S>(
                    "name", TypeDoc{"name without a dot", {"string"}}, kAllModels, "Unique; links and reports use it.",
                    [](const Node& n, const std::string& path, S& out, NoContext&, Issues& issues) {
                        const auto v = read_name(n, path, issues);
                        if (v && v->find('.') != std::string::npos) {
                            issues.add(n.location, path,
                                       "\"{}\" has a dot; expected a name without one (dotted names are "
                                       "the servers' nodes, as s3.nic0)",
                                       *v);
                            return false;
                        }
                        if (v) out.name = *v;
                        return v.has_value();
                    },
                    [](const S& s) { return Value{s.name}; })
                    .required(),
            };
            // This switch's model: cluster.fabric.switch under the entry's keys (and preset).
            for (const Key<SwitchSpec>& k : switch_table().keys_)
                keys.push_back(inside(&S::model, Key<SwitchSpec>(k)).shown_default("`cluster.fabric.switch`'s"));
            return keys;
        }()};
    return t;
}

const Table<CustomLinkSpec>& custom_link_table() {
    using S = CustomLinkSpec;
    const char* end = "a switch's name, or a server NIC `s<server>.nic<k>`";
    static const Table<S> t{
        "cluster.fabric.links",
        {
            key("from", &S::from, Field<std::string>{TypeDoc{end, {"string"}}, read_text, text_field().print},
                kAllModels,
                "One end: a NIC and a switch, or two different switches. `s3.nic0` is compute NIC 0 of server 3 "
                "(servers from 0, NICs from 0).")
                .required(),
            key("to", &S::to, Field<std::string>{TypeDoc{end, {"string"}}, read_text, text_field().print}, kAllModels,
                "The other end.")
                .required(),
            key("speed", &S::speed, rate(), kAllModels,
                "Line rate per direction; no faster than either end's port. A 400G link between switches under 100G "
                "hosts is `speed: 400Gbps` between two switches of `port_speed: 400Gbps`.")
                .shown_default("the slower end's port: the NIC's `line_rate` or the switch's `port_speed`"),
            key("length", &S::length, length(Zero::rejected), kAllModels,
                "The cable; its delay is 5 ns/m and it is copper or optical as for the other topologies.")
                .shown_default("`cable_length` to a NIC, `uplink_cable_length` between switches"),
            key("count", &S::count, integer(1, kMaxParallel), kAllModels,
                "Parallel cables between two switches (each a separate ECMP next hop); 1 for a NIC.")
                .printed_if([](const S& s) { return s.count != 1; })
                .shown_default("`1`"),
        }};
    return t;
}

}  // namespace fabricsim::scenario
