#!/usr/bin/env bash
# Installs code-server (real VS Code served to a browser) into a cache outside
# the repo, so integration and end-to-end tests can run without downloading VS
# Code from the internet. Needs only the npm registry and Debian packages.
#
# Usage:  entry=$(bash scripts/installCodeServer.sh | tail -1)
#
# The last line of stdout is the absolute path of code-server's entry.js; all
# progress goes to stderr. Idempotent: a complete cache is reused at once.
#
# Env:
#   SKILLWRIGHT_CACHE  cache root (default: ${XDG_CACHE_HOME:-$HOME/.cache}/skillwright)
set -euo pipefail

# code-server 4.100.3 = VS Code 1.100.3, the newest code-server that runs on
# Node 20 (later ones require Node 22+).
readonly CODE_SERVER_VERSION=4.100.3
readonly NODE_MAJOR=20

cache_root="${SKILLWRIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/skillwright}"
final="$cache_root/code-server-$CODE_SERVER_VERSION"
entry_rel="node_modules/code-server/out/node/entry.js"

log() { printf 'installCodeServer: %s\n' "$*" >&2; }
die() { printf 'installCodeServer: ERROR: %s\n' "$*" >&2; exit 1; }

# The marker is written inside the staging dir just before the atomic rename,
# so a dir that has it is complete by construction.
if [[ -f "$final/.complete" ]]; then
  printf '%s\n' "$final/$entry_rel"
  exit 0
fi

# Nothing below may wait for a prompt (CI runs with no stdin).
exec </dev/null
export CI="${CI:-true}"

# ---------------------------------------------------------------- preflight
command -v node >/dev/null || die "node not found on PATH (need Node $NODE_MAJOR)"
command -v npm >/dev/null || die "npm not found on PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[[ "$node_major" == "$NODE_MAJOR" ]] ||
  die "code-server $CODE_SERVER_VERSION requires Node $NODE_MAJOR, found $(node --version)"

# ripgrep: replaces the binary @vscode/ripgrep would download from GitHub.
# libkrb5-dev: headers for the kerberos native module.
# build-essential, python3: node-gyp builds the native modules.
# This script does not install them itself (.ci/run does, as root).
missing=()
if command -v dpkg-query >/dev/null; then
  for pkg in ripgrep libkrb5-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$pkg")
  done
else
  command -v rg >/dev/null || missing+=(ripgrep)
  command -v krb5-config >/dev/null || missing+=(libkrb5-dev)
fi
command -v make >/dev/null && command -v c++ >/dev/null || missing+=(build-essential)
command -v python3 >/dev/null || missing+=(python3)
if ((${#missing[@]})); then
  die "missing system packages: ${missing[*]}
  install them with:  apt-get update && apt-get install -y ${missing[*]}"
fi
rg_bin="$(command -v rg)" || die "ripgrep is installed but 'rg' is not on PATH"
command -v flock >/dev/null || die "flock not found (Debian package util-linux)"

# node-gyp downloads Node's headers unless told where they are, and that
# download fails offline. Use the configured nodedir if there is one, else the
# headers that ship with this node (Debian's nodejs, nvm and the official
# tarballs all have <prefix>/include/node).
if [[ -z "${npm_config_nodedir:-}" ]]; then
  nodedir="$(npm config get nodedir)"
  if [[ -z "$nodedir" || "$nodedir" == undefined || "$nodedir" == null ]]; then
    prefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
    if [[ -f "$prefix/include/node/node.h" ]]; then
      nodedir="$prefix"
    else
      nodedir=""
      log "warning: no local Node headers found; node-gyp will try to download them"
    fi
  fi
  if [[ -n "$nodedir" ]]; then export npm_config_nodedir="$nodedir"; fi
fi
# npm's bundled node-gyp; `npx node-gyp` is no good here: npx would have to
# fetch it and may refuse or prompt without a terminal.
node_gyp="$(npm config get node-gyp)"
[[ -f "$node_gyp" ]] || die "cannot find npm's bundled node-gyp (npm config get node-gyp: '$node_gyp')"
npm_flags=(--no-audit --no-fund --no-update-notifier --prefer-offline)

# --------------------------------------------------------------------- lock
# Parallel test runs may call this at the same time; one installs, the others
# wait and then reuse its result.
mkdir -p "$cache_root"
exec 9>"$cache_root/.code-server-$CODE_SERVER_VERSION.lock"
if ! flock -n 9; then
  log "another install is running; waiting for it"
  flock 9
fi
if [[ -f "$final/.complete" ]]; then
  printf '%s\n' "$final/$entry_rel"
  exit 0
fi

# Under the lock nothing else is writing here, so leftovers of interrupted
# runs (and a final dir without marker, which only manual edits can produce)
# are safe to delete.
rm -rf "$final" "$final".tmp.*

staging="$(mktemp -d "$final.tmp.XXXXXX")"
chmod 755 "$staging" # mktemp makes it private; the cache is meant to be shared
cleanup() { if [[ -n "${staging:-}" ]]; then rm -rf "$staging"; fi; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

log "installing code-server $CODE_SERVER_VERSION into $final (takes a minute or two)"
start=$SECONDS

# ------------------------------------------------------------ outer package
cd "$staging"
cat >package.json <<EOF
{
  "name": "skillwright-code-server",
  "private": true,
  "description": "Cache of code-server for Skillwright's tests; made by scripts/installCodeServer.sh",
  "dependencies": { "code-server": "$CODE_SERVER_VERSION" }
}
EOF
# --ignore-scripts: code-server's postinstall runs `npm install` in
# lib/vscode, which fails offline (@vscode/ripgrep downloads from GitHub). The
# steps below do what that postinstall does, minus the download.
log "npm install code-server@$CODE_SERVER_VERSION"
npm install "${npm_flags[@]}" --ignore-scripts >&2
# argon2 is loaded at startup even with --auth none. build_from_source stops
# node-pre-gyp from first trying to fetch a prebuilt binary from GitHub (npm
# warns that it does not know this config key; node-pre-gyp reads it anyway).
log "building argon2"
npm_config_build_from_source=true \
  npm rebuild "${npm_flags[@]}" --foreground-scripts argon2 >&2

# ---------------------------------------------------- VS Code's dependencies
vscode="$staging/node_modules/code-server/lib/vscode"
cd "$vscode"
log "npm install in lib/vscode"
npm install "${npm_flags[@]}" --omit=dev --ignore-scripts >&2

mkdir -p node_modules/@vscode/ripgrep/bin
# A copy rather than a link, so the cache keeps working if rg moves.
cp "$(readlink -f "$rg_bin")" node_modules/@vscode/ripgrep/bin/rg

# The native modules VS Code's server and extension host load on Linux.
# Left out on purpose: @parcel/watcher (npm installed its prebuilt
# @parcel/watcher-linux-x64-glibc), @vscode/deviceid (native only on Windows),
# @vscode/windows-* (Windows only).
# node-gyp is run directly rather than through `npm rebuild`, because the
# packages' own install scripts reach out: kerberos tries prebuild-install
# (GitHub) first, and node-pty's postinstall runs `npx node-gyp configure`
# only to write a compile_commands.json.
for module in kerberos @vscode/spdlog native-watchdog node-pty; do
  log "building $module"
  (cd "node_modules/$module" &&
    node "$node_gyp" rebuild -j max ${npm_config_nodedir:+--nodedir="$npm_config_nodedir"}) >&2 ||
    die "building $module failed (see the node-gyp output above)"
done

# Same links as code-server's postinstall.sh: VS Code and extensions look
# for files under node_modules.asar, and the terminal's `code-server` command
# and browser helper are platform-specific scripts.
ln -sfn node_modules node_modules.asar
ln -sfn code-linux.sh bin/remote-cli/code-server
ln -sfn browser-linux.sh bin/helpers/browser.sh

log "npm install in lib/vscode/extensions"
cd "$vscode/extensions"
# Scripts are needed here: the postinstall trims the bundled TypeScript.
npm install "${npm_flags[@]}" --omit=dev >&2

# ------------------------------------------------------------------- verify
# A broken native build shows up here, not later as an obscure extension host
# crash in a test.
log "checking that the native modules load"
cd "$vscode"
node -e '
  for (const m of ["kerberos", "@vscode/spdlog", "native-watchdog", "node-pty",
                   "@vscode/deviceid", "@parcel/watcher", "@vscode/ripgrep"]) require(m);
' >&2
"node_modules/@vscode/ripgrep/bin/rg" --version >/dev/null
cd "$staging"
node -e 'require("argon2")' >&2
# Even --version makes code-server write a default config (with a generated
# password) under XDG_CONFIG_HOME and logs under XDG_DATA_HOME; keep those out
# of the user's home.
scratch="$staging/.version-check"
version="$(XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" \
  node "$staging/$entry_rel" --version | tail -1)"
rm -rf "$scratch"
[[ "$version" == "$CODE_SERVER_VERSION "* ]] ||
  die "unexpected 'code-server --version' output: $version"

# ------------------------------------------------------------------ publish
date -u +%Y-%m-%dT%H:%M:%SZ >"$staging/.complete"
cd "$cache_root"
mv -T "$staging" "$final"
staging=""
log "done in $((SECONDS - start)) s: code-server $version"
printf '%s\n' "$final/$entry_rel"
