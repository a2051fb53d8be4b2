#include "watch/items.h"

#include <Poco/DigestEngine.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/SHA2Engine.h>

#include <optional>
#include <set>
#include <sstream>

#include "gantry/text/trim.h"

namespace gantry::watch {
namespace {

using Poco::Dynamic::Var;
using Poco::JSON::Array;
using Poco::JSON::Object;

std::optional<Var> parseJson(const std::string& text) {
  try {
    Poco::JSON::Parser parser;
    return parser.parse(text);
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
}

std::string compact(const Var& value) {
  if (value.isString()) return value.extract<std::string>();
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(value, out);
  return out.str();
}

std::string unescapeToken(const std::string& token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[++i] == '0' ? '~' : '/';
    } else {
      out += token[i];
    }
  }
  return out;
}

std::optional<Var> step(const Var& value, const std::string& token) {
  if (value.type() == typeid(Object::Ptr)) {
    const auto& object = value.extract<Object::Ptr>();
    if (object.isNull() || !object->has(token)) return std::nullopt;
    return object->get(token);
  }
  if (value.type() == typeid(Array::Ptr)) {
    const auto& array = value.extract<Array::Ptr>();
    if (array.isNull() || token.empty() ||
        token.find_first_not_of("0123456789") != std::string::npos || token.size() > 9) {
      return std::nullopt;
    }
    const auto index = std::stoul(token);
    if (index >= array->size()) return std::nullopt;
    return array->get(static_cast<unsigned>(index));
  }
  return std::nullopt;
}

/// The value pointer names in root; nullopt when it names nothing.
std::optional<Var> resolve(const Var& root, const std::string& pointer) {
  Var current = root;
  std::size_t at = 0;
  while (at < pointer.size()) {
    const std::size_t next = pointer.find('/', at + 1);
    const std::string token =
        unescapeToken(pointer.substr(at + 1, next == std::string::npos ? next : next - at - 1));
    auto found = step(current, token);
    if (!found) return std::nullopt;
    current = *found;
    at = next == std::string::npos ? pointer.size() : next;
  }
  return current;
}

Array::Ptr asArray(const Var& value) {
  return value.type() == typeid(Array::Ptr) ? value.extract<Array::Ptr>() : Array::Ptr();
}

/// The array of items when no pointer names it: the root, or the root object's one array.
Result<Array::Ptr> defaultArray(const Var& root) {
  if (auto array = asArray(root); !array.isNull()) return array;
  if (root.type() != typeid(Object::Ptr)) {
    return Status::error("the result is a single JSON value, not a list of items");
  }
  const auto& object = root.extract<Object::Ptr>();
  Array::Ptr found;
  int arrays = 0;
  for (const auto& [name, value] : *object) {
    if (auto array = asArray(value); !array.isNull()) {
      found = array;
      ++arrays;
    }
  }
  if (arrays == 1) return found;
  return Status::error("the result is a JSON object with " + std::to_string(arrays) +
                       " array fields; name the list of items with items.array, a JSON "
                       "pointer such as \"/entries\"");
}

std::string boundedId(const std::string& id) { return id.size() > kMaxIdChars ? hashId(id) : id; }

std::optional<std::string> scalarText(const std::optional<Var>& value) {
  if (!value || value->isEmpty() || value->type() == typeid(Object::Ptr) ||
      value->type() == typeid(Array::Ptr)) {
    return std::nullopt;
  }
  std::string text = value->toString();
  if (text::trim(text).empty()) return std::nullopt;
  return text;
}

std::string elementId(const Var& element, const std::string& id_pointer) {
  if (!id_pointer.empty()) {
    if (auto id = scalarText(resolve(element, id_pointer))) return boundedId(*id);
  } else if (element.type() == typeid(Object::Ptr)) {
    for (const char* key : {"id", "guid", "url", "link"}) {
      if (auto id = scalarText(step(element, key))) return boundedId(*id);
    }
  } else if (auto id = scalarText(std::optional<Var>(std::in_place, element))) {
    return boundedId(*id);
  }
  return hashId(compact(element));
}

void addItem(std::vector<Item>& items, std::set<std::string>& ids, Item item) {
  if (items.size() >= kMaxItems || !ids.insert(item.id).second) return;
  items.push_back(std::move(item));
}

std::vector<Item> lineItems(const std::string& text) {
  std::vector<Item> items;
  std::set<std::string> ids;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::string trimmed(text::trim(line));
    if (!trimmed.empty()) addItem(items, ids, {boundedId(trimmed), trimmed});
  }
  return items;
}

}  // namespace

std::string hashId(const std::string& text) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(text.data(), static_cast<unsigned>(text.size()));
  return "sha256:" + Poco::DigestEngine::digestToHex(sha.digest()).substr(0, 32);
}

Status checkPointer(const std::string& pointer, const std::string& what) {
  if (pointer.empty() || pointer[0] == '/') return Status::ok();
  return Status::error(what + " \"" + pointer +
                       "\" is not a JSON pointer; it starts with \"/\", e.g. \"/items\"");
}

Result<std::vector<Item>> extractItems(const std::string& result, const ItemSpec& spec) {
  std::optional<Var> root = parseJson(result);
  if (!root || root->isString()) {
    if (!spec.array_pointer.empty()) {
      return Status::error("the result is not JSON, so items.array \"" + spec.array_pointer +
                           "\" names nothing");
    }
    return lineItems(root ? root->extract<std::string>() : result);
  }
  Array::Ptr array;
  if (spec.array_pointer.empty()) {
    Result<Array::Ptr> found = defaultArray(*root);
    if (!found.isOk()) return found.status();
    array = found.value();
  } else {
    std::optional<Var> named = resolve(*root, spec.array_pointer);
    if (named) array = asArray(*named);
    if (array.isNull()) {
      return Status::error("items.array \"" + spec.array_pointer +
                           "\" names no array in the result");
    }
  }
  std::vector<Item> items;
  std::set<std::string> ids;
  for (unsigned i = 0; i < array->size(); ++i) {
    const Var element = array->get(i);
    addItem(items, ids, {elementId(element, spec.id_pointer), compact(element)});
  }
  return items;
}

}  // namespace gantry::watch
