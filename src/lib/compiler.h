/* SPDX-License-Identifier: MIT */
/*
 * Compiler attributes used across engpass. MUST_CHECK marks functions whose
 * return value carries an error the caller has to look at (STYLE.md 12).
 */
#ifndef ENGPASS_COMPILER_H
#define ENGPASS_COMPILER_H

#define MUST_CHECK __attribute__((warn_unused_result))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define UNUSED __attribute__((unused))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
