#pragma once
/// The process environment, read once at start and then kept inside the process: secrets
/// that arrived as variables (a passphrase, a plain token) are wiped from the environment
/// block the kernel shows in /proc/PID/environ and from environ itself.

#include <string>
#include <string_view>
#include <vector>

namespace gantry::config {

/// Copies the environment, then overwrites and unsets every secret-bearing variable (see
/// isSecretName). Call first in main, before any thread starts. Idempotent.
void captureEnvironment();

/// True for variables that carry credentials by name: *_KEY, *_TOKEN, *_PASSPHRASE,
/// *_SECRET, *_PASSWORD.
bool isSecretName(std::string_view name);

/// The environment as captured ("NAME=value" entries), secrets included, for a restart in
/// place; the live environment when nothing was captured.
std::vector<std::string> capturedEnvironment();

/// A variable as captured (empty values count as unset); nullptr when unset.
const std::string* capturedVariable(std::string_view name);

}  // namespace gantry::config
