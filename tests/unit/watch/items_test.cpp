#include "watch/items.h"

#include <catch2/catch.hpp>

using gantry::watch::extractItems;
using gantry::watch::Item;
using gantry::watch::ItemSpec;

namespace {

std::vector<std::string> ids(const std::string& result, const ItemSpec& spec = {}) {
  auto items = extractItems(result, spec);
  INFO(items.status().message());
  REQUIRE(items.isOk());
  std::vector<std::string> out;
  for (const Item& item : items.value()) out.push_back(item.id);
  return out;
}

std::string error(const std::string& result, const ItemSpec& spec = {}) {
  auto items = extractItems(result, spec);
  REQUIRE_FALSE(items.isOk());
  return items.status().message();
}

}  // namespace

TEST_CASE("a top-level array's elements are identified by id, guid, url or link", "[watch]") {
  CHECK(ids(R"([{"id":7,"title":"a"},{"guid":"g-1"},{"url":"https://x/1"},{"link":"l"}])") ==
        std::vector<std::string>{"7", "g-1", "https://x/1", "l"});
}

TEST_CASE("the elements of a result object's single array field are its items", "[watch]") {
  CHECK(ids(R"({"count":2,"entries":[{"id":"a"},{"id":"b"}]})") ==
        std::vector<std::string>{"a", "b"});
}

TEST_CASE("an element without an id is identified by a hash of itself", "[watch]") {
  auto first = ids(R"([{"title":"x"},{"title":"y"}])");
  REQUIRE(first.size() == 2);
  CHECK(first[0].rfind("sha256:", 0) == 0);
  CHECK(first[0] != first[1]);
  CHECK(ids(R"([{"title":"x"}])")[0] == first[0]);  // stable across polls
}

TEST_CASE("string elements are their own ids and repeated ids count once", "[watch]") {
  CHECK(ids(R"(["a","b","a"])") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("items may name the array and the id field as JSON pointers", "[watch]") {
  const std::string result =
      R"({"feed":{"items":[{"meta":{"key":"k1"},"id":"no"},{"meta":{"key":"k/2"}}]},"other":[1]})";
  CHECK(ids(result, {"/feed/items", "/meta/key"}) == std::vector<std::string>{"k1", "k/2"});
  CHECK(ids(R"({"a/b":[{"id":1}]})", {"/a~1b", ""}) == std::vector<std::string>{"1"});
  CHECK(error(result, {"/feed/none", ""}) ==
        R"(items.array "/feed/none" names no array in the result)");
}

TEST_CASE("a text result is one item per non-blank line", "[watch]") {
  CHECK(ids("first line\n\n  second line  \nfirst line\n") ==
        std::vector<std::string>{"first line", "second line"});
  auto items = extractItems("one\ntwo", {});
  REQUIRE(items.isOk());
  CHECK(items->at(1).text == "two");
}

TEST_CASE("an object with no single array field asks for items.array, a lone value is one item",
          "[watch]") {
  CHECK(error(R"({"a":[1],"b":[2]})").find("name the list of items with items.array") !=
        std::string::npos);
  CHECK(ids("42") == std::vector<std::string>{"42"});  // a lone value: one line of text
  CHECK(error("not json", {"/items", ""}).find("not JSON") != std::string::npos);
}

TEST_CASE("a long id is kept as its hash and a result gives at most kMaxItems items", "[watch]") {
  const std::string long_id(gantry::watch::kMaxIdChars + 1, 'x');
  CHECK(ids("[\"" + long_id + "\"]")[0] == gantry::watch::hashId(long_id));
  std::string many = "[";
  for (std::size_t i = 0; i < gantry::watch::kMaxItems + 10; ++i) {
    many += (i ? "," : "") + std::to_string(i);
  }
  CHECK(ids(many + "]").size() == gantry::watch::kMaxItems);
}

TEST_CASE("a pointer must start with a slash", "[watch]") {
  CHECK(gantry::watch::checkPointer("", "items.array").isOk());
  CHECK(gantry::watch::checkPointer("/a", "items.array").isOk());
  CHECK(gantry::watch::checkPointer("entries", "items.array").message() ==
        R"(items.array "entries" is not a JSON pointer; it starts with "/", e.g. "/items")");
}
