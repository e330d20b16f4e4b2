#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass download: usage errors (exit 2, one line); a refused connection
# (exit 1, one line); then against Python's http.server on loopback (a
# plain HTTP server, started here on a free port, stopping by itself after
# 120 s and killed by PID in the trap): a few MB byte-exact with --keep
# (the torrent order made the file's own with --interleave 1 and one
# piece), the default torrent order writing every 16 KiB block once, a
# stream cipher's decryption undone by a second run (so the bytes really
# went through it, with one continuous keystream), --rate pacing observed
# within a wide band and named by the verdict, the stage shares covering
# the thread's CPU, the device's write counters, the JSON fields; a cipher
# whose library this build lacks is skipped with the reason; a sweep over
# --cipher composes. Never asserts a speed.
. "$(dirname "$0")/lib.sh"

needs_feature http_parser
not_emulated "the Python server runs natively; the transfers are too slow under qemu"
command -v python3 >/dev/null || { echo "1..0 # SKIP no python3 for the HTTP server"; exit 0; }

PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

# blocksums FILE: the sorted SHA-256 of each 16 KiB block of FILE.
blocksums() {
	rm -rf "$T_TMP/split" && mkdir "$T_TMP/split" && split -b 16384 "$1" "$T_TMP/split/b."
	for f in "$T_TMP/split"/b.*; do sha256sum <"$f"; done | sort
}
jnum() { jq -r ".results[0].metrics.$1 // \"missing\"" "$2"; }

# --- usage errors: exit 2 and one line, before anything is sent ---
run download
check "no URL: exit 2" [ "$RC" = 2 ]
run download http://127.0.0.1/x "$T_TMP/nonexistent"
check "DIR that does not exist: exit 2, one line naming it" sh -c \
	"[ $RC = 2 ] && [ \"\$(wc -l <'$T_TMP/err')\" = 1 ] && grep -q 'nonexistent' '$T_TMP/err'"
run download https://127.0.0.1/x
check "https: exit 2, no TLS" sh -c "[ $RC = 2 ] && grep -q 'no TLS support' '$T_TMP/err'"
run download http://127.0.0.1/x --piece 20K
check "--piece 20K (not whole blocks): exit 2" [ "$RC" = 2 ]
run download http://127.0.0.1/x --cipher rot13
check "--cipher rot13: exit 2" [ "$RC" = 2 ]
run download http://127.0.0.1/x --time 2s
check "--time: exit 2 (the download takes what its size costs)" [ "$RC" = 2 ]
run download --help
for o in --rate --cipher --piece --interleave --cache --prealloc --keep; do
	check "--help names $o" grep -q -- "$o" "$T_TMP/out"
done

# --- a refused connection: exit 1, one line ---
mkdir -p "$T_TMP/d"
run download http://127.0.0.1:1/x "$T_TMP/d" --no-history
check "refused connection: exit 1, one line 'cannot connect ... refused'" sh -c \
	"[ $RC = 1 ] && [ \"\$(wc -l <'$T_TMP/err')\" = 1 ] && grep -q \"cannot connect to '127.0.0.1' port 1: Connection refused\" '$T_TMP/err'"
check "refused connection: nothing left in DIR" sh -c "[ -z \"\$(ls -A '$T_TMP/d')\" ]"

# --- a plain HTTP server on loopback ---
mkdir -p "$T_TMP/srv"
head -c 4194304 /dev/urandom >"$T_TMP/srv/data.bin"		# 256 blocks
head -c 3000000 /dev/urandom >"$T_TMP/srv/odd.bin"		# a short last block
python3 -c '
import functools, http.server, os, sys, threading
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=sys.argv[1]))
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
threading.Timer(120, s.shutdown).start()
s.serve_forever()
' "$T_TMP/srv" "$T_TMP/port" &
PIDS="$PIDS $!"
n=0
while [ ! -s "$T_TMP/port" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
if [ ! -s "$T_TMP/port" ]; then
	not_ok "the HTTP server started"
	done_testing
	exit
fi
U="http://127.0.0.1:$(cat "$T_TMP/port")"

# Byte-exact: one piece, one in flight, so the torrent order is the file's own.
rm -rf "$T_TMP/d" && mkdir "$T_TMP/d"
run download "$U/odd.bin" "$T_TMP/d" --keep --interleave 1 --piece 8M --json --no-history -q
cp "$T_TMP/out" "$T_TMP/none.json"
check "none: exit 0" [ "$RC" = 0 ]
check "none, --keep: the kept file is byte-exact (3000000 bytes, a short last block)" \
	cmp -s "$T_TMP/d/odd.bin" "$T_TMP/srv/odd.bin"
check "--keep: only the kept file is left in DIR" sh -c "[ \"\$(ls -A '$T_TMP/d')\" = odd.bin ]"
for k in throughput_bytes_per_second body_bytes elapsed_seconds prealloc_seconds thread_cpu_percent \
	receive_share_percent decrypt_share_percent write_share_percent other_share_percent receive_cpu_seconds \
	write_cpu_seconds network_wait_percent write_calls cpu_idle_percent cpu_iowait_percent; do
	jqt "JSON has $k" ".results[0].metrics | has(\"$k\")" "$T_TMP/none.json"
done
jqt "JSON: the body is the resource's 3000000 bytes" '.results[0].metrics.body_bytes == 3000000' "$T_TMP/none.json"
jqt "JSON: method names receive, decrypt, write, stages" \
	'.results[0].method | has("receive") and has("decrypt") and has("write") and has("stages")' "$T_TMP/none.json"
jqt "the four shares sum to 100 % (of the thread's CPU)" \
	'.results[0].metrics | (.receive_share_percent + .decrypt_share_percent + .write_share_percent + .other_share_percent) | (. > 99.9 and . < 100.1)' \
	"$T_TMP/none.json"
jqt "receive and write take CPU; none decrypts nothing" \
	'.results[0].metrics | .receive_cpu_seconds > 0 and .write_cpu_seconds > 0 and .decrypt_cpu_seconds == 0' \
	"$T_TMP/none.json"
jqt "184 blocks of 16 KiB: 184 write calls without a cache" '.results[0].metrics.write_calls == 184' "$T_TMP/none.json"
if jq -e '.results[0].metrics | has("device_write_requests")' "$T_TMP/none.json" >/dev/null; then
	jqt "device counters present and moved (the final fdatasync reached the device)" \
		'.results[0].metrics | .device_write_requests > 0 and .device_written_bytes > 0' "$T_TMP/none.json"
	jqt "the throttles of DIR's disk were looked up (method 'limit io write')" \
		'.results[0].method | has("limit io write")' "$T_TMP/none.json"
else
	skip "device counters" "$T_TMP is on no block device the sampler sees"
fi
jqt "a verdict is given" '.results[0].verdict.resource | length > 0' "$T_TMP/none.json"

# The default torrent order: a random piece order, 4 in flight; every block once.
rm -rf "$T_TMP/d" && mkdir "$T_TMP/d"
run download "$U/data.bin" "$T_TMP/d" --keep --piece 256K --cache 1M --json --no-history -q
check "torrent order (256K pieces, 4 in flight, 1M cache): exit 0" [ "$RC" = 0 ]
blocksums "$T_TMP/srv/data.bin" >"$T_TMP/want.sums"
blocksums "$T_TMP/d/data.bin" >"$T_TMP/got.sums"
check "torrent order: the file holds every 16 KiB block of the resource once" cmp -s "$T_TMP/want.sums" "$T_TMP/got.sums"
check "torrent order: the blocks are not in the resource's order" sh -c \
	"! cmp -s '$T_TMP/d/data.bin' '$T_TMP/srv/data.bin'"
jqt "the write cache coalesced: fewer write calls than blocks" '.results[0].metrics.write_calls < 256' "$T_TMP/out"

# A stream cipher with one keystream: decrypting its own output gives the source back.
C=""
has() { "$ENGPASS" info --json --no-calibrate --no-history 2>/dev/null | jq -e ".info.features.$1" >/dev/null; }
if has openssl; then C=rc4; fi
if [ -n "$C" ]; then
	rm -rf "$T_TMP/d" && mkdir "$T_TMP/d"
	run download "$U/odd.bin" "$T_TMP/d" --cipher $C --keep --interleave 1 --piece 8M --json --no-history -q
	if jq -e '.results[0].status == "skipped"' "$T_TMP/out" >/dev/null 2>&1; then
		skip "$C round trip" "$(jq -r '.results[0].reason' "$T_TMP/out")"
	else
		cp "$T_TMP/out" "$T_TMP/c.json"
		jqt "$C: decrypt takes CPU" '.results[0].metrics.decrypt_cpu_seconds > 0' "$T_TMP/c.json"
		jqt "$C: method names the library" '.results[0].method.decrypt | test("OpenSSL")' "$T_TMP/c.json"
		check "$C: the file is not the plaintext" sh -c "! cmp -s '$T_TMP/d/odd.bin' '$T_TMP/srv/odd.bin'"
		mv "$T_TMP/d/odd.bin" "$T_TMP/srv/odd.$C"
		run download "$U/odd.$C" "$T_TMP/d" --cipher $C --keep --interleave 1 --piece 8M --no-history -q
		check "$C twice gives the source back, byte-exact (every byte went through one keystream)" \
			cmp -s "$T_TMP/d/odd.$C" "$T_TMP/srv/odd.bin"
	fi
else
	skip "stream cipher round trip" "built without openssl (rc4, aes-128-ctr)"
fi
# A cipher this build lacks: skipped with the reason, exit 0.
missing=""
has openssl || missing="rc4|openssl"
has libsodium || [ -n "$missing" ] || missing="salsa2012|libsodium"
if [ -n "$missing" ]; then
	run download "$U/odd.bin" "$T_TMP/d" --cipher "${missing%|*}" --json --no-history -q
	jqt "${missing%|*}: skipped, 'built without ${missing#*|}'" \
		".results[0].status == \"skipped\" and (.results[0].reason | test(\"built without ${missing#*|}\"))" "$T_TMP/out"
else
	skip "a cipher this build lacks is skipped" "this build has libsodium and openssl (the router build has neither)"
fi

# --rate: paced by the token bucket, in a wide band, and named by the verdict.
rm -rf "$T_TMP/d" && mkdir "$T_TMP/d"
run download "$U/data.bin" "$T_TMP/d" --rate 2M --json --no-history -q
jqt "--rate 2M: throughput between 1 and 2.4 MiB/s" \
	'.results[0].metrics.throughput_bytes_per_second | (. > 1048576 and . < 2516582)' "$T_TMP/out"
jqt "--rate 2M: the thread slept for the pace most of the time" '.results[0].metrics.pacing_wait_percent > 50' "$T_TMP/out"
jqt "--rate 2M: verdict own pacing" '.results[0].verdict.resource == "own pacing"' "$T_TMP/out"

# sweep composes download steps, one result per cipher.
run sweep "download $U/odd.bin $T_TMP/d" --cipher none,salsa2012 --json --no-history
jqt "sweep --cipher none,salsa2012: two results" '.results | length == 2' "$T_TMP/out"
check "nothing left in DIR without --keep" sh -c "[ -z \"\$(ls -A '$T_TMP/d')\" ]"

done_testing
