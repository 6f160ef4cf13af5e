#!/usr/bin/env bash
# README's first command: installs what is missing, builds the library and the train app (Release,
# CUDA backend when the toolkit is at /usr/local/cuda) in build/, then runs the main job.
# Arguments go to the job. The tests, the other apps and the benchmarks are test.sh's to build
# (or `cmake --build build`): the main job starts in about a third of the time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The main job: the article's network trained on Fashion-MNIST, with the per-stage report.
main_job=(build/apps/train --device=cpu)

start=$SECONDS
bash scripts/install-deps.sh
# Ninja, where it is installed (install-deps.sh installs it): on 2 cores it overlaps one target's
# links with the next one's compiles, which make's per-target steps do not.
if [[ -z ${CMAKE_GENERATOR:-} ]] && command -v ninja >/dev/null; then export CMAKE_GENERATOR=Ninja; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=AUTO
cmake --build build -j"$(nproc)" --target train
echo "run.sh: built in $((SECONDS - start)) s"

echo "run.sh: ${main_job[*]} $*"
"${main_job[@]}" "$@"
