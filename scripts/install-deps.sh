#!/usr/bin/env bash
# Installs every Debian package scalestudy needs to build, test and run its local
# SLURM cluster. Idempotent: packages already present are left as they are.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format git
  libtorch-dev libyaml-cpp-dev libsqlite3-dev sqlite3 libcurl4-openssl-dev
  libre2-dev libgloo-dev doctest-dev nlohmann-json3-dev libssl-dev zlib1g-dev libturbojpeg0-dev libpng-dev
  libopenblas0-openmp dataset-fashion-mnist fortunes gnuplot-nox python3 python3-torch
  munge slurm-wlm slurmctld slurmd slurmdbd slurmrestd slurm-client slurm-wlm-jwt-plugin mariadb-server
  mmdebstrap  # SLURM 24.11 and 26.05 for the local clusters (slurm/cluster/slurm_root.sh)
  curl jq procps time chromium
  gdb  # the hang watchdog's stacks (workloads/launch/stack_dump.cpp)
  python3-venv python3-pip shellcheck patchelf
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$package")
done

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

# LibTorch (C++ and python3-torch alike) calls BLAS through libblas.so.3, which Debian's
# alternatives point at the reference BLAS unless told otherwise. OpenBLAS's OpenMP build
# runs on LibTorch's own libgomp pool, so one intra-op thread count governs both and they
# never oversubscribe the cores (its pthread build has a pool of its own; docs/performance.md).
select_openblas() {
  local arch name target
  arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine)
  for name in libblas.so.3 liblapack.so.3; do
    target=/usr/lib/$arch/openblas-openmp/$name
    [ "$(readlink -f "/usr/lib/$arch/$name")" = "$target" ] && continue
    "${sudo_cmd[@]}" update-alternatives --set "$name-$arch" "$target"
  done
}

if [ ${#missing[@]} -eq 0 ]; then
  select_openblas
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
# Services from these packages are started by slurm/cluster.sh with our own configs,
# never by the package scripts: policy-rc.d keeps postinst from starting daemons.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null
  "${sudo_cmd[@]}" chmod +x "$policy"
  trap '"${sudo_cmd[@]}" rm -f "$policy"' EXIT
fi
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
select_openblas
