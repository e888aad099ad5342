// `fabricsim run` writes report.html into its results folder: the page `compare --html` writes
// for the same variants (docs/REPORTS.md), well-formed, naming every variant, fetching nothing.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <filesystem>
#include <string>

using namespace fabricsim::test;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// The page's own markup (before the inlined D3 source, whose JavaScript is not markup).
std::string markup(const std::string& page) { return page.substr(0, page.find("<script>\n")); }

}  // namespace

TEST_CASE("run writes report.html: compare's page for the run's variants, well-formed, nothing fetched",
          "[cli][report]") {
    TempDir dir("run-report");
    const auto out = dir.path() / "r";
    const auto r = run_fabricsim("run scenarios/ideal-transfers.yaml -q --out " + out.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::string page = read_file(out / "report.html");

    // The page compare writes for the same file: no row of the comparison depends on the wall
    // clock, and one file's columns are its variants' names, so the two are the same bytes.
    const auto html = dir.path() / "compare.html";
    REQUIRE(run_fabricsim("compare scenarios/ideal-transfers.yaml -q --html " + html.string()).exit_code == 0);
    CHECK(page == read_file(html));

    // Well-formed: one document, every element the page's markup opens is closed.
    const std::string own = markup(page);
    CHECK(page.rfind("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n", 0) == 0);
    REQUIRE(page.size() >= 16);
    CHECK(page.compare(page.size() - 16, 16, "</body>\n</html>\n") == 0);
    CHECK(count(own, "<body>") == 1);
    CHECK(count(own, "<table>") == count(own, "</table>"));
    CHECK(count(own, "<tr") == count(own, "</tr>"));
    CHECK(count(own, "<figure ") == count(own, "</figure>"));
    CHECK(count(own, "<figure ") >= 1);  // transfers: the FCT CDF at least
    CHECK(count(page, "<script>") == count(page, "</script>"));

    // Names every variant (both of ideal-transfers.yaml), in the text and as a column.
    for (const char* v : {"nic-400g", "nic-200g"}) {
        CHECK(page.find(std::string("<span class=\"variant\">") + v + "</span>") != std::string::npos);
        CHECK(page.find(std::string("<th>") + v + "</th>") != std::string::npos);
    }
    // Self-contained: no script, style, image or font from anywhere else.
    CHECK(own.find("src=") == std::string::npos);
    CHECK(own.find("href=") == std::string::npos);
    CHECK(own.find("<link") == std::string::npos);
    CHECK(own.find("@import") == std::string::npos);
    CHECK(page.find("<script src") == std::string::npos);
    CHECK(page.find("url(http") == std::string::npos);
}

TEST_CASE("run report.html of one training variant names it, and --no-html writes none and removes an old one",
          "[cli][report]") {
    TempDir dir("run-report-train");
    const auto out = dir.path() / "r";
    REQUIRE(run_fabricsim("run scenarios/training-llama70b.yaml -q --out " + out.string()).exit_code == 0);
    const std::string page = read_file(out / "report.html");
    CHECK(page.find("<title>training-llama70b — fabricsim</title>") != std::string::npos);
    CHECK(page.find("<span class=\"variant\">default</span> (ideal model)") != std::string::npos);
    CHECK(page.find("<figure id=\"plot-iteration\"") != std::string::npos);  // the iteration's breakdown
    CHECK(page.find("<th>better</th>") == std::string::npos);                // one variant: nothing to beat

    // report.html is one of run's own files: a run without it leaves no stale page behind.
    const auto r = run_fabricsim("run scenarios/training-llama70b.yaml -q --no-html --out " + out.string());
    REQUIRE(r.exit_code == 0);
    CHECK_FALSE(std::filesystem::exists(out / "report.html"));
    CHECK(std::filesystem::exists(out / "result.json"));
}
