#!/usr/bin/env bash
# The GPU validation kit's prebuilt bundle: the kit's CUDA binaries (scalestudy-train,
# scalestudy-lm, scalestudy-ddpm, scalestudy-allreduce and every suite labelled gpu), stripped, with every library they
# load that is neither in the PyTorch wheel (torch/lib, nvidia/*/lib) nor in a base system
# (glibc, libstdc++, libgcc_s) copied beside them, an RPATH of $ORIGIN, and bundle.json:
# what it was built against (torch version and git hash, CUDA, NCCL, cuDNN, the wheel's
# Python), the build type, this repository's commit, and every file's size. On the GPU
# machine, `benchmarks/gpu/validate.sh --bundle DIR` runs it with no configure and no
# compile (docs/gpu.md).
#
#   scripts/gpu-bundle.sh [--from-build DIR] [--out DIR]
#     --from-build DIR  package the binaries of an existing -DSCALESTUDY_CUDA=ON build
#                       (CI: build-cuda, built by scripts/build-cuda.sh)
#     (default)         build them first, Release, against the very wheel the GPU machine
#                       has: torch==$SCALESTUDY_TORCH_VERSION for CPython 3.12, downloaded
#                       into .deps/wheels and unpacked (headers, libraries, CMake files)
#                       into .deps/torch-cp312; the nvidia-* wheels (py3-none) and pip come
#                       from .deps/torch-venv (scripts/build-cuda.sh installs it). The build
#                       folder is build-gpu-bundle; on 2 cores it takes long (docs/gpu.md).
#     --out DIR         the bundle folder (default .gpu-bundle; git-ignored)
# Needs patchelf, strip, ldd and readelf (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

from_build=""
out=.gpu-bundle
while [ $# -gt 0 ]; do
  case $1 in
    --from-build) from_build=$2; shift ;;
    --out) out=$2; shift ;;
    *) echo "gpu-bundle.sh: unknown argument '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
  shift
done

torch_version=${SCALESTUDY_TORCH_VERSION:-2.11.0}
venv=${SCALESTUDY_TORCH_VENV:-.deps/torch-venv}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
wheel_python_version=3.12
wheel_root=.deps/torch-cp312
kit=benchmarks/gpu

# The kit's executables in build DIR: the four workloads and every suite labelled gpu (a
# doctest suite's test, target and executable share one name).
kit_targets() {
  local suites
  suites=$(ctest --test-dir "$1" -L gpu --show-only=json-v1 |
    python3 -c 'import json, sys; print(" ".join(t["name"] for t in json.load(sys.stdin)["tests"]))')
  echo scalestudy-train scalestudy-lm scalestudy-ddpm scalestudy-allreduce "$suites"
}

# Release build of only the kit's targets against the CPython 3.12 wheel's LibTorch.
build_against_wheel() {
  local build_dir=$1 wheel tag
  tag=cp${wheel_python_version/./}
  "$venv/bin/python" -m pip download --quiet "torch==$torch_version" --no-deps \
    --only-binary=:all: --python-version "$wheel_python_version" \
    --platform manylinux_2_28_x86_64 -d .deps/wheels
  wheel=.deps/wheels/torch-$torch_version-$tag-$tag-manylinux_2_28_x86_64.whl
  # Only what a build needs (about 1 GB of 4): headers, libraries, CMake files, versions.
  if [ ! -f "$wheel_root/.unpacked" ] || [ "$(cat "$wheel_root/.unpacked")" != "$wheel" ]; then
    rm -rf "$wheel_root"
    unzip -q "$wheel" 'torch/include/*' 'torch/lib/*' 'torch/share/*' 'torch/version.py' \
      "torch-$torch_version.dist-info/*" -d "$wheel_root"
    echo "$wheel" >"$wheel_root/.unpacked"
  fi
  # The nvidia-* wheels come from the venv's torch: both wheels must be one LibTorch build.
  local git_version=(sed -n "s/^git_version = '\(.*\)'$/\1/p") cp312_git venv_git
  cp312_git=$("${git_version[@]}" "$wheel_root/torch/version.py")
  venv_git=$("${git_version[@]}" "$("$venv/bin/python" -c 'import importlib.util as u
print(u.find_spec("torch").submodule_search_locations[0])')/version.py")
  echo "gpu-bundle: torch git_version $cp312_git ($tag wheel), $venv_git ($venv)"
  if [ "$cp312_git" != "$venv_git" ]; then
    echo "gpu-bundle.sh: the $tag wheel and $venv hold different torch builds" >&2
    exit 1
  fi
  local torch_cmake=$wheel_root/torch/share/cmake nccl_root
  nccl_root=$("$venv/bin/python" -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])')
  # torch/lib's libraries find theirs at $ORIGIN/../../nvidia/*/lib, as in site-packages.
  ln -sfn "$(dirname "$(dirname "$nccl_root")")/nvidia" "$wheel_root/nvidia"
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSCALESTUDY_CUDA=ON -DSCALESTUDY_ORCHESTRATOR=OFF \
    -DCMAKE_PREFIX_PATH="$PWD/$torch_cmake;$PWD/$wheel_root/torch" \
    -DTorch_DIR="$PWD/$torch_cmake/Torch" -DCaffe2_DIR="$PWD/$torch_cmake/Caffe2" \
    -DNCCL_ROOT="$nccl_root" -DCUDAToolkit_ROOT="$cuda_home" \
    -DCMAKE_CUDA_COMPILER="$cuda_home/bin/nvcc"
  local started=$SECONDS targets
  read -r -a targets <<<"$(kit_targets "$build_dir" | tr '\n' ' ')"
  cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
  echo "gpu-bundle: built ${targets[*]} (Release) in $((SECONDS - started)) s"
}

build_dir=$from_build
if [ -z "$build_dir" ]; then
  build_dir=build-gpu-bundle
  build_against_wheel "$build_dir"
fi
[ -f "$build_dir/CMakeCache.txt" ] || { echo "gpu-bundle.sh: $build_dir is not a build folder" >&2; exit 1; }

read -r -a binaries <<<"$(kit_targets "$build_dir" | tr '\n' ' ')"
read -r -a wheel_folders <<<"$(python3 "$kit/bundle_manifest.py" folders --build-dir "$build_dir")"
rm -rf "$out"
mkdir -p "$out"
for binary in "${binaries[@]}"; do
  cp "$build_dir/bin/$binary" "$out/"
done
# Every library outside the wheel and the base system, resolved as the binaries load it.
while read -r library; do
  cp -L "$library" "$out/$(basename "$library")"
done < <(python3 "$kit/bundle_libraries.py" outside --wheel-folders "${wheel_folders[@]}" \
  -- "${binaries[@]/#/$build_dir/bin/}")
for file in "$out"/*; do
  chmod u+w "$file"
  strip --strip-unneeded "$file"
  # shellcheck disable=SC2016 # $ORIGIN is the loader's, not the shell's
  patchelf --set-rpath '$ORIGIN' "$file"
done
python3 "$kit/bundle_manifest.py" write --build-dir "$build_dir" --bundle "$out" \
  --binaries "${binaries[@]}"
python3 "$kit/bundle_libraries.py" check --bundle "$out" --wheel-folders "${wheel_folders[@]}"
echo "gpu-bundle: $out holds $(find "$out" -type f | wc -l) files, $(du -sb "$out" | cut -f1) bytes ($(du -sm "$out" | cut -f1) MiB)"
