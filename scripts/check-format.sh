#!/usr/bin/env bash
# test.sh's format phase: each C++ and CUDA source git tracks (or each FILE given) is as
# clang-format writes it with .clang-format; prints the offending lines and exits non-zero if not.
# Fix with: clang-format -i FILE...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if (($# > 0)); then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
fi
if clang-format --dry-run --Werror "${files[@]}"; then
  echo "check-format: ${#files[@]} files as clang-format writes them"
else
  echo "check-format: the files above are not as clang-format writes them: run clang-format -i on them" >&2
  exit 1
fi
