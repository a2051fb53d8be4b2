#include "memory/memory_command.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "store/memory_repo.h"
#include "unit/memory/temp_store.h"

using gantry::memory::memoryCommand;
using gantry::store::MemoryRepo;
using gantry::store::NewMemory;
using gantry::testing::TempStore;

namespace {

struct Run {
  int code;
  std::string out, err;
};

Run run(TempStore& temp, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = memoryCommand(temp.store(), args, out, err);
  return {code, out.str(), err.str()};
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

}  // namespace

TEST_CASE("memory list prints one tab-separated row per memory, id first", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t mom = repo.insert(NewMemory{"person", "mom", "prefers\tcalls\nover texts"}).value();
  int64_t car = repo.insert(NewMemory{"fact", "car", "blue"}).value();
  REQUIRE(repo.supersede(car, mom).isOk());
  auto result = run(temp, {"list"});
  REQUIRE(result.code == 0);
  auto lines = split(result.out, '\n');
  REQUIRE(lines.size() == 2);
  auto first = split(lines[0], '\t');
  REQUIRE(first.size() == 7);
  CHECK(first[0] == std::to_string(car));
  CHECK(first[3] == "superseded_by=" + std::to_string(mom));
  auto second = split(lines[1], '\t');
  CHECK(second[0] == std::to_string(mom));
  CHECK(second[1] == "person");
  CHECK(second[2] == "chat");
  CHECK(second[3] == "active");
  CHECK(second[4].size() == 20);  // 2026-11-30T22:46:56Z
  CHECK(second[6] == "prefers calls over texts");
}

TEST_CASE("memory list filters by kind", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  repo.insert(NewMemory{"person", "mom", "x"});
  repo.insert(NewMemory{"fact", "car", "y"});
  auto result = run(temp, {"list", "--kind", "fact"});
  REQUIRE(result.code == 0);
  CHECK(split(result.out, '\n').size() == 1);
  CHECK(result.out.find("\tcar\t") != std::string::npos);
  CHECK(run(temp, {"list", "--kind", "rumour"}).code == 2);
}

TEST_CASE("memory list --conflicts prints the recorded contradictions", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  auto id = repo.insertConflict("diet", "eats meat", "vegetarian").value();
  auto result = run(temp, {"list", "--conflicts"});
  REQUIRE(result.code == 0);
  auto fields = split(split(result.out, '\n')[0], '\t');
  REQUIRE(fields.size() == 6);
  CHECK(fields[0] == std::to_string(id));
  CHECK(fields[1] == "open");
  CHECK(fields[5] == "vegetarian");
}

TEST_CASE("memory search prints matching rows best first", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  repo.insert(NewMemory{"fact", "weekend", "garden party"});
  int64_t garden = repo.insert(NewMemory{"fact", "garden", "tomatoes"}).value();
  auto result = run(temp, {"search", "garden", "OR"});
  REQUIRE(result.code == 0);
  auto lines = split(result.out, '\n');
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].rfind(std::to_string(garden) + "\t", 0) == 0);
}

TEST_CASE("memory forget removes a row and reports an unknown id", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t id = repo.insert(NewMemory{"fact", "car", "blue"}).value();
  auto removed = run(temp, {"forget", std::to_string(id)});
  CHECK(removed.code == 0);
  CHECK(removed.out.rfind(std::to_string(id) + "\t", 0) == 0);
  CHECK(repo.count().value() == 0);
  auto unknown = run(temp, {"forget", std::to_string(id)});
  CHECK(unknown.code == 1);
  CHECK(unknown.err.find("no memory with id") != std::string::npos);
}

TEST_CASE("memory command usage errors exit 2", "[memory]") {
  TempStore temp;
  for (const auto& args : std::vector<std::vector<std::string>>{{},
                                                                {"dance"},
                                                                {"forget"},
                                                                {"forget", "x1"},
                                                                {"forget", "-3"},
                                                                {"search"},
                                                                {"list", "--bogus"}}) {
    auto result = run(temp, args);
    CHECK(result.code == 2);
    CHECK(result.err.find("usage: gantry memory") != std::string::npos);
  }
  auto help = run(temp, {"--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("usage:") == 0);
}
