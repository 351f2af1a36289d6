#!/usr/bin/env bash
# Idempotent set-up: Debian packages for Godot 3 + Xvfb + Mesa and a C compiler, the simulator's
# native library, a virtualenv, and this package.
# Usage: bin/setup.sh [VENV_DIR]   (default .venv). Safe to run again: it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.venv}
packages=(godot3-runner godot3-server xvfb libgl1-mesa-dri gcc libc6-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

bin/build_native.sh

if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating virtualenv $venv"
  python3 -m venv "$venv"
fi
# Reinstall only when the package metadata changed since the last successful install.
stamp="$venv/.avalon-setup-stamp"
if [ ! -f "$stamp" ] || [ setup.cfg -nt "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: pip install -e .[dev] (torch==2.13.0, CPU build)"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q -e ".[dev]"
  touch "$stamp"
fi
