/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for iperf3_params_parse(), which reads the parameters
 * message any client that connects to `engpass net server` sends. Input
 * is the JSON text, in a buffer of exactly its length. Parameters that
 * pass validation are written back with iperf3_params_format() and must
 * parse again: what engpass's own client sends, its server takes.
 */
#include <stdlib.h>

#include "bench/net/net_iperf3.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iperf3_params p, q;
	char err[160], *json = xmalloc(size ? size : 1), *again;
	size_t len;

	memcpy(json, data, size);
	if (iperf3_params_parse(json, size, &p, err, sizeof(err)) == 0) {
		again = iperf3_params_format(&p, &len);
		if (iperf3_params_parse(again, len, &q, err, sizeof(err)))
			abort();	/* our own message refused: format and parse disagree */
		free(again);
	}
	free(json);
	return 0;
}
