#!/usr/bin/env bash
# Builds the simulator's native library (native/*.c -> godot/native/libavalon_native.so) when it is
# missing or older than its sources. Usage: bin/build_native.sh [REPOSITORY_DIR] (default: this one).
# Needs gcc and the C library's headers (Debian: gcc, libc6-dev; bin/setup.sh installs them).
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
cd "$root"
library=godot/native/libavalon_native.so
if [ -f "$library" ] && [ -z "$(find native -newer "$library" -print -quit)" ]; then
  exit 0
fi
echo "setup: building $library"
# -ffp-contract=off: no fused multiply-adds, so the arithmetic rounds as GDScript's did.
gcc -O2 -Wall -Wextra -Werror -ffp-contract=off -shared -fPIC -o "$library.tmp" native/*.c
mv "$library.tmp" "$library"
