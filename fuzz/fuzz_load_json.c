/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the JSON result loader of src/store/load.c: `engpass
 * compare` and `report` read result files given on the command line with
 * it, and the exporter rebuilds every stored run with it before serving
 * it. Input is the document's text. A run that loads is rendered as the
 * exporter (Prometheus), `report` (table) and --json would, and the JSON
 * rendering must load again.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/result/result.h"
#include "fuzz.h"
#include "out/render.h"
#include "store/history.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *text = fuzz_cstr(data, size), *again = NULL;
	struct history_metrics hm;
	struct run *run, *run2;
	size_t len = 0;
	FILE *f;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (history_metrics_from_json(text, "fuzz", &hm, err, sizeof(err)) == 0)
		history_metrics_release(&hm);
	if (run_from_json(text, &run, err, sizeof(err)) == 0) {
		render_prom(devnull, run);
		render_table(devnull, run);
		f = open_memstream(&again, &len);
		render_json(f, run, false, false);
		fclose(f);
		if (run_from_json(again, &run2, err, sizeof(err)))
			abort();	/* our own rendering refused by our own loader */
		run_free(run2);
		free(again);
		run_free(run);
	}
	free(text);
	return 0;
}
