#!/usr/bin/env bash
# Builds gantry_<version>_<arch>.deb from this source tree without touching it.
#
#   packaging/build-deb.sh [OUT_DIR]      (default: build-pkg/out in the source tree)
#
# dpkg-buildpackage wants debian/ at the top of the source tree, so the tree's files
# (tracked and untracked-but-not-ignored, as git sees them) are copied into a staging
# directory, packaging/debian is placed there as debian/, and the package is built in
# the copy. The .deb, .buildinfo and .changes files end up in OUT_DIR.
#
# Environment:
#   GANTRY_DEB_TESTS=1    build and run the tests inside the package build (default: off;
#                         CI runs them separately), i.e. no DEB_BUILD_OPTIONS=nocheck
#   GANTRY_DEB_JOBS=N     parallel jobs (default: nproc)
#   GANTRY_DEB_FROM=HEAD  package the last commit (git archive) instead of the work tree
#   GANTRY_DEB_STAGE=DIR  staging directory (default build-pkg/stage); its fixed path
#                         keeps ccache hits across builds
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$src/build-pkg/out}
stage_root=${GANTRY_DEB_STAGE:-$src/build-pkg/stage}
jobs=${GANTRY_DEB_JOBS:-$(nproc)}

version=$(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -S Version)
stage=$stage_root/gantry-$version

copy_tree() {
  if [ -n "${GANTRY_DEB_FROM:-}" ]; then
    git -C "$src" archive --format=tar "$GANTRY_DEB_FROM" | tar -xf - -C "$stage"
  elif git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # Files git knows or would add; deleted-but-tracked files are skipped.
    (cd "$src" && git ls-files -z --cached --others --exclude-standard |
      while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
      tar --null -T - -cf -) | tar -xf - -C "$stage"
  else
    tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -xf - -C "$stage"
  fi
}

echo "build-deb: staging $src in $stage"
rm -rf "$stage"
mkdir -p "$stage" "$out"
copy_tree
rm -rf "$stage/debian"
cp -r "$src/packaging/debian" "$stage/debian"

if [ "${GANTRY_DEB_TESTS:-0}" != "1" ]; then
  export DEB_BUILD_OPTIONS="nocheck terse ${DEB_BUILD_OPTIONS:-}"
  export DEB_BUILD_PROFILES="nocheck ${DEB_BUILD_PROFILES:-}"
fi
# debhelper points HOME at a scratch dir; keep using the caller's compiler cache.
if command -v ccache >/dev/null && [ -z "${CCACHE_DIR:-}" ]; then
  CCACHE_DIR=$(ccache -k cache_dir 2>/dev/null || echo "${HOME:-/root}/.ccache")
  export CCACHE_DIR
fi

echo "build-deb: dpkg-buildpackage (DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-})"
(cd "$stage" && dpkg-buildpackage -us -uc -b -j"$jobs")

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
for f in "$stage_root"/gantry*_"$version"_*; do
  [ -e "$f" ] && mv -f "$f" "$out/"
done
deb="$out/gantry_${version}_${arch}.deb"
[ -f "$deb" ] || { echo "build-deb: $deb was not produced" >&2; exit 1; }
echo "build-deb: $deb"
