#!/bin/sh
# SPDX-License-Identifier: MIT
# The Ansible role (packaging/ansible) run for real: five inventory hosts
# on this machine (ansible_connection=local, each with its own install
# path, working directory and ENGPASS_HOST): two measure, one fails its run
# (a usage error: no document), one returns garbage JSON, one an older
# engpass's document (both stand-in binaries: scripts), one is unreachable
# (SSH to a closed port). The playbook
# completes for the others, the import says which file it refused and
# why, a second run installs nothing new and adds two runs, --check changes
# nothing, and ansible-lint is clean.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite jansson
not_emulated "ansible copies the host's binary"
if ! command -v ansible-playbook >/dev/null; then
	echo "1..0 # SKIP ansible-playbook not installed (Debian package ansible-core, scripts/deps test set)"
	exit 0
fi
ROLE="$ENGPASS_TESTS/../packaging/ansible"
# Ansible's own files stay in the scratch directory; no SSH master lingers.
export HOME="$T_TMP/home" ANSIBLE_HOME="$T_TMP/home/.ansible" ANSIBLE_LOCAL_TEMP="$T_TMP/ansible-tmp" \
	ANSIBLE_REMOTE_TEMP="$T_TMP/ansible-remote" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
	ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_SSH_ARGS="-o ControlMaster=no" \
	ANSIBLE_DEPRECATION_WARNINGS=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_FORKS=5
mkdir -p "$HOME"
printf '#!/bin/sh\necho "garbage {"\n' >"$T_TMP/garbage-engpass"
# An older engpass: the same schema, an older version (the tool's is the first "version").
ENGPASS_HOST=node6 run null --no-sample --values 1000 --json --no-history
sed '0,/"version": "[^"]*"/s//"version": "0.0.9"/' "$T_TMP/out" >"$T_TMP/old.json"
printf '#!/bin/sh\ncat "%s"\n' "$T_TMP/old.json" >"$T_TMP/old-engpass"
chmod 755 "$T_TMP/garbage-engpass" "$T_TMP/old-engpass"
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
    node3:
      engpass_args: ["null", --no-such-option, --json]
    node4:
      engpass_binary: $T_TMP/garbage-engpass
    node6:
      engpass_binary: $T_TMP/old-engpass
    node5:
      ansible_connection: ssh
      ansible_host: 127.0.0.1
      ansible_port: 1
INV
play() {
	RC=0
	t0=$(date +%s)
	ansible-playbook -i "$T_TMP/inventory.yml" "$ROLE/fleet.yml" "$@" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
	echo "# ansible-playbook $*: $(($(date +%s) - t0)) s, exit $RC"
}
# task NAME: the lines of the play output under task NAME.
task() { sed -n "/^TASK \[engpass : $1/,/^\$/p" "$T_TMP/out"; }

play
check "the playbook ends with failed and unreachable hosts named (exit 2 or 4)" sh -c "[ $RC = 2 ] || [ $RC = 4 ]"
check "the two good hosts complete" sh -c "grep -Eq '^node1 +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0' '$T_TMP/out' &&
	grep -Eq '^node2 +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0' '$T_TMP/out'"
check "the host whose run failed is failed" grep -Eq '^node3 +: .* failed=1' "$T_TMP/out"
check "the unreachable host is unreachable" grep -Eq '^node5 +: .* unreachable=1' "$T_TMP/out"
check "each host that printed a document has it fetched" \
	sh -c "[ -s '$T_TMP/results/node1.json' ] && [ -s '$T_TMP/results/node2.json' ] && [ -s '$T_TMP/results/node4.json' ] && [ ! -e '$T_TMP/results/node3.json' ]"
check "engpass was installed per host" sh -c "cmp -s '$ENGPASS' '$T_TMP/hosts/node1/bin/engpass' && [ -x '$T_TMP/hosts/node2/bin/engpass' ]"
check "the import says which file it refused and why" \
	grep -q "engpass import: '$T_TMP/results/node4.json' refused: not JSON" "$T_TMP/out"
check "the import stored the two good hosts and the older engpass's document" \
	grep -q "3 imported, 0 already stored, 1 refused" "$T_TMP/out"
run fleet --db "$T_TMP/fleet.db"
check "the fleet table has the three hosts, each under its own name" \
	sh -c "grep -q '^fleet: the newest run of each of 3 hosts' '$T_TMP/out' && grep -q '^  node1  ' '$T_TMP/out' &&
	grep -q '^  node2  ' '$T_TMP/out' && grep -q '^  node6  .*  0.0.9  ' '$T_TMP/out'"
check "three hosts: the spread is judged" grep -q "^null: p99 (lower is better), median .*, spread " "$T_TMP/out"

play --limit node1,node2
check "a second run of the good hosts exits 0" [ "$RC" = 0 ]
task 'Install engpass' >"$T_TMP/install"
check "a second run installs nothing (the copy is unchanged)" sh -c "grep -q '^ok: \[node1\]' '$T_TMP/install' && ! grep -q changed '$T_TMP/install'"
check "a second run measures again and imports two new runs" \
	sh -c "grep -q '2 imported, 0 already stored, 0 refused' '$T_TMP/out' && [ \$(sqlite3 '$T_TMP/fleet.db' 'SELECT count(*) FROM runs') = 5 ]"
run import --db "$T_TMP/fleet.db" "$T_TMP/results/node1.json" "$T_TMP/results/node2.json"
check "importing the fetched files again stores nothing twice" grep -qx "0 imported, 2 already stored, 0 refused" "$T_TMP/out"

before=$(ls -l --time-style=+%s.%N "$T_TMP/results")
play --check --limit node1,node2
check "--check exits 0" [ "$RC" = 0 ]
check "--check runs nothing, fetches nothing, imports nothing" \
	sh -c "[ \$(sqlite3 '$T_TMP/fleet.db' 'SELECT count(*) FROM runs') = 5 ] && [ \"\$(ls -l --time-style=+%s.%N '$T_TMP/results')\" = '$before' ]"

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
