// gantry-workspace through the real binary: its tools do what they say, and it speaks MCP
// (version negotiation, ping, errors) the way a client expects.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tools/support/scratch_dir.h"
#include "tools/support/server_process.h"

using gantry::testing::ScratchDir;
using gantry::testing::ServerProcess;
using gantry::testing::toolBinary;

namespace {

ServerProcess workspace(const ScratchDir& dir, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--root", dir.path()};
  args.insert(args.end(), extra.begin(), extra.end());
  return ServerProcess(toolBinary("gantry-workspace"), args);
}

Poco::JSON::Object::Ptr initParams(const std::string& version) {
  Poco::JSON::Object::Ptr params = new Poco::JSON::Object;
  params->set("protocolVersion", version);
  return params;
}

}  // namespace

TEST_CASE("read_file returns a slice of lines and describes binary files", "[workspace]") {
  ScratchDir dir("ws-read");
  dir.write("lines.txt", "one\ntwo\nthree\nfour\n");
  dir.write("blob.bin", std::string("\x89PNG\r\n\x1a\n\0\0", 10));
  auto server = workspace(dir);
  CHECK(server.call("read_file", R"({"path":"lines.txt"})").text == "one\ntwo\nthree\nfour\n");
  CHECK(server.call("read_file", R"({"path":"lines.txt","offset":1,"limit":2})").text ==
        "two\nthree\n");
  const auto blob = server.call("read_file", R"({"path":"blob.bin"})");
  CHECK_FALSE(blob.is_error);
  CHECK(blob.text == "path 'blob.bin': binary file, 10 bytes (not UTF-8 text); contents not shown");
  CHECK(server.call("read_file", R"({"path":"missing.txt"})").text ==
        "path 'missing.txt': does not exist");
  CHECK(server.call("read_file", R"({"path":"."})").text.find("is a directory") !=
        std::string::npos);
}

TEST_CASE("files over --max-file-bytes are refused with the cap named", "[workspace]") {
  ScratchDir dir("ws-cap");
  dir.write("big.txt", std::string(2000, 'a'));
  auto server = workspace(dir, {"--max-file-bytes", "1000"});
  const auto r = server.call("read_file", R"({"path":"big.txt"})");
  CHECK(r.is_error);
  CHECK(r.text == "path 'big.txt': is 2000 bytes, over the 1000-byte cap (--max-file-bytes)");
}

TEST_CASE("list_dir lists sorted entries to the depth asked and caps the count", "[workspace]") {
  ScratchDir dir("ws-list");
  dir.write("b.txt", "bb");
  dir.write("a/inner.txt", "i");
  dir.write("a/deeper/x.txt", "x");
  std::filesystem::create_symlink("b.txt", dir / "link");
  auto server = workspace(dir, {"--max-list", "3"});
  CHECK(server.call("list_dir", R"({"path":""})").text == "a/\nb.txt (2 bytes)\nlink@\n");
  CHECK(server.call("list_dir", R"({"path":".","depth":2})").text ==
        "a/\n  deeper/\n  inner.txt (1 bytes)\n(truncated: --max-list 3)\n");
  CHECK(server.call("list_dir", R"({"path":".","depth":4})").is_error);
}

TEST_CASE("search_files finds names by glob and lines by text", "[workspace]") {
  ScratchDir dir("ws-search");
  dir.write("notes/a.md", "alpha\nthe needle here\n");
  dir.write("notes/b.txt", "needle too\n");
  dir.write("c.md", "nothing\n");
  auto server = workspace(dir);
  CHECK(server.call("search_files", R"({"name":"*.md"})").text == "c.md\nnotes/a.md\n");
  CHECK(server.call("search_files", R"({"text":"needle"})").text ==
        "notes/a.md:2: the needle here\nnotes/b.txt:1: needle too\n");
  CHECK(server.call("search_files", R"({"path":"notes","name":"*.md","text":"needle"})").text ==
        "notes/a.md:2: the needle here\n");
  CHECK(server.call("search_files", R"({})").is_error);
}

TEST_CASE("file_info describes a file and a symlink without following it", "[workspace]") {
  ScratchDir dir("ws-info");
  dir.write("f.txt", "12345");
  ::chmod((dir / "f.txt").c_str(), 0640);
  std::filesystem::create_symlink("/etc/passwd", dir / "l");
  auto server = workspace(dir);
  const auto info = server.call("file_info", R"({"path":"f.txt"})").text;
  CHECK(info.find("type: file\nsize: 5\nmode: 0640\nlinks: 1\n") != std::string::npos);
  const auto link = server.call("file_info", R"({"path":"l"})").text;
  CHECK(link.find("type: symlink") != std::string::npos);
  CHECK(link.find("target: /etc/passwd") != std::string::npos);
}

TEST_CASE("with --write files are written atomically, appended, moved and dirs made",
          "[workspace]") {
  ScratchDir dir("ws-write");
  dir.write("keep.txt", "old");
  ::chmod((dir / "keep.txt").c_str(), 0600);
  auto server = workspace(dir, {"--write"});
  CHECK(server.call("write_file", R"({"path":"keep.txt","content":"new"})").text ==
        "wrote keep.txt (3 bytes)");
  CHECK(dir.read("keep.txt") == "new");
  CHECK((std::filesystem::status(dir / "keep.txt").permissions() & std::filesystem::perms::all) ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  CHECK_FALSE(server.call("append_file", R"({"path":"keep.txt","content":"+more"})").is_error);
  CHECK_FALSE(server.call("append_file", R"({"path":"fresh.txt","content":"first"})").is_error);
  CHECK(dir.read("keep.txt") == "new+more");
  CHECK(dir.read("fresh.txt") == "first");
  CHECK_FALSE(server.call("make_dir", R"({"path":"x/y/z"})").is_error);
  CHECK(std::filesystem::is_directory(dir / "x/y/z"));
  CHECK_FALSE(server.call("move", R"({"from":"fresh.txt","to":"x/y/moved.txt"})").is_error);
  CHECK(dir.read("x/y/moved.txt") == "first");
  CHECK(server.call("move", R"({"from":"keep.txt","to":"x/y/moved.txt"})")
            .text.find("already exists") != std::string::npos);
  CHECK(server.call("write_file", "{\"path\":\"bin\",\"content\":\"\\u0000ok\"}").is_error ==
        false);
  CHECK(server.call("write_file", R"({"path":"x","content":"over a dir"})").is_error);
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    CHECK(e.path().filename().string().rfind(".gantry-write-", 0) == std::string::npos);
  }
}

TEST_CASE("delete exists only with --delete and removes only empty directories", "[workspace]") {
  ScratchDir dir("ws-delete");
  dir.write("gone.txt", "x");
  dir.write("full/file.txt", "x");
  auto plain = workspace(dir, {"--write"});
  CHECK(plain.call("delete", R"({"path":"gone.txt"})").text.find("unknown tool") !=
        std::string::npos);
  auto server = workspace(dir, {"--write", "--delete"});
  CHECK(server.call("delete", R"({"path":"gone.txt"})").text == "deleted gone.txt");
  CHECK_FALSE(std::filesystem::exists(dir / "gone.txt"));
  CHECK(server.call("delete", R"({"path":"full"})").is_error);
  CHECK(server.call("delete", R"({"path":"."})").is_error);
}

TEST_CASE("the workspace server negotiates the protocol version and answers ping",
          "[workspace][mcp]") {
  ScratchDir dir("ws-mcp");
  ServerProcess server(toolBinary("gantry-workspace"), {"--root", dir.path()});
  for (const char* version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    CHECK(server.request("initialize", initParams(version))
              .find(std::string("\"protocolVersion\":\"") + version + "\"") != std::string::npos);
  }
  CHECK(server.request("initialize", initParams("1999-01-01")).find("\"2025-11-25\"") !=
        std::string::npos);
  CHECK(server.request("ping", nullptr).find("\"result\":{}") != std::string::npos);
  CHECK(server.request("resources/list", nullptr).find("-32601") != std::string::npos);
  CHECK(server.raw("this is not json").find("-32700") != std::string::npos);
  CHECK(server.call("read_file", R"({})").text.find("missing argument 'path'") !=
        std::string::npos);
}

TEST_CASE("gantry-workspace refuses a bad command line with exit code 2", "[workspace]") {
  CHECK(std::system((toolBinary("gantry-workspace") + " --bogus 2>/dev/null").c_str()) == 2 << 8);
  CHECK(std::system((toolBinary("gantry-workspace") + " 2>/dev/null </dev/null").c_str()) ==
        2 << 8);
  CHECK(std::system((toolBinary("gantry-workspace") + " --root /nonexistent 2>/dev/null </dev/null")
                        .c_str()) == 1 << 8);
}
