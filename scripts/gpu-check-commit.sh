# shellcheck shell=bash
# Sourced by gpu-check.sh and scripts/gpu-bundle.sh: which commit a build is of, and whether a
# bundle's programs are of the commit a run expects. The copy of the tree on the GPU machine has no
# .git, so the run is told the commit it expects (--commit, `git rev-parse --short HEAD` on the
# build machine) and compares it with the one gpu-bundle.sh wrote into BUILD-INFO: a stale bundle
# (its train without the GPT, its tests without the newest suites) would fail stages for nothing.

# build_commit: this checkout's commit as BUILD-INFO records it: the short hash, and
# " (with uncommitted changes)" when tracked files differ from it.
build_commit() {
  local hash
  hash=$(git rev-parse --short HEAD 2>/dev/null) || { echo "no commit"; return; }
  if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
    echo "$hash (with uncommitted changes)"
  else
    echo "$hash"
  fi
}

# commit_mismatch EXPECTED RECORDED: nothing (status 1) when the programs recorded as RECORDED
# (BUILD-INFO's commit) are of EXPECTED, else why not (status 0). EXPECTED is a short hash, or
# HASH+uncommitted to accept a bundle built with uncommitted changes on that commit (rehearsals
# only: what changed cannot be checked). Hashes of different lengths match by prefix.
commit_mismatch() {
  local expected=$1 recorded=$2 want_dirty=0 dirty=0
  local want=${expected%+uncommitted} have=${recorded%% *}
  [[ $want == "$expected" ]] || want_dirty=1
  [[ $recorded != *"(with uncommitted changes)"* ]] || dirty=1
  if ! [[ $want =~ ^[0-9a-f]{7,40}$ ]]; then
    echo "--commit '$expected' is not a commit hash: pass \$(git rev-parse --short HEAD) of the build machine"
    return 0
  fi
  if ! [[ $have =~ ^[0-9a-f]{7,40}$ ]]; then
    echo "the programs record no commit ('$recorded'): rerun scripts/gpu-bundle.sh"
    return 0
  fi
  if [[ $want != "$have"* && $have != "$want"* ]]; then
    echo "the programs are of commit $have, this run expects $want (--commit): rerun scripts/gpu-bundle.sh on the build machine at $want and send the bundle again"
    return 0
  fi
  if ((dirty && !want_dirty)); then
    echo "the programs are of commit $have with uncommitted changes, this run expects $want as committed: commit them and rerun scripts/gpu-bundle.sh (or pass --commit $want+uncommitted for a rehearsal)"
    return 0
  fi
  if ((want_dirty && !dirty)); then
    echo "the programs are of commit $have as committed, this run expects $want with uncommitted changes (--commit $expected): rerun scripts/gpu-bundle.sh"
    return 0
  fi
  return 1
}
