#!/bin/sh
# SPDX-License-Identifier: MIT
# The Ansible role over real SSH: four hosts as network namespaces on a
# bridge, each with its own sshd (its own config, host key and address),
# its own working directory and history database (inventory variables), an
# SSH key made for the test, root login by key; the controller is this
# namespace. fleet.yml measures the four hosts (4 results imported, a fleet
# row each) with four bad hosts beside them in the same play: one whose
# sshd is not running, one whose run fails, one that returns garbage JSON,
# one with an older engpass (the play completes for the others, the import
# names the file it refused and why, the run stored before is kept); then
# mesh.yml: every directed pair (12) measured with engpass net, one test
# per server at a time, with a tbf shaper on host4's link: host4's three
# pairs are slow and their verdict is the shaper. Everything started is
# stopped and removed by its id. Shared setup: fleetlib.sh.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite jansson
not_emulated "network namespaces and sshd"
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (network namespaces, sshd, root login)"
	exit 0
fi
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh-keygen >/dev/null; then
	echo "1..0 # SKIP sshd not installed (Debian package openssh-server, scripts/deps test set)"
	exit 0
fi
. "$ENGPASS_TESTS/cli/fleetlib.sh"

P=eps$$                          # the prefix of every interface and namespace
NET=10.241.$(($$ % 250))         # the fleet's /24
BR=${P}b
NSS=""
SSHD_PIDS=""
RUN_SSHD=""
cleanup() {
	command -v stop_masters >/dev/null && stop_masters
	for p in $SSHD_PIDS; do kill "$p" 2>/dev/null; done
	for p in $SSHD_PIDS; do wait "$p" 2>/dev/null; done
	for ns in $NSS; do
		# Whatever the playbook left in a namespace (a server, a session) is ours.
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill "$p" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	ip link del "$BR" 2>/dev/null
	[ -n "$RUN_SSHD" ] && rmdir /run/sshd 2>/dev/null
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# sshd needs its privilege separation directory (the package's service unit makes it).
if [ ! -d /run/sshd ]; then
	mkdir -m 755 /run/sshd && RUN_SSHD=1
fi
mkdir -p "$T_TMP/ssh"
ssh-keygen -q -t ed25519 -N '' -C engpass-fleet-test -f "$T_TMP/ssh/id" </dev/null
cp "$T_TMP/ssh/id.pub" "$T_TMP/ssh/authorized_keys"

# host I: namespace, veth into the bridge, address $NET.1I; with sshd unless I = 5.
if ! ip link add "$BR" type bridge 2>/dev/null || ! ip addr add "$NET.1/24" dev "$BR" || ! ip link set "$BR" up; then
	echo "1..0 # SKIP cannot create a bridge"
	exit 0
fi
for i in 1 2 3 4 5; do
	ns=${P}h$i
	ip netns add "$ns" && NSS="$NSS $ns"
	ip link add "${P}v$i" type veth peer name "${P}p$i" &&
		ip link set "${P}p$i" netns "$ns" &&
		ip -n "$ns" link set "${P}p$i" name eth0 &&
		ip link set "${P}v$i" master "$BR" up &&
		ip -n "$ns" addr add "$NET.1$i/24" dev eth0 &&
		ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up ||
		{ echo "Bail out! cannot set up host $i's namespace"; exit 1; }
	[ "$i" = 5 ] && continue
	d=$T_TMP/sshd$i
	mkdir -p "$d"
	ssh-keygen -q -t ed25519 -N '' -f "$d/host_key" </dev/null
	cat >"$d/sshd_config" <<CONF
ListenAddress $NET.1$i
Port 22
HostKey $d/host_key
PidFile none
PermitRootLogin prohibit-password
AuthorizedKeysFile $T_TMP/ssh/authorized_keys
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
PrintMotd no
MaxStartups 50
Subsystem sftp internal-sftp
CONF
	ip netns exec "$ns" /usr/sbin/sshd -D -f "$d/sshd_config" -E "$d/log" &
	SSHD_PIDS="$SSHD_PIDS $!"
done
# host4's link is shaped: 20 Mbit/s out of its namespace.
ip netns exec "${P}h4" tc qdisc add dev eth0 root tbf rate 20mbit burst 32kbit latency 50ms ||
	{ echo "Bail out! cannot add the tbf shaper"; exit 1; }
for i in 1 2 3 4; do
	w=0
	until ip netns exec "${P}h$i" ss -Hltn "( sport = :22 )" | grep -q .; do
		w=$((w + 1))
		[ $w -gt 50 ] && { echo "Bail out! host $i's sshd does not listen: $(cat "$T_TMP/sshd$i/log")"; exit 1; }
		sleep 0.1
	done
done

# The inventory: the four hosts, each with its own working directory and
# history database; the bad hosts in a group of their own.
# SSH: the test's key, no file of the user's, one connection per host kept
# for the play (its master stopped by its socket at the end), pipelining.
mkdir -p "$T_TMP/cp"
export ANSIBLE_SSH_ARGS="-F /dev/null -o UserKnownHostsFile=/dev/null -o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=10 -o ControlMaster=auto -o ControlPersist=120s" \
	ANSIBLE_SSH_CONTROL_PATH="$T_TMP/cp/%%h" ANSIBLE_PIPELINING=1 ANSIBLE_FORKS=10
stop_masters() {
	for s in "$T_TMP"/cp/*; do
		[ -S "$s" ] && ssh -F /dev/null -o ControlPath="$s" -O exit engpass-fleet-test 2>/dev/null
	done
}
cat >"$T_TMP/inventory.yml" <<INV
all:
  vars:
    ansible_user: root
    ansible_ssh_private_key_file: $T_TMP/ssh/id
    engpass_binary: $ENGPASS
    engpass_install_path: "$T_TMP/hosts/{{ inventory_hostname }}/bin/engpass"
    engpass_workdir: "$T_TMP/hosts/{{ inventory_hostname }}/work"
    engpass_args: [cpu, --cipher, chacha20-poly1305, --size, "1400", --time, 0.5s, --no-sample, --json,
                   --db, "{{ engpass_workdir }}/history.db"]
    engpass_jitter: 0
    engpass_host_name: "{{ inventory_hostname }}"
    engpass_results_dir: $T_TMP/results
    engpass_db: $T_TMP/fleet.db
    engpass_import_binary: $ENGPASS
    engpass_mesh_time: 1
    engpass_mesh_idle_timeout: 200
  children:
    good:
      hosts:
        host1: {ansible_host: $NET.11}
        host2: {ansible_host: $NET.12}
        host3: {ansible_host: $NET.13}
        host4: {ansible_host: $NET.14}
    bad:
      hosts:
        unreachable: {ansible_host: $NET.15}
        runfails: {ansible_host: $NET.11, engpass_args: [cpu, --no-such-option, --json]}
        garbage: {ansible_host: $NET.12, engpass_binary: $T_TMP/garbage-engpass}
        older: {ansible_host: $NET.13, engpass_binary: $T_TMP/old-engpass}
INV

# A run stored before the play, which the import must not lose.
ENGPASS_HOST=host1 run null --no-sample --values 1000 --json --db "$T_TMP/fleet.db"
before=$(runs "$T_TMP/fleet.db")
play fleet.yml
check "the playbook names the failed and the unreachable host (exit 2 or 4)" sh -c "[ $RC = 2 ] || [ $RC = 4 ]"
for h in host1 host2 host3 host4 garbage older; do
	check "$h completes" recap $h ok
done
check "the host whose run fails is failed" recap runfails failed
check "the host whose sshd is not running is unreachable" recap unreachable unreachable
check "each sshd let the test's key in" sh -c "for i in 1 2 3 4; do grep -q 'Accepted publickey for root' '$T_TMP'/sshd\$i/log || exit 1; done"
check "the four hosts' results imported" [ "$(grep -Ec "imported '$T_TMP/results/host[1-4].json' as run" "$T_TMP/out")" = 4 ]
check "the import says which file it refused and why" \
	grep -q "engpass import: '$T_TMP/results/garbage.json' refused: not JSON" "$T_TMP/out"
check "the import stored the four hosts' and the older engpass's runs" grep -q "5 imported, 0 already stored, 1 refused" "$T_TMP/out"
check "nothing already stored is lost ($before run before, 5 more after)" [ "$(runs "$T_TMP/fleet.db")" = $((before + 5)) ]
check "each host stored its run in its own database" \
	sh -c "for h in host1 host2 host3 host4; do [ \$(sqlite3 '$T_TMP'/hosts/\$h/work/history.db 'SELECT count(*) FROM runs') = 1 ] || exit 1; done"
run fleet --db "$T_TMP/fleet.db"
cp "$T_TMP/out" "$T_TMP/fleet"
sed 's/^/# /' "$T_TMP/fleet"
check "engpass fleet has a row per host: the 4 hosts and the older engpass's" \
	sh -c "grep -q '^fleet: the newest run of each of 5 hosts' '$T_TMP/fleet' &&
	[ \$(sed -n '/^  host  /,/^spread/p' '$T_TMP/fleet' | grep -Ec '^  host[1-4]  .* cpu ') = 4 ] &&
	grep -q '^  older  .*  0.0.9  ' '$T_TMP/fleet'"

# The mesh: 12 directed pairs, one test per server at a time.
before=$(runs "$T_TMP/fleet.db")
play mesh.yml --limit good
check "the mesh playbook exits 0" [ "$RC" = 0 ]
M=$T_TMP/results/mesh
check "12 documents fetched, one per directed pair" [ "$(find "$M" -name '*.json' | wc -l)" = 12 ]
check "the import stored the 12 pairs" sh -c "grep -q '12 imported, 0 already stored, 0 refused' '$T_TMP/out' && [ \$(sqlite3 '$T_TMP/fleet.db' 'SELECT count(*) FROM runs') = $((before + 12)) ]"
# The matrix: engpass fleet --mesh over the imported runs (rows sender,
# columns receiver; each client named its server's host with --peer).
run fleet --mesh --db "$T_TMP/fleet.db"
sed 's/^/# /' "$T_TMP/out"
check "fleet --mesh counts 12 of 12 directed pairs" grep -q '^mesh: 4 hosts; 12 of 12 directed pairs measured' "$T_TMP/out"
run fleet --mesh --json --db "$T_TMP/fleet.db"
jq -r '.cells[] | [.from, .to, .throughput_bits_per_second, .rtt_ms, .verdict] | @tsv' "$T_TMP/out" >"$T_TMP/matrix"
sed 's/^/# /' "$T_TMP/matrix"
check "the matrix has 12 cells, each with a throughput and an RTT" \
	sh -c "[ \$(awk -F'\t' '\$1 != \$2 && \$3 > 0 && \$4 > 0' '$T_TMP/matrix' | wc -l) = 12 ]"
check "every document has its sender, its receiver's address and --peer, a throughput and an RTT" sh -c "
	for s in 1 2 3 4; do for r in 1 2 3 4; do [ \$s = \$r ] && continue
		jq -e --arg h host\$s --arg a $NET.1\$r --arg p host\$r '.host == \$h and (.command | test(\$a))
			and .results[0].parameters.server_host == \$p
			and .results[0].metrics.throughput_bits_per_second > 0 and .results[0].metrics.up_tcp_rtt_ns > 0' \
			'$M'/host\$s/host\$r.json >/dev/null || exit 1
	done; done"
# The runner ranks the shaper first unless something else also sits at its
# limit: on a busy shared box the CPU can (both at 100 %), so the shaper
# must be among the candidates at 80 % or more, and the verdict of most of
# host4's pairs.
check "host4's three pairs (its link shaped to 20 Mbit/s) run under 22 Mbit/s with the shaper at its limit" sh -c "
	for r in 1 2 3; do jq -e '.results[0] | .metrics.throughput_bits_per_second < 22e6 and
		any(.verdict.candidates[]; .resource == \"shaper\" and .share >= 0.8)' '$M'/host4/host\$r.json >/dev/null || exit 1
	done"
check "the verdict of at least two of host4's pairs names the shaper" \
	sh -c "[ \$(awk -F'\t' '\$1 == \"host4\" && \$5 == \"shaper\"' '$T_TMP/matrix' | wc -l) -ge 2 ]"
check "the nine other pairs run faster than 40 Mbit/s and do not name the shaper" \
	sh -c "[ \$(awk -F'\t' '\$1 != \"host4\" && \$3 > 40e6 && \$5 != \"shaper\"' '$T_TMP/matrix' | wc -l) = 9 ]"
left=""
for ns in $NSS; do
	for p in $(ip netns pids "$ns"); do
		case $(readlink "/proc/$p/exe") in *engpass*) left="$left $p" ;; esac
	done
done
check "no engpass server is left running on any host" [ -z "$left" ]
stop_masters
done_testing
