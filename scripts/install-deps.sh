#!/usr/bin/env bash
# Installs the Debian packages bankviz needs that are missing (Debian 12, run as root or with sudo).
# usage: scripts/install-deps.sh [--gui] [--fuzz] [--lint]   (--gui adds the desktop app's
#        packages, --fuzz clang and its libFuzzer runtime for scripts/fuzz.sh, --lint Universal
#        Ctags for scripts/function-length.sh)
# CUDA comes from the toolkit in /usr/local/cuda and is optional: without it the real-kernel
# parts are left out and everything else builds.
set -euo pipefail
# help2man: the man pages (from the programs' --help); dpkg-dev: cpack -G DEB's dpkg-shlibdeps.
# libseccomp-dev: the CPU recording's confinement; libc6-dev (only recommended by gcc, and this
# installs no recommends) and g++'s libstdc++-12-dev hold the static libc.a and libstdc++.a the
# recording is linked with. openssh-client: --gpu HOST; openssh-server: the tests' real ssh round
# trip (a server of their own on 127.0.0.1, started and stopped by the test).
pkgs=(cmake ninja-build g++ pkg-config libgtest-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
      help2man dpkg-dev libseccomp-dev libc6-dev libstdc++-12-dev openssh-client openssh-server
      libcpp-httplib-dev)
for arg in "$@"; do
  case $arg in
    --gui)
      pkgs+=(libimgui-dev libglfw3-dev python3-glad libstb-dev libpng-dev libgl-dev libegl-dev
             xvfb xauth mesa-utils libgl1-mesa-dri fonts-dejavu-core fonts-jetbrains-mono
             desktop-file-utils appstream) ;;
    --fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    --lint) pkgs+=(universal-ctags) ;;
    *) echo "usage: scripts/install-deps.sh [--gui] [--fuzz] [--lint]" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
