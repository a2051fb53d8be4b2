#pragma once
/// The JSON bodies of the local API, parsed and checked before anything acts on them: only the
/// documented fields, each of its type. Pure; no I/O.

#include <Poco/JSON/Object.h>

#include <set>
#include <string>

#include "api/task_service.h"
#include "gantry/status.h"

namespace gantry::api {

/// The body as a JSON object with only the allowed keys; the error names what is wrong.
Result<Poco::JSON::Object::Ptr> parseObject(const std::string& body,
                                            const std::set<std::string>& allowed);

/// A string field ("" when absent or null and not required); an error for another type.
Result<std::string> textField(const Poco::JSON::Object& object, const std::string& key,
                              bool required);

/// A `POST /task` body: id, content, context[], sensitive, reply, chat, and the fields of the
/// Veskslop task body (guildId, channelId, author), which are kept as untrusted context.
Result<TaskRequest> parseTask(const std::string& body);

}  // namespace gantry::api
