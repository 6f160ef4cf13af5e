#!/usr/bin/env bash
# scripts/check-format.sh passes a formatted file and fails a misformatted one, naming it.
# Usage: check_format_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'int add(int a, int b) { return a + b; }\n' >"$work/good.cpp"
printf 'int add( int a,int b ){return a+b;}\n' >"$work/bad.cpp"

bash "$src/scripts/check-format.sh" "$work/good.cpp"
if out=$(bash "$src/scripts/check-format.sh" "$work/good.cpp" "$work/bad.cpp" 2>&1); then
  echo "FAIL: a misformatted file passed: $out"
  exit 1
fi
grep -q "bad.cpp" <<<"$out" || { echo "FAIL: the message does not name bad.cpp: $out"; exit 1; }
grep -q "good.cpp:" <<<"$out" && { echo "FAIL: the message names good.cpp: $out"; exit 1; }
echo "PASS"
