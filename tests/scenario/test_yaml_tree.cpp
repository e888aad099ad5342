// parse_yaml's UTF-8 check against The Unicode Standard, Table 3-7 (well-formed UTF-8 byte
// sequences): each row's first and last sequences are accepted, and the bytes just outside a
// row's ranges (overlong forms, surrogates, code points past U+10FFFF, a cut-off sequence) are
// reported at the byte that starts the ill-formed sequence.
#include "scenario/yaml_tree.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace fabricsim::scenario;

namespace {

// The issues of `name: "a<bytes>b"`; the bytes start at column 9 of line 1.
Issues parse(const std::string& bytes) {
    const std::string text = "name: \"a" + bytes + "b\"\n";
    Issues issues;
    parse_yaml(YamlSource{text, "t.yaml", "", true}, issues);
    return issues;
}

}  // namespace

TEST_CASE("parse_yaml accepts every row of the table of well-formed UTF-8", "[yaml]") {
    for (const std::string bytes :
         {"~", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xe0\xbf\xbf", "\xe1\x80\x80", "\xec\xbf\xbf", "\xed\x80\x80",
          "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf0\xbf\xbf\xbf", "\xf1\x80\x80\x80",
          "\xf3\xbf\xbf\xbf", "\xf4\x80\x80\x80", "\xf4\x8f\xbf\xbf"}) {
        INFO(bytes.size() << " bytes from 0x" << std::hex << int(static_cast<unsigned char>(bytes[0])));
        CHECK(parse(bytes).empty());
    }
}

TEST_CASE("parse_yaml reports the first byte of an ill-formed UTF-8 sequence", "[yaml]") {
    struct Case {
        std::string bytes;
        int column;  // of the byte named
        std::string byte;
    };
    for (const Case& c : {Case{"\x80", 9, "0x80"},                  // a lone continuation byte
                          Case{"\xc0\x80", 9, "0xc0"},              // overlong (U+0000 in two bytes)
                          Case{"\xc1\xbf", 9, "0xc1"},              // overlong
                          Case{"\xc2\x7f", 9, "0xc2"},              // second byte below 0x80
                          Case{"\xe0\x9f\xbf", 9, "0xe0"},          // overlong three-byte form
                          Case{"\xed\xa0\x80", 9, "0xed"},          // a surrogate, U+D800
                          Case{"\xf0\x8f\xbf\xbf", 9, "0xf0"},      // overlong four-byte form
                          Case{"\xf4\x90\x80\x80", 9, "0xf4"},      // past U+10FFFF
                          Case{"\xf5\x80\x80\x80", 9, "0xf5"},      // no such lead byte
                          Case{"\xe2\x82", 9, "0xe2"},              // cut off (by the "b" after it)
                          Case{"\xe2\x82\xac\xff", 12, "0xff"}}) {  // after a well-formed euro sign
        const Issues issues = parse(c.bytes);
        INFO(c.byte);
        REQUIRE(issues.size() == 1);
        CHECK(issues.list()[0].location.line == 1);
        CHECK(issues.list()[0].location.column == c.column);
        CHECK(issues.list()[0].message == "the text is not valid UTF-8 (byte " + c.byte + ")");
    }
}
