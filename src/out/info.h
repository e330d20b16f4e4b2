/* SPDX-License-Identifier: MIT */
/*
 * Renderers of the box description (struct sysinfo): a JSON object for
 * `engpass info --json` and for the "info" block of every run document, and
 * a human text layout in the spirit of lscpu and `hdparm /dev/X`. Both show
 * unknown values as unknown (JSON null, the word "unknown"), never as 0.
 */
#ifndef ENGPASS_OUT_INFO_H
#define ENGPASS_OUT_INFO_H

#include <stdio.h>

struct jw;
struct sysinfo;

/*
 * Writes SI as one JSON object value through W, under KEY (NULL at the top
 * level or inside an array). Sizes are in bytes, frequencies in MHz, the
 * unit is in each key name. Nothing is allocated that outlives the call.
 */
void info_render_json(struct jw *w, const char *key, const struct sysinfo *si);

/*
 * Writes SI to F as sections of aligned text: cpu, memory, swap, block
 * devices, mounts, network, kernel, virtualisation, io_uring. F is not
 * closed; write errors are left in F's error indicator.
 */
void info_render_table(FILE *f, const struct sysinfo *si);

#endif
