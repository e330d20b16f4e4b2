# SPDX-License-Identifier: MIT
# Shared by the tests of the Ansible role (fleet_ansible.sh: local stand-in
# hosts; fleet_ssh.sh: network namespaces over SSH). Sourced after lib.sh.
# Skips without ansible-playbook; keeps Ansible's files in the scratch
# directory; makes the bad hosts' stand-ins; play runs a playbook.
if ! command -v ansible-playbook >/dev/null; then
	echo "1..0 # SKIP ansible-playbook not installed (Debian package ansible-core, scripts/deps test set)"
	exit 0
fi
ROLE="$ENGPASS_TESTS/../packaging/ansible"
# Ansible's own files stay in the scratch directory; no SSH master lingers,
# and ssh reads and writes no file of the user's (it takes ~/.ssh from the
# password entry, not from $HOME).
export HOME="$T_TMP/home" ANSIBLE_HOME="$T_TMP/home/.ansible" ANSIBLE_LOCAL_TEMP="$T_TMP/ansible-tmp" \
	ANSIBLE_REMOTE_TEMP="$T_TMP/ansible-remote" ANSIBLE_ASYNC_DIR="$T_TMP/ansible-async" ANSIBLE_NOCOLOR=1 \
	ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=False \
	ANSIBLE_SSH_ARGS="-F /dev/null -o ControlMaster=no -o UserKnownHostsFile=/dev/null -o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=5" \
	ANSIBLE_DEPRECATION_WARNINGS=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_FORKS=${ANSIBLE_FORKS:-5}
mkdir -p "$HOME"

# Stand-ins for the bad hosts' "engpass": one prints garbage, one an older
# engpass's document (the same schema, an older version: the tool's is the
# first "version") recorded as host "older".
printf '#!/bin/sh\necho "garbage {"\n' >"$T_TMP/garbage-engpass"
ENGPASS_HOST=older run null --no-sample --values 1000 --json --no-history
sed '0,/"version": "[^"]*"/s//"version": "0.0.9"/' "$T_TMP/out" >"$T_TMP/old.json"
printf '#!/bin/sh\ncat "%s"\n' "$T_TMP/old.json" >"$T_TMP/old-engpass"
chmod 755 "$T_TMP/garbage-engpass" "$T_TMP/old-engpass"

# play PLAYBOOK ARGS...: runs packaging/ansible/PLAYBOOK on $T_TMP/inventory.yml;
# the output in $T_TMP/out and $T_TMP/err, the exit status in $RC, the wall
# time in seconds in $PLAY_S (printed as a TAP comment).
play() {
	pb=$1; shift
	RC=0
	t0=$(date +%s.%N)
	ansible-playbook -i "$T_TMP/inventory.yml" "$ROLE/$pb" "$@" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
	PLAY_S=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	echo "# ansible-playbook $pb $*: $PLAY_S s, exit $RC"
}
# task NAME: the lines of the play output under task NAME.
task() { sed -n "/^TASK \[engpass : $1/,/^\$/p" "$T_TMP/out"; }
# recap HOST OK|FAILED|UNREACHABLE: passes when the play recap says so of HOST.
recap() {
	case $2 in
	ok) grep -Eq "^$1 +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0" "$T_TMP/out" ;;
	failed) grep -Eq "^$1 +: .* failed=1" "$T_TMP/out" ;;
	unreachable) grep -Eq "^$1 +: .* unreachable=1" "$T_TMP/out" ;;
	esac
}
# runs DB: the number of runs stored in DB.
runs() { sqlite3 "$1" 'SELECT count(*) FROM runs'; }
