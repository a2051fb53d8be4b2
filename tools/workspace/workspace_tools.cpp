#include "workspace/workspace_tools.h"

#include <stdexcept>

namespace gantry::workspace {
namespace {

using Poco::JSON::Object;
using toolserver::objectSchema;
using toolserver::property;
using toolserver::ToolResult;

std::string text(const Object::Ptr& args, const std::string& key, bool required = true) {
  if (!args->has(key)) {
    if (required) throw std::invalid_argument("missing argument '" + key + "'");
    return "";
  }
  const auto value = args->get(key);
  if (!value.isString()) throw std::invalid_argument("argument '" + key + "' must be a string");
  return value.extract<std::string>();
}

std::optional<std::uint64_t> count(const Object::Ptr& args, const std::string& key) {
  if (!args->has(key) || args->get(key).isEmpty()) return std::nullopt;
  const auto value = args->get(key);
  if (!value.isInteger() || value.convert<std::int64_t>() < 0) {
    throw std::invalid_argument("argument '" + key + "' must be a non-negative integer");
  }
  return value.convert<std::uint64_t>();
}

ToolResult toResult(const Result<std::string>& result) {
  return result.isOk() ? ToolResult::ok(result.value())
                       : ToolResult::error(result.status().message());
}

Object::Ptr props(std::initializer_list<std::pair<std::string, Object::Ptr>> entries) {
  Object::Ptr out = new Object;
  for (const auto& [name, schema] : entries) out->set(name, schema);
  return out;
}

Object::Ptr pathProp(const std::string& what = "path relative to the workspace root") {
  return property("string", what);
}

void addReadTools(toolserver::StdioServer& server, const ConfinedRoot& root, const Limits& limits) {
  server.add({"read_file",
              "Read a UTF-8 text file under the workspace root. offset skips lines, limit caps "
              "them. Binary files are described, not shown.",
              objectSchema(props({{"path", pathProp()},
                                  {"offset", property("integer", "lines to skip (default 0)")},
                                  {"limit", property("integer", "most lines to return")}}),
                           {"path"}),
              [&](const Object::Ptr& a) {
                return toResult(readFile(root, text(a, "path"), count(a, "offset").value_or(0),
                                         count(a, "limit"), limits));
              }});
  server.add({"list_dir", "List a directory under the workspace root (depth 1-3, default 1).",
              objectSchema(props({{"path", pathProp()},
                                  {"depth", property("integer", "levels to list, 1 to 3")}}),
                           {"path"}),
              [&](const Object::Ptr& a) {
                const auto depth = static_cast<int>(count(a, "depth").value_or(1));
                return toResult(listDir(root, text(a, "path"), depth, limits));
              }});
  server.add({"search_files",
              "Find files under a directory by name glob and/or the text they contain (bounded).",
              objectSchema(props({{"path", pathProp("directory to search (default the root)")},
                                  {"name", property("string", "file name glob, e.g. *.md")},
                                  {"text", property("string", "text the matching lines contain")}}),
                           {}),
              [&](const Object::Ptr& a) {
                return toResult(searchFiles(root, text(a, "path", false), text(a, "name", false),
                                            text(a, "text", false), limits));
              }});
  server.add({"file_info", "Type, size, mode, links and modification time of a path.",
              objectSchema(props({{"path", pathProp()}}), {"path"}),
              [&](const Object::Ptr& a) { return toResult(fileInfo(root, text(a, "path"))); }});
}

void addWriteTools(toolserver::StdioServer& server, const ConfinedRoot& root,
                   const Limits& limits) {
  const auto content = property("string", "UTF-8 text");
  server.add(
      {"write_file", "Create or replace a text file atomically.",
       objectSchema(props({{"path", pathProp()}, {"content", content}}), {"path", "content"}),
       [&](const Object::Ptr& a) {
         return toResult(writeFile(root, text(a, "path"), text(a, "content"), limits));
       }});
  server.add(
      {"append_file", "Append text to a file (created when missing).",
       objectSchema(props({{"path", pathProp()}, {"content", content}}), {"path", "content"}),
       [&](const Object::Ptr& a) {
         return toResult(appendFile(root, text(a, "path"), text(a, "content"), limits));
       }});
  server.add({"make_dir", "Create a directory and any missing parents.",
              objectSchema(props({{"path", pathProp()}}), {"path"}),
              [&](const Object::Ptr& a) { return toResult(makeDir(root, text(a, "path"))); }});
  server.add({"move", "Rename a file or directory; both ends stay under the root; never replaces.",
              objectSchema(props({{"from", pathProp()}, {"to", pathProp()}}), {"from", "to"}),
              [&](const Object::Ptr& a) {
                return toResult(move(root, text(a, "from"), text(a, "to"), limits));
              }});
}

}  // namespace

void addTools(toolserver::StdioServer& server, const ConfinedRoot& root, const Limits& limits,
              const Grants& grants) {
  addReadTools(server, root, limits);
  if (grants.write) addWriteTools(server, root, limits);
  if (grants.del) {
    server.add({"delete", "Delete a file, a symlink (not its target) or an empty directory.",
                objectSchema(props({{"path", pathProp()}}), {"path"}),
                [&](const Object::Ptr& a) { return toResult(remove(root, text(a, "path"))); }});
  }
}

}  // namespace gantry::workspace
