#!/usr/bin/env bash
# The Python tools some tests check kiln's outputs with (their real consumers: ONNX Runtime,
# TensorBoard's event reader). Creates or reuses one virtual environment outside the source tree,
# ${KILN_TEST_VENV:-$HOME/.cache/kiln/test-venv}, with scripts/test-venv-requirements.txt, and
# prints its python's path. Tests get that path as KILN_TEST_PYTHON and skip, visibly, without it.
# Never a kiln dependency: nothing kiln builds or installs uses it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=${KILN_TEST_VENV:-$HOME/.cache/kiln/test-venv}
requirements=scripts/test-venv-requirements.txt
stamp="$venv/.kiln-requirements"

if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv" >&2
fi
# Reinstall only when the requirements changed since the last successful install.
if ! cmp -s "$requirements" "$stamp"; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" >&2
  cp "$requirements" "$stamp"
fi
echo "$venv/bin/python"
