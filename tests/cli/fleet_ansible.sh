#!/bin/sh
# SPDX-License-Identifier: MIT
# The Ansible role (packaging/ansible) run for real without SSH or root: two
# inventory hosts on this machine (ansible_connection=local, each with its
# own install path, working directory and ENGPASS_HOST). What it checks that
# fleet_ssh.sh (the same role over SSH to network namespaces, with the bad
# hosts and the mesh) does not: a second run installs nothing new and adds
# two runs, importing the same files again stores nothing twice, --check of
# both playbooks changes nothing, and ansible-lint is clean. Shared setup:
# fleetlib.sh.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite jansson
not_emulated "ansible copies the host's binary"
. "$ENGPASS_TESTS/cli/fleetlib.sh"
cat >"$T_TMP/inventory.yml" <<INV
all:
  vars:
    ansible_connection: local
    engpass_binary: $ENGPASS
    engpass_install_path: "$T_TMP/hosts/{{ inventory_hostname }}/bin/engpass"
    engpass_workdir: "$T_TMP/hosts/{{ inventory_hostname }}/work"
    engpass_args: ["null", --no-sample, --values, "1000", --json, --no-history]
    engpass_jitter: 2
    engpass_host_name: "{{ inventory_hostname }}"
    engpass_results_dir: $T_TMP/results
    engpass_db: $T_TMP/fleet.db
    engpass_import_binary: $ENGPASS
  hosts:
    node1:
    node2:
INV

play fleet.yml
check "the playbook exits 0" [ "$RC" = 0 ]
check "node1 completes" recap node1 ok
check "node2 completes" recap node2 ok
check "engpass was installed per host" sh -c "cmp -s '$ENGPASS' '$T_TMP/hosts/node1/bin/engpass' && [ -x '$T_TMP/hosts/node2/bin/engpass' ]"
check "each host's document is fetched" sh -c "[ -s '$T_TMP/results/node1.json' ] && [ -s '$T_TMP/results/node2.json' ]"
check "the import stored both" grep -q "2 imported, 0 already stored, 0 refused" "$T_TMP/out"

play fleet.yml
check "a second run exits 0" [ "$RC" = 0 ]
task 'Install engpass' >"$T_TMP/install"
check "a second run installs nothing (the copy is unchanged)" sh -c "grep -q '^ok: \[node1\]' '$T_TMP/install' && ! grep -q changed '$T_TMP/install'"
check "a second run measures again and imports two new runs" \
	sh -c "grep -q '2 imported, 0 already stored, 0 refused' '$T_TMP/out' && [ \$(sqlite3 '$T_TMP/fleet.db' 'SELECT count(*) FROM runs') = 4 ]"
run import --db "$T_TMP/fleet.db" "$T_TMP/results/node1.json" "$T_TMP/results/node2.json"
check "importing the fetched files again stores nothing twice" grep -qx "0 imported, 2 already stored, 0 refused" "$T_TMP/out"

before=$(ls -lR --time-style=+%s.%N "$T_TMP/results")
play fleet.yml --check
check "--check exits 0" [ "$RC" = 0 ]
play mesh.yml --check -e engpass_mesh_time=1
check "mesh.yml --check exits 0" [ "$RC" = 0 ]
check "--check runs nothing, fetches nothing, imports nothing" \
	sh -c "[ \$(sqlite3 '$T_TMP/fleet.db' 'SELECT count(*) FROM runs') = 4 ] && [ \"\$(ls -lR --time-style=+%s.%N '$T_TMP/results')\" = '$before' ]"

if command -v ansible-lint >/dev/null; then
	RC=0
	t0=$(date +%s)
	(cd "$ROLE" && ansible-lint --offline --nocolor) >"$T_TMP/out" 2>&1 || RC=$?
	echo "# ansible-lint: $(($(date +%s) - t0)) s"
	check "ansible-lint is clean (production profile)" sh -c "[ $RC = 0 ] && grep -q 'Passed with production profile' '$T_TMP/out'"
else
	skip "ansible-lint is clean" "ansible-lint not installed (Debian package ansible-lint)"
fi
done_testing
