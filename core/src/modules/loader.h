#pragma once
/// Module loading: dlopen one channel and one provider module through gantry_module_v1,
/// each check a small step with its own one-line error naming the path and both values.

#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "gantry/abi.h"

namespace gantry::modules {

/// A loaded, checked module. Modules are never unloaded.
struct Module {
  std::string path;
  const gantry_module_desc* desc = nullptr;
};

const char* kindName(ModuleKind kind);

/// GANTRY_MODULE_DIR when given, else `<dir of this executable>/modules` when it exists
/// (the build tree), else the install default.
std::string moduleDir(const std::string& configured);

/// Names of the modules of a kind present in dir, sorted (`channel_stdio.so` → "stdio").
std::vector<std::string> available(const std::string& dir, ModuleKind kind);

/// Finds, loads and checks `<kind>_<name>.so` in dir: exists, loads, exports the entry,
/// ABI version, descriptor size, build signature, kind and name.
Result<Module> load(const std::string& dir, ModuleKind kind, const std::string& name);

/// env with the modules' declared defaults (ConfigKey::default_value) for keys it leaves
/// unset; the first module in `modules` that declares a default for a key wins. The modules'
/// descriptors are static, so the result may outlive the vector.
config::EnvLookup withDeclaredDefaults(config::EnvLookup env, const std::vector<Module>& modules);

/// Checks the module's required config keys are set (through host.config()).
Status checkConfig(const Module& module, const Host& host);

/// Refuses a module that would send a credential in clear: when one of its secret keys is
/// set, none of its keys may hold a plain http:// URL to a host that is not loopback. The
/// error names the URL's variable, the secret's and ALLOW_INSECURE_HTTP.
Status checkPlainHttp(const Module& module, const Host& host);

/// Runs the module's factory; a null result, a missing factory or an exception is an error.
Result<std::unique_ptr<Channel>> createChannel(const Module& module, Host& host);
Result<std::unique_ptr<Provider>> createProvider(const Module& module, Host& host);

}  // namespace gantry::modules
