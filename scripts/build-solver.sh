#!/usr/bin/env bash
# Build the Rust solver to WebAssembly and write data/solver/solver.wasm, and write the
# host's ABI constants (src/solver/abi-constants.generated.ts, from solver-rs/src/abi.rs,
# printed by the crate's native `abi-ts` binary).
#
#   bash scripts/build-solver.sh           build and write the committed module and constants
#   bash scripts/build-solver.sh --check   rebuild in a temp dir; exit 1 if the bytes differ
#                                          from data/solver/solver.wasm or the constants from
#                                          src/solver/abi-constants.generated.ts
#
# The committed module is built with Debian's Rust 1.63 (/usr/bin/rustc, /usr/bin/cargo,
# libstd-rust-dev-wasm32, lld-14). That toolchain is used whenever it is present, since
# only it reproduces the committed bytes. Otherwise a rustup toolchain with the
# wasm32-unknown-unknown target is used, with a warning. If neither exists and we
# run as root, Debian's packages are installed. SOLVER_TOOLCHAIN=debian|rustup forces one.
#
# The build is reproducible: release profile (LTO, codegen-units=1, panic=abort,
# stripped), paths remapped with --remap-path-prefix so neither the checkout path
# nor $HOME ends up in the module, and a fixed target directory name.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CRATE="$ROOT/solver-rs"
OUT="$ROOT/data/solver/solver.wasm"
CONSTANTS="$ROOT/src/solver/abi-constants.generated.ts"
TARGET=wasm32-unknown-unknown
CHECK=0
for arg in "$@"; do
  case "$arg" in
    --check) CHECK=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "build-solver: unknown argument $arg" >&2; exit 2 ;;
  esac
done

log() { echo "build-solver: $*" >&2; }

debian_ok() {
  [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] &&
    [ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/$TARGET/lib" ]
}

rustup_ok() {
  command -v rustc >/dev/null 2>&1 && command -v cargo >/dev/null 2>&1 &&
    [ -d "$(rustc --print sysroot)/lib/rustlib/$TARGET/lib" ]
}

choice="${SOLVER_TOOLCHAIN:-}"
if [ -z "$choice" ]; then
  if debian_ok; then choice=debian
  elif rustup_ok; then choice=rustup
  elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian's rustc, cargo, libstd-rust-dev-wasm32, lld-14"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y rustc cargo libstd-rust-dev-wasm32 lld-14 >&2; then
      DEBIAN_FRONTEND=noninteractive apt-get update >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y rustc cargo libstd-rust-dev-wasm32 lld-14 >&2
    fi
    choice=debian
  else
    log "no Rust toolchain with the $TARGET standard library found."
    log "install Debian's: apt-get install -y rustc cargo libstd-rust-dev-wasm32 lld-14"
    exit 1
  fi
fi

case "$choice" in
  debian) RUSTC_BIN=/usr/bin/rustc; CARGO_BIN=/usr/bin/cargo ;;
  rustup) RUSTC_BIN="$(command -v rustc)"; CARGO_BIN="$(command -v cargo)" ;;
  *) log "SOLVER_TOOLCHAIN must be debian or rustup"; exit 2 ;;
esac
VERSION="$("$RUSTC_BIN" --version)"
log "toolchain: $VERSION ($RUSTC_BIN)"
case "$VERSION" in
  "rustc 1.63."*) ;;
  *) log "WARNING: the committed module is built with Debian's Rust 1.63; this build ($VERSION) will not be byte-identical to it" ;;
esac

# Build from a copy of the crate at a fixed path inside a temp dir, so the
# result does not depend on where the checkout lives.
WORK="$(mktemp -d "${TMPDIR:-/tmp}/solver-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/solver-rs"
cp -R "$CRATE/Cargo.toml" "$CRATE/Cargo.lock" "$CRATE/src" "$WORK/solver-rs/"
if [ "$CHECK" = 1 ]; then
  TARGET_DIR="$WORK/target"
else
  TARGET_DIR="$CRATE/target/wasm-build"   # git-ignored (solver-rs/target)
fi

export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export RUSTC="$RUSTC_BIN"
export CARGO_TARGET_DIR="$TARGET_DIR"
export CARGO_INCREMENTAL=0
export SOURCE_DATE_EPOCH=0
# (the last matching --remap-path-prefix wins: the build dir goes last)
export RUSTFLAGS="--remap-path-prefix=$HOME=/home --remap-path-prefix=$CARGO_HOME=/cargo --remap-path-prefix=$WORK/solver-rs=/solver-rs -C debuginfo=0 -C panic=abort -C target-feature=+bulk-memory"
unset CARGO_BUILD_RUSTFLAGS CARGO_ENCODED_RUSTFLAGS RUSTC_WRAPPER 2>/dev/null || true

( cd "$WORK/solver-rs" && "$CARGO_BIN" build --offline --locked --lib --release --target "$TARGET" >&2 )
BUILT="$TARGET_DIR/$TARGET/release/route_solver.wasm"
[ -f "$BUILT" ] || { log "build produced no $BUILT"; exit 1; }

# The constants: the same sources built for the host (its own target dir: no wasm RUSTFLAGS there).
( cd "$WORK/solver-rs" && RUSTFLAGS= CARGO_TARGET_DIR="$TARGET_DIR/host" "$CARGO_BIN" build --offline --locked --quiet --bin abi-ts >&2 )
"$TARGET_DIR/host/debug/abi-ts" > "$WORK/abi-constants.generated.ts"

if [ "$CHECK" = 1 ]; then
  status=0
  if [ ! -f "$OUT" ]; then
    log "no committed module at ${OUT#$ROOT/}"; status=1
  elif cmp -s "$BUILT" "$OUT"; then
    log "OK: ${OUT#$ROOT/} matches a fresh build ($(wc -c < "$OUT") bytes, sha256 $(sha256sum "$OUT" | cut -c1-16))"
  else
    log "MISMATCH: ${OUT#$ROOT/} differs from a fresh build (committed $(sha256sum "$OUT" | cut -c1-16), built $(sha256sum "$BUILT" | cut -c1-16)); run npm run build:solver"
    status=1
  fi
  if cmp -s "$WORK/abi-constants.generated.ts" "$CONSTANTS"; then
    log "OK: ${CONSTANTS#$ROOT/} matches solver-rs/src/abi.rs"
  else
    log "MISMATCH: ${CONSTANTS#$ROOT/} is not what solver-rs/src/abi.rs generates; run npm run build:solver"
    status=1
  fi
  exit "$status"
fi

mkdir -p "$(dirname "$OUT")"
cp "$BUILT" "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
log "wrote ${OUT#$ROOT/} ($(wc -c < "$OUT") bytes, sha256 $(sha256sum "$OUT" | cut -c1-16))"
cp "$WORK/abi-constants.generated.ts" "$CONSTANTS.tmp" && mv "$CONSTANTS.tmp" "$CONSTANTS"
log "wrote ${CONSTANTS#$ROOT/}"
