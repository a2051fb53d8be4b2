#!/usr/bin/env bash
# CI for the Debian package, run after the test suite (which builds the fake OpenAI server):
#   1. install the packaging tools and the build dependencies of packaging/debian/control
#   2. build the .deb (packaging/build-deb.sh) and run lintian on it (errors fail)
#   3. install it with apt-get, check what it installed, verify the systemd template unit
#   4. run the installed `gantry version`, and one stdio turn with the installed binary and
#      installed modules against the fake OpenAI server
#
#   bash packaging/ci-package.sh
#
# Environment: FAKE_OPENAI (default build/tests/fakes/openai/fake_openai),
# GANTRY_DEB_OUT (default build-pkg/out).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${GANTRY_DEB_OUT:-$src/build-pkg/out}
fake_openai=${FAKE_OPENAI:-$src/build/tests/fakes/openai/fake_openai}
export DEBIAN_FRONTEND=noninteractive
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

step() { printf '\n== ci-package: %s\n' "$*"; }
fail() { printf 'ci-package: FAIL: %s\n' "$*" >&2; exit 1; }

tools=(devscripts debhelper lintian fakeroot dpkg-dev systemd
  cmake g++ pkg-config libpoco-dev libsodium-dev libtomlplusplus-dev libcctz-dev
  rapidjson-dev libsqlite3-dev catch2)

install_tools() {
  step "install packaging tools and build dependencies"
  if ! $sudo apt-get install -y --no-install-recommends "${tools[@]}"; then
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends "${tools[@]}"
  fi
  dpkg-checkbuilddeps "$src/packaging/debian/control" ||
    fail "build dependencies in packaging/debian/control are not installed"
}

build_package() {
  step "build the package"
  bash "$src/packaging/build-deb.sh" "$out"
  deb=$(ls "$out"/gantry_*.deb | head -n 1)
  [ -f "$deb" ] || fail "no gantry_*.deb in $out"
  step "lintian $deb"
  lintian --fail-on error --display-info "$deb" || fail "lintian reported errors"
}

check_install() {
  step "install $deb"
  $sudo apt-get install -y --reinstall "$deb"
  for f in /usr/bin/gantry /usr/bin/gantry-workspace /usr/bin/gantry-fetch \
    /usr/share/man/man1/gantry-workspace.1.gz /usr/share/man/man1/gantry-fetch.1.gz \
    /usr/lib/gantry/modules/channel_stdio.so \
    /usr/lib/gantry/modules/provider_openai.so /lib/systemd/system/gantry@.service \
    /usr/share/man/man1/gantry.1.gz /usr/share/doc/gantry/copyright \
    /usr/share/doc/gantry/examples/gantry.env.example \
    /usr/share/doc/gantry/examples/mcp.toml.example \
    /usr/share/doc/gantry/examples/persona/IDENTITY.md; do
    [ -e "$f" ] || fail "the package did not install $f"
  done
  getent passwd gantry >/dev/null || fail "the package did not create the gantry user"
  step "systemd-analyze verify gantry@ci.service"
  local units
  units=$(mktemp -d)
  cp /lib/systemd/system/gantry@.service "$units/gantry@.service"
  ln -s gantry@.service "$units/gantry@ci.service"
  # verify prints problems but does not always fail on them: any output is a failure.
  local report
  report=$(cd "$units" && systemd-analyze verify --man=no "$units/gantry@ci.service" 2>&1) || true
  rm -rf "$units"
  [ -z "$report" ] || fail "systemd-analyze verify: $report"
}

start_fake_openai() {
  [ -x "$fake_openai" ] || fail "$fake_openai is missing (build the tests first)"
  fake_log=$work/fake_openai.out
  "$fake_openai" --port 0 >"$fake_log" 2>"$work/fake_openai.err" &
  fake_pid=$!
  for _ in $(seq 1 300); do
    port=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$fake_log" | head -n 1)
    [ -n "$port" ] && return 0
    kill -0 "$fake_pid" 2>/dev/null || fail "fake_openai exited: $(cat "$work/fake_openai.err")"
    sleep 0.1
  done
  fail "fake_openai printed no PORT line"
}

stdio_turn() {
  step "one stdio turn with the installed gantry and modules, as the unit runs it"
  mkdir -p "$work/data"
  cp -r /usr/share/doc/gantry/examples/persona "$work/persona"
  local status=0 tunables
  tunables=$(sed -n 's/^Environment=GLIBC_TUNABLES=//p' /lib/systemd/system/gantry@.service)
  [ -n "$tunables" ] || fail "gantry@.service sets no GLIBC_TUNABLES"
  printf 'hello\n' | env -u GANTRY_MODULE_DIR GLIBC_TUNABLES="$tunables" CHANNEL=stdio \
    LLM_BASE_URL="http://127.0.0.1:$port/v1" LLM_MODEL=fake \
    PERSONA_DIR="$work/persona" DATA_DIR="$work/data" MCP_MANIFEST="$work/mcp.toml" \
    timeout 120 /usr/bin/gantry >"$work/turn.out" 2>"$work/turn.err" || status=$?
  if [ "$status" -ne 0 ] || ! grep -qx 'echo: hello' "$work/turn.out"; then
    echo "--- stdout"; cat "$work/turn.out"; echo "--- stderr"; cat "$work/turn.err"
    fail "stdio turn: exit $status, expected the line 'echo: hello' on stdout"
  fi
  grep -q /usr/lib/gantry/modules/channel_stdio.so "$work/turn.err" ||
    fail "stdio turn did not load the installed modules: $(cat "$work/turn.err")"
  echo "reply: $(cat "$work/turn.out")"
}

init_commands() {
  step "gantry init (directory and instance)"
  (cd "$work" && /usr/bin/gantry init scaffold >/dev/null) || fail "gantry init DIR"
  [ -f "$work/scaffold/persona/IDENTITY.md" ] || fail "gantry init wrote no persona"
  GANTRY_ETC_DIR="$work/etc" /usr/bin/gantry init --instance ci >"$work/init.out" ||
    fail "gantry init --instance"
  grep -q 'systemctl enable --now gantry@ci' "$work/init.out" ||
    fail "gantry init --instance printed no systemctl line"
  [ "$(stat -c %a "$work/etc/ci.env")" = 600 ] || fail "instance env file is not mode 0600"
}

cleanup() {
  [ -n "${fake_pid:-}" ] && kill "$fake_pid" 2>/dev/null
  [ -n "${work:-}" ] && rm -rf "$work"
  return 0
}

main() {
  install_tools
  build_package
  check_install
  step "installed gantry version"
  /usr/bin/gantry version || fail "gantry version"
  work=$(mktemp -d)
  trap cleanup EXIT
  start_fake_openai
  stdio_turn
  init_commands
  step "package checks passed"
}

main "$@"
