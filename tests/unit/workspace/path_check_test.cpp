#include "workspace/path_check.h"

#include <catch2/catch.hpp>
#include <vector>

#include "common/utf8.h"

using gantry::workspace::checkPath;
using gantry::workspace::child;

TEST_CASE("the root is named by an empty path, '.' or './'", "[workspace]") {
  for (const char* p : {"", ".", "./", ".//."}) CHECK(checkPath(p)->isRoot());
}

TEST_CASE("redundant slashes and '.' are dropped from a relative path", "[workspace]") {
  CHECK(checkPath("a//b/./c/")->text() == "a/b/c");
  CHECK(checkPath("a/b")->leaf() == "b");
  CHECK(checkPath("a/b")->parent().text() == "a");
}

TEST_CASE("'..' anywhere, absolute paths and unshowable bytes are refused", "[workspace]") {
  for (const std::string& p : std::vector<std::string>{
           "..", "../x", "a/..", "a/../b", "/etc", "//x", std::string("a\0b", 3), "a\nb", "a\x7f",
           "\xff", "\xc0\xaf", "\xed\xa0\x80"}) {
    INFO(gantry::toolserver::printable(p));
    CHECK_FALSE(checkPath(p).isOk());
  }
  CHECK(checkPath("/etc").status().message() ==
        "path '/etc': is absolute; paths are relative to the workspace root");
  CHECK(checkPath(std::string("a\0b", 3)).status().message() ==
        "path 'a\\x00b': contains a NUL byte");
}

TEST_CASE("a child name must be one component", "[workspace]") {
  CHECK(child(checkPath("a").value(), "b")->text() == "a/b");
  CHECK_FALSE(child(checkPath("a").value(), "..").isOk());
  CHECK_FALSE(child(checkPath("a").value(), "b/c").isOk());
}

TEST_CASE("UTF-8 validation accepts text and refuses overlongs and surrogates", "[workspace]") {
  using gantry::toolserver::isValidUtf8;
  CHECK(isValidUtf8("plain ascii"));
  CHECK(isValidUtf8("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80"));
  CHECK_FALSE(isValidUtf8("\xc0\x80"));
  CHECK_FALSE(isValidUtf8("\xed\xa0\x80"));
  CHECK_FALSE(isValidUtf8("\xf4\x90\x80\x80"));
  CHECK_FALSE(isValidUtf8("\xe2\x82"));
  CHECK(gantry::toolserver::printable("a\xff\n") == "a\\xFF\\x0A");
}
