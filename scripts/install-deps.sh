#!/usr/bin/env bash
# Installs the Debian 12 packages kiln builds against, only those that are missing, and says
# whether the build will have the CUDA backend. Safe to run any number of times: when everything
# is there it touches nothing (no apt-get update). Needs root (or sudo) only to install.
set -euo pipefail

packages=(
  build-essential cmake git pkg-config              # toolchain
  ninja-build                                       # the build tool test.sh and run.sh use
  libeigen3-dev libspdlog-dev libfmt-dev            # core: CPU kernels, logging, formatting
  libdnnl-dev ocl-icd-opencl-dev                    # core: oneDNN, the CPU compute library (its
                                                    #   CMake package asks for OpenCL, which it loads)
  libopenblas-openmp-dev                            # core: reference CPU GEMM on the OpenMP pool
  libgtest-dev libgmock-dev libbenchmark-dev        # tests and benchmarks
  libcli11-dev nlohmann-json3-dev                   # apps: command lines, specs and reports
  zlib1g-dev libpng-dev libjpeg-dev                 # data: compressed files, image folders
  protobuf-compiler                                 # io: TensorBoard event files (own .proto)
  libopenmpi-dev openmpi-bin                        # data-parallel training across processes
  libonnx-dev libprotobuf-dev                       # ONNX export: ONNX 1.12's protobuf classes and
                                                    #   checker (export/), on Debian's protobuf
  clang libclang-rt-14-dev                          # fuzz targets: libFuzzer, ASan (tests/fuzz/)
  clang-format                                      # test.sh's format check (.clang-format)
  python3-venv                                      # tests: the venv of ONNX Runtime and TensorBoard's
                                                    #   reader (scripts/test-venv.sh)
  dataset-fashion-mnist                             # real data, /usr/share/datasets/fashion-mnist
  fortunes                                          # text, /usr/share/games/fortunes (examples/tiny_gpt)
)

installed() {
  [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]
}

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
else
  sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  echo "install-deps: missing ${missing[*]}"
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  quiet() {  # runs apt-get quietly; its output is shown only when it fails
    "${sudo[@]}" "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "install-deps: failed: $*" >&2; exit 1; }
  }
  echo "install-deps: apt-get update"
  quiet apt-get update
  for p in "${missing[@]}"; do
    if [[ -z $(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | grep -v '(none)') ]]; then
      echo "install-deps: no Debian package named $p in the configured sources" >&2
      exit 1
    fi
  done
  echo "install-deps: apt-get install ${missing[*]}"
  quiet apt-get install -y --no-install-recommends "${missing[@]}"
  for p in "${missing[@]}"; do
    installed "$p" || { echo "install-deps: $p did not install" >&2; exit 1; }
  done
  echo "install-deps: installed ${#missing[@]} package(s)"
fi

# The CUDA toolkit is not a Debian package here: cmake/KilnCuda.cmake uses /usr/local/cuda/bin/nvcc
# when it exists (cuDNN and NCCL beside it), and otherwise the build is CPU-only.
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: CUDA toolkit at /usr/local/cuda ($(/usr/local/cuda/bin/nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')): the CUDA backend will be built"
  case ":$PATH:" in
    *:/usr/local/cuda/bin:*) ;;
    *) echo "install-deps: hint: export PATH=/usr/local/cuda/bin:\$PATH  (nvcc, compute-sanitizer)" ;;
  esac
else
  echo "install-deps: no CUDA toolkit at /usr/local/cuda: the build is CPU-only (GPU entry points throw)"
fi
