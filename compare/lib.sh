# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# What every compare/ script shares (sourced; issue 37): one naming of the
# settings, checked, and a budget said before anything runs.
#
# The names, the same in every script that has the setting:
#   PAIRS            pairs (rounds) of runs: one run of engpass and one of
#                    the anchor tool each (compare/mem: one of every tool)
#   SECONDS_PER_RUN  seconds per timed run (compare/mem has no timed runs)
#   LOADS            what runs beside the tools (compare/latency: none burn)
#   CAP              seconds the script may take (scripts/compare's limit;
#                    unset: no limit)
# and each script's own (ARMS, PAIRINGS, HD_PAIRS, ...), listed in its
# header. The names the scripts used before (SECS, ROUNDS, TIME, LOAD) are
# refused wherever they are set, so an old caller fails instead of running
# the defaults for ten minutes.

# compare_settings PART KNOWN...: exits 2 naming a setting PART does not
# know: one named in COMPARE_GIVEN (the names scripts/compare passes), or an
# old name set in the environment.
compare_settings() {
	_cs_part=$1
	shift
	_cs_known=" $* CAP "
	for _cs_v in ${COMPARE_GIVEN:-} SECS ROUNDS TIME LOAD; do
		case $_cs_known in *" $_cs_v "*) continue ;; esac
		case " ${COMPARE_GIVEN:-} " in
		*" $_cs_v "*) ;;
		*) eval "[ -n \"\${$_cs_v+set}\" ]" || continue ;;
		esac
		echo "$_cs_part: '$_cs_v' is not a setting of this script (its settings: $*; see compare/lib.sh)" >&2
		exit 2
	done
	case ${CAP:-0} in *[!0-9]* | "") echo "$_cs_part: CAP is a whole number of seconds" >&2; exit 2 ;; esac
}

# compare_budget PART SECONDS HOW: when CAP is set and the estimate SECONDS
# (HOW says how it was counted) is more than CAP, says so and exits 3 before
# anything runs; prints the estimate either way.
compare_budget() {
	if [ "${CAP:-0}" -gt 0 ] && [ "$2" -gt "$CAP" ]; then
		echo "$1: cannot finish within its cap of $CAP s: about $2 s ($3); give fewer PAIRS, a shorter SECONDS_PER_RUN or a larger CAP" >&2
		exit 3
	fi
	echo "$1: about $2 s ($3)${CAP:+, cap $CAP s}"
}

# compare_runs_s RUNS SECONDS: the seconds RUNS timed runs of SECONDS each
# take, with half a second each for starting the tool and reading its
# output (measured: engpass latency and cyclictest take 2.0 and 2.1 s for
# 2 s runs here; engpass cpu, openssl speed and the net clients likewise
# start in well under that).
compare_runs_s() {
	echo $((($1 * (2 * $2 + 1) + 1) / 2))
}
