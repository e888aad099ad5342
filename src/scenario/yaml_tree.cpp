#include "scenario/yaml_tree.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

namespace fabricsim::scenario {

namespace {

struct TooLarge {};

// Builds one document from yaml-cpp's parse events, with an explicit stack (no recursion,
// whatever the nesting).
class TreeBuilder final : public YAML::EventHandler {
public:
    TreeBuilder(const YamlSource& source, Issues& issues) : source_(source), issues_(issues) {}

    std::optional<Node> take_root() { return std::move(root_); }
    const YAML::Mark& document_start() const { return document_start_; }

    void OnDocumentStart(const YAML::Mark& mark) override { document_start_ = mark; }
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        Node n;
        n.location = where(mark);
        add(std::move(n), anchor);
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        const auto it = anchors_.find(anchor);
        if (it == anchors_.end()) {  // yaml-cpp rejects unknown aliases itself; be safe
            OnNull(mark, 0);
            return;
        }
        count(it->second.size);
        add(it->second.node, 0);
    }

    void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  const std::string& value) override {
        add(Node::scalar(value, where(mark)), anchor);
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value /*style*/) override {
        open(Node::Kind::sequence, mark, anchor);
    }
    void OnSequenceEnd() override { close(); }

    void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value /*style*/) override {
        open(Node::Kind::mapping, mark, anchor);
    }
    void OnMapEnd() override { close(); }

private:
    struct Frame {
        Node node;
        YAML::anchor_t anchor = 0;
        std::size_t first_count = 0;  // nodes counted before this one, to size an anchor
        std::string path;
        bool have_key = false;  // a mapping between its key and its value
        bool key_ok = false;
        std::string key;
        SourceLocation key_location;
        std::unordered_map<std::string, int> key_lines;  // keys so far, for duplicates
    };
    struct Anchored {
        Node node;
        std::size_t size;
    };

    SourceLocation where(const YAML::Mark& mark) const {
        if (!source_.positions || mark.is_null()) return SourceLocation{source_.file, 0, 0};
        return SourceLocation{source_.file, mark.line + 1, mark.column + 1};
    }

    void count(std::size_t n) {
        nodes_ += n;
        if (nodes_ > kMaxNodes) throw TooLarge{};
    }

    // Key path of the value that comes next in the innermost collection.
    std::string child_path() const {
        if (stack_.empty()) return source_.key_root;
        const Frame& f = stack_.back();
        if (f.node.is_sequence()) return index_path(f.path, f.node.items.size());
        return key_path(f.path, f.key);
    }

    void open(Node::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
        Frame f;
        f.node.kind = kind;
        f.node.location = where(mark);
        f.anchor = anchor;
        f.first_count = nodes_;
        f.path = child_path();
        count(1);
        stack_.push_back(std::move(f));
    }

    void close() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        if (f.anchor != 0) anchors_[f.anchor] = Anchored{f.node, nodes_ - f.first_count};
        place(std::move(f.node));
    }

    void add(Node n, YAML::anchor_t anchor) {
        if (n.is_null() || n.is_scalar()) {
            count(1);
            if (anchor != 0) anchors_[anchor] = Anchored{n, 1};
        }
        place(std::move(n));
    }

    void place(Node n) {
        if (stack_.empty()) {
            root_ = std::move(n);
            return;
        }
        Frame& f = stack_.back();
        if (f.node.is_sequence()) {
            f.node.items.push_back(std::move(n));
            return;
        }
        if (!f.have_key) {
            f.have_key = true;
            f.key_ok = n.is_scalar();
            f.key = f.key_ok ? n.text : std::string{};
            f.key_location = n.location;
            if (!f.key_ok) issues_.add(n.location, f.path, "expected a key, found {}", describe_found(n));
            return;
        }
        f.have_key = false;
        if (!f.key_ok) return;
        if (const auto [it, fresh] = f.key_lines.emplace(f.key, f.key_location.line); !fresh) {
            issues_.add(f.key_location, key_path(f.path, f.key),
                        it->second > 0 ? fmt::format("duplicate key (first given at line {})", it->second)
                                       : std::string("duplicate key"));
            return;
        }
        // An empty value's mark is the next token, often on a later line: point at the key.
        if (n.is_null() && n.location.line != f.key_location.line) n.location = f.key_location;
        f.node.entries.push_back(Entry{std::move(f.key), std::move(f.key_location), std::move(n)});
    }

    const YamlSource& source_;
    Issues& issues_;
    std::vector<Frame> stack_;
    std::optional<Node> root_;
    std::map<YAML::anchor_t, Anchored> anchors_;
    std::size_t nodes_ = 0;
    YAML::Mark document_start_;
};

// Offset of the first byte that does not start a well-formed UTF-8 sequence (no overlong
// forms, surrogates or code points past U+10FFFF), if any. yaml-cpp passes such bytes
// through, but its emitter replaces them, so text would not survive a round trip.
std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
    // The well-formed sequences by their first byte: the length and the second byte's range
    // (The Unicode Standard, Table 3-7); every later byte is 0x80..0xBF.
    struct Lead {
        unsigned char first, last;
        std::size_t len;
        unsigned char lo, hi;
    };
    static constexpr Lead kLeads[] = {
        {0x00, 0x7F, 1, 0, 0},       {0xC2, 0xDF, 2, 0x80, 0xBF}, {0xE0, 0xE0, 3, 0xA0, 0xBF},
        {0xE1, 0xEC, 3, 0x80, 0xBF}, {0xED, 0xED, 3, 0x80, 0x9F}, {0xEE, 0xEF, 3, 0x80, 0xBF},
        {0xF0, 0xF0, 4, 0x90, 0xBF}, {0xF1, 0xF3, 4, 0x80, 0xBF}, {0xF4, 0xF4, 4, 0x80, 0x8F}};
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    for (std::size_t i = 0; i < text.size();) {
        const auto* lead = std::find_if(std::begin(kLeads), std::end(kLeads),
                                        [c = s[i]](const Lead& l) { return c >= l.first && c <= l.last; });
        if (lead == std::end(kLeads) || i + lead->len > text.size()) return i;
        for (std::size_t k = 1; k < lead->len; ++k) {
            const unsigned char b = s[i + k];
            if (k == 1 ? (b < lead->lo || b > lead->hi) : (b < 0x80 || b > 0xBF)) return i;
        }
        i += lead->len;
    }
    return std::nullopt;
}

}  // namespace

std::optional<Node> parse_yaml(const YamlSource& source, Issues& issues) {
    if (const auto bad = first_invalid_utf8(source.text)) {
        const std::string_view before = source.text.substr(0, *bad);
        const std::size_t newline = before.rfind('\n');
        const int line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
        const int column = static_cast<int>(newline == std::string_view::npos ? *bad : *bad - newline - 1) + 1;
        return issues.reject(SourceLocation{source.file, source.positions ? line : 0, source.positions ? column : 0},
                             "", "the text is not valid UTF-8 (byte 0x{:02x})",
                             static_cast<unsigned char>(source.text[*bad]));
    }
    std::istringstream in{std::string(source.text)};
    Issues found;  // kept apart so that a syntax error reports only itself
    const auto syntax_error = [&](SourceLocation where, std::string message) {
        return issues.reject(std::move(where), "", std::move(message));
    };
    try {
        YAML::Parser parser(in);
        TreeBuilder builder(source, found);
        if (!parser.HandleNextDocument(builder)) {
            issues.append(found);
            Node empty;
            empty.location = SourceLocation{source.file, source.positions ? 1 : 0, source.positions ? 1 : 0};
            return empty;
        }
        std::optional<Node> root = builder.take_root();
        TreeBuilder second(source, found);
        if (parser.HandleNextDocument(second)) {
            const YAML::Mark& m = second.document_start();
            return syntax_error(
                SourceLocation{source.file, source.positions ? m.line + 1 : 0, source.positions ? m.column + 1 : 0},
                "a scenario file holds one YAML document; found a second one");
        }
        issues.append(found);
        return root;
    } catch (const YAML::Exception& e) {
        SourceLocation where{source.file, 0, 0};
        if (source.positions && !e.mark.is_null()) where = {source.file, e.mark.line + 1, e.mark.column + 1};
        return syntax_error(std::move(where), fmt::format("YAML syntax error: {}", e.msg));
    } catch (const TooLarge&) {
        return syntax_error(SourceLocation{source.file, 0, 0},
                            fmt::format("the document expands to more than {} values (aliases "
                                        "count each time they are used)",
                                        kMaxNodes));
    }
}

}  // namespace fabricsim::scenario
