/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for iperf3_results_parse(), which reads the results message
 * the peer sends at the end of a test (up to IPERF3_RESULTS_MAX bytes, from
 * an iperf3 or engpass client to the server, or from the server to
 * engpass's client). Input is the JSON text, in a buffer of exactly its
 * length. Results that parse are written back and must parse again.
 */
#include <stdlib.h>

#include "bench/net/net_iperf3.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iperf3_results r = { 0 }, q = { 0 };
	char err[160], *json = xmalloc(size ? size : 1), *again;
	size_t len;

	memcpy(json, data, size);
	if (iperf3_results_parse(json, size, &r, err, sizeof(err)) == 0) {
		again = iperf3_results_format(&r, &len);
		if (iperf3_results_parse(again, len, &q, err, sizeof(err)))
			abort();	/* our own message refused: format and parse disagree */
		free(again);
	}
	iperf3_results_release(&q);
	iperf3_results_release(&r);
	free(json);
	return 0;
}
