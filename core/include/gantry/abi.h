#pragma once
/// The module ABI: one exported C entry, gantry_module_v1, returning a static descriptor.
/// Descriptor fields only ever grow at the end; bump GANTRY_ABI_VERSION on any change to a
/// boundary type or interface.

#include <cstdint>
#include <string>

#include "gantry/channel.h"
#include "gantry/host.h"
#include "gantry/provider.h"

/// 2: ChannelCaps::replays_inbox, Channel::ownerReports() and quoteBlock(), default
/// streamText()/event(); ChannelCaps::markup dropped; ConfigKey::default_value is served.
/// 3: Usage::cached_tokens, ChatResponse::model. 4: ChatRequest::max_tokens,
/// Channel::offerCommands(). 5: InboundSink::onMessages(). 6: kAnswerInText (a constrained
/// retry may answer in text), ChatMessage::images on tool results.
/// 7: ChatRequest::system. 8: Channel::ownerChat() and status().
#define GANTRY_ABI_VERSION 8

#define GANTRY_STRINGIFY_(x) #x
#define GANTRY_STRINGIFY(x) GANTRY_STRINGIFY_(x)

#ifndef GANTRY_HEADER_HASH  // set by the build from the bytes of core/include/gantry/*.h
#error "GANTRY_HEADER_HASH must be defined by the build"
#endif

/// Compared exactly: a module built by another compiler, standard library ABI or interface
/// headers is refused rather than trusted.
#define GANTRY_BUILD_SIGNATURE                                                                 \
  "abi=" GANTRY_STRINGIFY(                                                                     \
      GANTRY_ABI_VERSION) ";cc=" __VERSION__                                                   \
                          ";cxx=" GANTRY_STRINGIFY(__cplusplus) ";cxx11abi=" GANTRY_STRINGIFY( \
                              _GLIBCXX_USE_CXX11_ABI) ";headers=" GANTRY_HEADER_HASH

namespace gantry {

enum class ModuleKind : std::uint32_t { kChannel = 1, kProvider = 2 };

/// An environment key a module reads; the host checks required keys before the factory.
struct ConfigKey {
  const char* name;  ///< null name ends the list
  /// What Host::config() returns while the environment leaves the key unset; null when none.
  /// A module may declare a default for a key another module reads (the stdio channel points
  /// LLM_BASE_URL at a local model server); the channel's declarations win over the provider's.
  const char* default_value;
  bool required;
  bool secret;  ///< redacted from logs
};

}  // namespace gantry

extern "C" {

/// Frozen prefix first; new fields are appended only.
// NOLINTNEXTLINE(readability-identifier-naming): the C entry's type, named as in DESIGN 2.1
struct gantry_module_desc {
  std::uint32_t abi_version;
  std::uint32_t struct_size;
  const char* build_signature;
  gantry::ModuleKind kind;
  const char* name;
  const char* version;
  const gantry::ConfigKey* config;  ///< terminated by {nullptr, ...}
  /// Exactly one of the factories is set, matching kind. On failure they return null and
  /// set *err. Ownership of the result passes to the host. They must not throw; the host
  /// still catches, so a faulty module is refused instead of aborting the process.
  gantry::Channel* (*create_channel)(gantry::Host& host, std::string* err);
  gantry::Provider* (*create_provider)(gantry::Host& host, std::string* err);
};

typedef const gantry_module_desc* (*gantry_module_entry_fn)();
}

#define GANTRY_MODULE_ENTRY_NAME "gantry_module_v1"

/// Defines the one exported symbol of a module.
#define GANTRY_DECLARE_MODULE(desc)                                                                \
  extern "C" __attribute__((visibility("default"))) const gantry_module_desc* gantry_module_v1() { \
    return &(desc);                                                                                \
  }
