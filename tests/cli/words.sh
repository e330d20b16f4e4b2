#!/bin/sh
# SPDX-License-Identifier: MIT
# User-facing words (issue 23): no output, help text, finding or report
# speaks the project's private language. The reference experiments are
# "seeds" 000-004 in the docs; a user reads what the reference was (a
# fastd VPN supernode on KVM, an SMB file fetch over gigabit...), never
# "seed 004". The random-number seed of disk, mem and null (--seed, the
# "seed" parameter, "seeded by", "fixed-seed") is a different word and is
# allowed.
#
# Checked: every command's and benchmark's --help (and net's verbs), a null
# run's table and JSON, its HTML report, and every string literal in the
# binary. The last is the cheap way to reach the texts that only a long run
# prints (quick's findings, net's and watch's capacity notes and methods):
# a format string ends up in .rodata whole, so a "seed 004" in any printf
# format, note or finding is in the binary's printable strings.
. "$(dirname "$0")/lib.sh"
D="$T_TMP/words"
mkdir -p "$D"

# seedy FILE: prints the lines of FILE that say "seed" other than as the
# random-number seed; nothing when FILE is clean.
seedy() {
	sed -E -e 's/--seed\b//g' -e 's/\bseeded\b//g' -e 's/fixed-seed//g' \
		-e 's/\bseed (of the generator|of random offsets|of the page keys)//g' \
		-e 's/^[[:space:]]*seed: [0-9]+$//' -e 's/"seed": ?"?[0-9]+"?//g' -e 's/\bseed="[0-9]+"//g' \
		-e 's#<td>seed</td><td>[0-9]+</td>##g' -e 's/^seed$//' \
		-e 's/\bseed:[0-9]+\b//g' "$1" | grep -i "seed"
}
# (The last rule: AddressSanitizer's stack-frame descriptions in a
# sanitizer build name each local variable with its line, "seed:607".)

# seedy_count FILE: how many lines seedy finds.
seedy_count() { seedy "$1" | wc -l | tr -d ' '; }

# check_clean NAME FILE: passes when FILE has content and says no "seed".
check_clean() {
	if [ ! -s "$2" ]; then
		not_ok "$1" "no output to check"
	elif bad=$(seedy "$2"); then
		not_ok "$1" "$(printf %s "$bad" | head -3)"
	else
		ok "$1"
	fi
}

# The commands and benchmarks as engpass --help lists them.
"$ENGPASS" --help >"$D/help" 2>&1
check_clean "engpass --help says no seed" "$D/help"
CMDS=$(sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' "$D/help")
check "engpass --help lists quick, net and null" \
	sh -c "echo ' '$(echo $CMDS)' ' | grep -q ' quick .* net .*null '"
for c in $CMDS; do
	"$ENGPASS" "$c" --help >"$D/help-$c" 2>&1
	check_clean "engpass $c --help says no seed" "$D/help-$c"
done
for v in server client; do
	"$ENGPASS" net "$v" --help >"$D/help-net-$v" 2>&1
	check_clean "engpass net $v --help says no seed" "$D/help-net-$v"
done

run null --no-history --details
cp "$T_TMP/out" "$D/null.txt"
check_clean "a null run's table says no seed" "$D/null.txt"
check "... the table still shows the generator's seed as a parameter" grep -q "seed: 1" "$D/null.txt"
run null --no-history --json --time 300ms --interval 50ms
cp "$T_TMP/out" "$D/null.json"
check_clean "a null run's JSON says no seed" "$D/null.json"

if ! "$ENGPASS" report --help >/dev/null 2>&1; then
	skip "a null run's HTML report says no seed" "report is not in this build (the minimal router build)"
elif "$ENGPASS" info --json --no-calibrate --no-history 2>/dev/null | jq -e .info.features.jansson >/dev/null; then
	run report "$D/null.json" --html "$D/null.html"
	check_clean "a null run's HTML report says no seed" "$D/null.html"
else
	skip "a null run's HTML report says no seed" "built without jansson"
fi

# Every printable string of four or more characters in the binary.
tr -c '[:print:]' '\n' <"$ENGPASS" | grep -E '.{4,}' >"$D/strings"
check_clean "no string in the binary says seed (findings, notes, methods, help)" "$D/strings"

# The filter itself: the old wording is caught, the random-number seed is not.
printf '%s\n' "900 Mbit/s per GHz of one core (seed 004's fastd managed ~70)" \
	"the round trip set the pace (seed 002: 59 vs 92 MB/s)" "--capacity  add the seed-004 estimate" >"$D/bad"
check "the filter finds each old wording" [ "$(seedy_count "$D/bad")" = 3 ]
printf '%s\n' "--seed N  seed of the generator (default 1)" "              seed: 1" \
	'"seed": 1' "offsets from splitmix64 seeded by --seed" "fixed-seed LCG" \
	"10 32 8 9 limit:607 64 8 8 seed:607 96 8 8 sink:611" >"$D/good"
check "the filter lets the random-number seed through" [ "$(seedy_count "$D/good")" = 0 ]
done_testing
