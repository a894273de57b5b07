#!/usr/bin/env bash
# Installs what `npm ci` and `npm test` need beyond the npm packages, on Debian or Ubuntu:
#   python3 make g++                better-sqlite3, compiled from source for the project's Node runtime during npm ci
#   chromium, fonts-dejavu-core     the console's browser tests (test/e2e, playwright-core drives /usr/bin/chromium)
#   postgresql                      the PostgreSQL store tests (a throwaway cluster: initdb, pg_ctl)
#   rustc cargo libstd-rust-dev-wasm32 lld-14
#                                   the solver crate's tests (cargo test) and its WebAssembly build
# Idempotent: installs only what is missing; does nothing when everything is there.
# Run it as root, or as a user who may sudo:  bash scripts/setup-test-deps.sh
set -euo pipefail

PACKAGES=(python3 make g++ chromium fonts-dejavu-core postgresql rustc cargo libstd-rust-dev-wasm32 lld-14)

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup-test-deps: every test prerequisite is installed (${PACKAGES[*]})"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-test-deps: this script needs apt-get (Debian or Ubuntu); install these by other means: ${missing[*]}" >&2
  exit 1
fi

sudo=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "setup-test-deps: run as root (or install sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "setup-test-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# refresh the package lists unless they were refreshed in the last hour
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -60 2>/dev/null | head -n 1)" ]; then
  "${sudo[@]}" apt-get update -qq
fi
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-test-deps: done"
