/* SPDX-License-Identifier: MIT */
/*
 * Heat: the box's temperature sensors and the CPU's thermal throttling,
 * read by the sampler (core/observe/sampler.h) with the rest of the system view.
 *
 * Found once (thermal_open) under a sysfs root, so tests give a fixture
 * tree:
 *   - thermal zones, class/thermal/thermal_zone*: type, temp and the
 *     trip points (trip_point_N_type, trip_point_N_temp);
 *   - hwmon sensors, class/hwmon/hwmon*: name, tempN_input, tempN_label,
 *     tempN_max, tempN_crit (a hwmon device that only mirrors a thermal
 *     zone, named like the zone's type, is left out);
 *   - the throttle counters of x86 CPUs,
 *     devices/system/cpu/cpuN/thermal_throttle/{core,package}_throttle_count;
 *   - the CPU cooling devices of the thermal framework,
 *     class/thermal/cooling_device* whose type names the CPU (cpufreq-*,
 *     thermal-cpufreq-*, Processor, intel_powerclamp): cur_state, max_state.
 *
 * Cost: every file is opened once; the sensors and the cooling devices'
 * states are read with pread() at each snapshot (thermal_sample), the
 * throttle counters only at the edges of each span (thermal_edge: they
 * are counters, their difference is all the view needs).
 *
 * Plausibility: a temperature outside THERMAL_MIN_C..THERMAL_MAX_C (a
 * disconnected sensor reads -273 °C, 255 °C or 0x7fffffff) is not a
 * reading; a trip point outside THERMAL_TRIP_MIN_C..THERMAL_MAX_C is not a
 * limit. A file that cannot be read or parsed at one snapshot is a missing
 * reading for that snapshot, never a zero.
 */
#ifndef ENGPASS_THERMAL_H
#define ENGPASS_THERMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "core/base/sysview.h"

#define THERMAL_MIN_C		(-40.0)	/* below: not a reading (industrial parts are rated to -40 °C) */
#define THERMAL_MAX_C		150.0	/* above: not a reading (silicon is rated to 105..125 °C) */
#define THERMAL_TRIP_MIN_C	20.0	/* a trip point below this is a placeholder, not a limit */
#define THERMAL_MAX_SENSORS	64	/* zones and hwmon inputs together */
#define THERMAL_MAX_COOLING	16	/* CPU cooling devices */
#define THERMAL_MAX_CPUS	256	/* CPUs whose throttle counters are read */

struct thermal;

/*
 * Parses a sysfs temperature in millidegrees Celsius ("45000\n",
 * "-5000") from TEXT of LEN bytes (no NUL needed) into *CELSIUS.
 * Returns 0, -EINVAL (not one decimal integer) or -ERANGE (outside
 * THERMAL_MIN_C..THERMAL_MAX_C).
 */
MUST_CHECK int thermal_parse_millideg(const char *text, size_t len, double *celsius);

/* Parses an unsigned decimal counter or state ("12\n"). Returns 0 or -EINVAL. */
MUST_CHECK int thermal_parse_count(const char *text, size_t len, uint64_t *out);

/* True when a cooling device of TYPE slows the CPU (cpufreq, Processor, powerclamp). */
bool thermal_cooling_is_cpu(const char *type);

/*
 * Finds the sensors, counters and cooling devices under SYS_ROOT (NULL =
 * "/sys") and opens their files. Never fails: a box without any gives a
 * thermal with none, which the view reports as "no sensors". Caller frees
 * with thermal_free().
 */
struct thermal *thermal_open(const char *sys_root);

/* Reads every sensor and cooling device's state now (pread). */
void thermal_sample(struct thermal *t);

/*
 * Reads the throttle counters at an edge of a span: START at its first
 * snapshot, !START at its last, which adds the span's differences.
 */
void thermal_edge(struct thermal *t, bool start);

/*
 * Writes the temp_*, throttle_* and cooling_* fields of V: each sensor's
 * first, last and highest reading of the window (the hottest
 * SYSVIEW_TEMPS, by highest), the sensor that reached its trip, the
 * throttle counters' differences and the highest cooling state.
 */
void thermal_view(const struct thermal *t, struct sysview *v);

/* Closes the files and frees T. NULL is ignored. */
void thermal_free(struct thermal *t);

#endif
