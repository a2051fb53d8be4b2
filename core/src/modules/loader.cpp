#include "modules/loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <map>
#include <regex>

#include "config/plain_http.h"
#include "config/secret_ref.h"

namespace fs = std::filesystem;

namespace gantry::modules {
namespace {

constexpr std::size_t kMinDescSize =
    offsetof(gantry_module_desc, create_provider) + sizeof(gantry_module_desc::create_provider);

std::string prefix(ModuleKind kind) { return std::string(kindName(kind)) + "_"; }

Status missing(const std::string& dir, ModuleKind kind, const std::string& name) {
  std::string list;
  for (const auto& n : available(dir, kind)) list += (list.empty() ? "" : ", ") + n;
  return Status::error("module: " + std::string(kindName(kind)) + " \"" + name +
                       "\" not found: " + (fs::path(dir) / (prefix(kind) + name + ".so")).string() +
                       " does not exist (available in " + dir + ": " +
                       (list.empty() ? "none" : list) + ")");
}

Result<gantry_module_entry_fn> openEntry(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return Status::error("module: cannot load " + path + ": " + dlerror());
  void* symbol = dlsym(handle, GANTRY_MODULE_ENTRY_NAME);
  if (!symbol) {
    return Status::error("module: " + path +
                         " does not export " GANTRY_MODULE_ENTRY_NAME " (not a gantry module)");
  }
  return reinterpret_cast<gantry_module_entry_fn>(symbol);
}

Status checkAbi(const std::string& path, const gantry_module_desc* d) {
  if (!d) return Status::error("module: " + path + ": " GANTRY_MODULE_ENTRY_NAME " returned null");
  if (d->abi_version != GANTRY_ABI_VERSION) {
    return Status::error("module: " + path + " has ABI version " + std::to_string(d->abi_version) +
                         ", this gantry has " + std::to_string(GANTRY_ABI_VERSION) +
                         " (rebuild the module)");
  }
  if (d->struct_size < kMinDescSize) {
    return Status::error("module: " + path + " descriptor is " + std::to_string(d->struct_size) +
                         " bytes, this gantry needs at least " + std::to_string(kMinDescSize) +
                         " (rebuild the module)");
  }
  std::string theirs = d->build_signature ? d->build_signature : "(none)";
  if (theirs != GANTRY_BUILD_SIGNATURE) {
    return Status::error("module: " + path + " was built as \"" + theirs +
                         "\", this gantry as \"" GANTRY_BUILD_SIGNATURE
                         "\" (rebuild it with the same compiler and headers)");
  }
  return Status::ok();
}

Status checkIdentity(const std::string& path, const gantry_module_desc* d, ModuleKind kind,
                     const std::string& name) {
  if (d->kind != kind) {
    bool known = d->kind == ModuleKind::kChannel || d->kind == ModuleKind::kProvider;
    return Status::error("module: " + path + " is a " +
                         (known ? kindName(d->kind) : "unknown-kind") + " module, expected a " +
                         kindName(kind));
  }
  std::string theirs = d->name ? d->name : "";
  if (theirs != name) {
    return Status::error("module: " + path + " declares name \"" + theirs + "\", expected \"" +
                         name + "\"");
  }
  return Status::ok();
}

std::string exeDir() {
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

template <class T, class Factory>
Result<std::unique_ptr<T>> runFactory(const Module& m, Host& host, Factory factory) {
  std::string label = std::string(kindName(m.desc->kind)) + " " + m.desc->name;
  if (!factory)
    return Status::error("module: " + m.path + " has no " + kindName(m.desc->kind) + " factory");
  std::string err;
  T* made = nullptr;
  try {
    made = factory(host, &err);
  } catch (const std::exception& e) {
    return Status::error(label + ": factory threw: " + e.what());
  } catch (...) {
    return Status::error(label + ": factory threw an unknown exception");
  }
  if (!made) return Status::error(label + ": " + (err.empty() ? "factory returned nothing" : err));
  return std::unique_ptr<T>(made);
}

}  // namespace

const char* kindName(ModuleKind kind) {
  return kind == ModuleKind::kChannel ? "channel" : "provider";
}

std::string moduleDir(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (auto dir = exeDir(); !dir.empty() && fs::is_directory(fs::path(dir) / "modules")) {
    return (fs::path(dir) / "modules").string();
  }
  return GANTRY_INSTALL_MODULE_DIR;
}

std::vector<std::string> available(const std::string& dir, ModuleKind kind) {
  std::vector<std::string> names;
  std::error_code ec;
  std::string pre = prefix(kind);
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string file = entry.path().filename().string();
    if (file.rfind(pre, 0) == 0 && entry.path().extension() == ".so") {
      names.push_back(file.substr(pre.size(), file.size() - pre.size() - 3));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<Module> load(const std::string& dir, ModuleKind kind, const std::string& name) {
  static const std::regex kName("[a-z0-9_]+");
  if (!std::regex_match(name, kName)) {
    return Status::error("module: \"" + name + "\" is not a module name ([a-z0-9_]+)");
  }
  std::string path = (fs::path(dir) / (prefix(kind) + name + ".so")).string();
  if (!fs::exists(path)) return missing(dir, kind, name);
  auto entry = openEntry(path);
  if (!entry.isOk()) return entry.status();
  const gantry_module_desc* desc = entry.value()();
  if (Status s = checkAbi(path, desc); !s.isOk()) return s;
  if (Status s = checkIdentity(path, desc, kind, name); !s.isOk()) return s;
  return Module{path, desc};
}

config::EnvLookup withDeclaredDefaults(config::EnvLookup env, const std::vector<Module>& modules) {
  std::map<std::string, std::string, std::less<>> defaults;
  for (const Module& module : modules) {
    for (const ConfigKey* key = module.desc->config; key && key->name; ++key) {
      if (key->default_value) defaults.emplace(key->name, key->default_value);
    }
  }
  return [env = std::move(env),
          defaults = std::move(defaults)](std::string_view key) -> std::optional<std::string> {
    if (auto value = env(key)) return value;
    auto found = defaults.find(key);
    if (found == defaults.end()) return std::nullopt;
    return found->second;
  };
}

Status checkConfig(const Module& module, const Host& host) {
  for (const ConfigKey* key = module.desc->config; key && key->name; ++key) {
    auto value = host.config(key->name);
    if (value) {
      if (auto error = config::unresolvedSecret(key->name, *value)) return Status::error(*error);
    }
    if (key->required && !value) {
      return Status::error(std::string(key->name) + ": required by the " +
                           kindName(module.desc->kind) + " module \"" + module.desc->name +
                           "\" but not set");
    }
  }
  return Status::ok();
}

Status checkPlainHttp(const Module& module, const Host& host) {
  const ConfigKey* secret = nullptr;
  for (const ConfigKey* key = module.desc->config; key && key->name && !secret; ++key) {
    auto value = host.config(key->name);
    if (key->secret && value && !value->empty()) secret = key;
  }
  if (secret == nullptr) return Status::ok();
  for (const ConfigKey* key = module.desc->config; key && key->name; ++key) {
    auto value = host.config(key->name);
    if (!value || !config::isPlainHttpToRemote(*value)) continue;
    return Status::error(std::string(key->name) + "=" + *value + " would send " + secret->name +
                         " in clear over plain http to a host that is not loopback; use https, "
                         "or set ALLOW_INSECURE_HTTP=true to allow it");
  }
  return Status::ok();
}

Result<std::unique_ptr<Channel>> createChannel(const Module& module, Host& host) {
  return runFactory<Channel>(module, host, module.desc->create_channel);
}

Result<std::unique_ptr<Provider>> createProvider(const Module& module, Host& host) {
  return runFactory<Provider>(module, host, module.desc->create_provider);
}

}  // namespace gantry::modules
