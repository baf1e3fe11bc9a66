#!/usr/bin/env bash
# ansible-galaxy collection build, ansible-lint (production profile) and ansible-test
# sanity on the tuner.node collection, offline, with Debian's packages.
#   packaging/ansible/sanity.sh [ansible-test sanity options, e.g. --test validate-modules]
#
# ansible-test runs most sanity tests (ansible-doc, validate-modules, pep8, pylint,
# yamllint, import, runtime-metadata) in virtual environments it fills from PyPI with
# pinned versions, which needs the network. Offline, this script creates each of those
# environments itself, with --system-site-packages, where ansible-test looks for it, and
# marks it complete, so ansible-test uses Debian's ansible-core, pycodestyle, pylint,
# yamllint and voluptuous instead (install-deps.sh --test installs them; the versions
# are Debian 12's, a minor version from ansible-test's pins). Exit 77 when ansible-test
# is missing. The environments live in a cache dir, not in ~/.ansible.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
collection=$here/ansible_collections/tuner/node
command -v ansible-test >/dev/null || { echo "SKIP: ansible-test not installed (apt-get install ansible-core)"; exit 77; }
command -v ansible-lint >/dev/null || { echo "SKIP: ansible-lint not installed (packaging/install-deps.sh --test)"; exit 77; }
/usr/bin/python3 -c 'import pylint, pycodestyle, yamllint, voluptuous' 2>/dev/null ||
  { echo "SKIP: pylint, pycodestyle, yamllint or voluptuous missing (packaging/install-deps.sh --test)"; exit 77; }

# Debian's python3.11 (the one ansible-core is installed for), not a pyenv or venv one.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=${TUNER_ANSIBLE_TEST_HOME:-${XDG_CACHE_HOME:-/tmp}/tuner-ansible-test}
mkdir -p "$HOME"
# The collection builds, with its README, both modules and the rollout playbooks.
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
(cd "$collection" && ansible-galaxy collection build --output-path "$out_dir" >/dev/null)
tar tzf "$out_dir"/tuner-node-*.tar.gz | sort | grep -x -e README.md -e plugins/modules/tuner.py \
  -e plugins/modules/tuner_facts.py -e meta/runtime.yml -e playbooks/canary.yml \
  -e playbooks/class_rollout.yml -e plugins/module_utils/tuner_cli.py \
  -e plugins/module_utils/tuner_rollback.py | wc -l | grep -qx 8 ||
  { echo "FAIL: the built collection lacks a file: $(tar tzf "$out_dir"/tuner-node-*.tar.gz)"; exit 1; }
echo "sanity: ansible-galaxy collection build: $(basename "$out_dir"/tuner-node-*.tar.gz)"

# ansible-lint's production profile (the collection's .ansible-lint: offline, one
# documented skip), the collection on the collections path so that its FQCNs resolve.
(cd "$collection" && ANSIBLE_COLLECTIONS_PATH=$here ansible-lint --nocolor -q) ||
  { echo "FAIL: ansible-lint (production profile) has findings"; exit 1; }
echo "sanity: ansible-lint: production profile passed"

python=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
cd "$collection"

for _ in $(seq 12); do
  set +e
  out=$(ansible-test sanity --python "$python" --color no "$@" 2>&1)
  rc=$?
  set -e
  venv=$(sed -n 's/^FATAL: Python [0-9.]* at "\(.*\)\/bin\/python" does not have pip available\.$/\1/p' <<<"$out")
  [ -n "$venv" ] || break
  echo "sanity: environment $venv from Debian's packages"
  rm -rf "$venv"
  "python$python" -m venv --system-site-packages --without-pip "$venv"
  echo true >"$venv/meta.yaml.json"  # PyYAML with libyaml, as ansible-test would record
  touch "$venv/marker.txt"
done
rm -rf "$collection/tests/output"
echo "$out"
exit "$rc"
