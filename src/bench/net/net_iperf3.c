/* SPDX-License-Identifier: MIT */
/*
 * The iperf3 wire protocol: framing, parameters and results messages,
 * cookies; see net_iperf3.h for the contract and
 * research/network-anchors.md (section 1) for the facts it rests on.
 * Written from those notes, not from iperf3's source.
 */
#include "bench/net/net_iperf3.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "config.h"
#include "lib/xalloc.h"
#include "lib/jw.h"

#if HAVE_JANSSON
#include <jansson.h>
#endif

void iperf3_params_init(struct iperf3_params *p)
{
	memset(p, 0, sizeof(*p));
	p->proto = NET_TCP;
	p->time_s = 10;
	p->parallel = 1;
	p->len = IPERF3_TCP_LEN_DEFAULT;
	p->server_affinity = -1;
}

void net_side_init(struct net_side *s)
{
	memset(s, 0, sizeof(*s));
	s->link_bps = -1;
	s->shaper_bps = -1;
	s->ncpu = -1;
	s->busiest_cpu = -1;
	s->busiest_busy_pct = s->busiest_softirq_pct = s->cpu_busy_pct = NAN;
	s->softirq_pct = s->steal_pct = NAN;
	s->process_cpu_s = s->data_cpu_s = s->moved_bytes = NAN;
	s->freq_mhz = NAN;
	s->pinned_cpu = -1;
	s->tcp_busy_us = s->tcp_rwnd_limited_us = s->tcp_sndbuf_limited_us = NAN;
	s->tcp_rtt_us = s->tcp_cwnd = s->tcp_delivery_rate = NAN;
	s->udp_rcvbuf_errors = NAN;
}

void iperf3_results_release(struct iperf3_results *r)
{
	free(r->streams);
	memset(r, 0, sizeof(*r));
}

/* A memstream-backed writer: open, write, close into an allocation. */
struct membuf {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *membuf_open(struct membuf *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		abort();	/* only fails for lack of memory: the OOM policy */
	return m->f;
}

static char *membuf_close(struct membuf *m, size_t *len)
{
	if (fclose(m->f) != 0 || !m->buf)
		abort();
	*len = m->len;
	return m->buf;
}

char *iperf3_params_format(const struct iperf3_params *p, size_t *len)
{
	struct membuf m;
	struct jw w = JW_INIT(membuf_open(&m), false);

	jw_obj_begin(&w, NULL);
	jw_bool(&w, p->proto == NET_UDP ? "udp" : "tcp", true);
	jw_int(&w, "omit", (int64_t)ceil(p->omit_s));
	/* 3.12 reads "time" as an int: whole seconds, rounded up. */
	jw_int(&w, "time", (int64_t)ceil(p->time_s));
	jw_uint(&w, "num", p->num);
	jw_uint(&w, "blockcount", p->blockcount);
	jw_int(&w, "parallel", p->parallel);
	jw_uint(&w, "len", p->len);
	if (p->reverse)
		jw_bool(&w, "reverse", true);
	if (p->bidir)
		jw_bool(&w, "bidirectional", true);
	if (p->window > 0)
		jw_int(&w, "window", p->window);
	if (p->mss > 0)
		jw_int(&w, "MSS", p->mss);
	if (p->nodelay)
		jw_bool(&w, "nodelay", true);
	if (p->bandwidth_bps > 0)
		jw_uint(&w, "bandwidth", (uint64_t)llround(p->bandwidth_bps));
	if (p->udp_counters_64bit)
		jw_int(&w, "udp_counters_64bit", 1);
	if (p->zerocopy)
		jw_int(&w, "zerocopy", 1);
	if (p->server_affinity >= 0)
		jw_int(&w, "server_affinity", p->server_affinity);
	jw_int(&w, "pacing_timer", 1000);
	jw_str(&w, "client_version", p->client_version[0] ? p->client_version : "engpass");
	if (p->engpass) {
		jw_obj_begin(&w, "engpass");
		jw_str(&w, "version", p->engpass_version);
		jw_bool(&w, "capacity", p->want_capacity);
		jw_obj_end(&w);
	}
	jw_obj_end(&w);
	return membuf_close(&m, len);
}

static void side_format(struct jw *w, const struct net_side *s)
{
	jw_obj_begin(w, "engpass");
	jw_str(w, "version", s->version);
	jw_str(w, "box_tag", s->box_tag);
	jw_str(w, "iface", s->iface);
	jw_num(w, "link_bits_per_second", s->link_bps);
	jw_bool(w, "link_virtual", s->link_virtual);
	jw_int(w, "ncpu", s->ncpu);
	jw_bool(w, "have_view", s->have_view);
	jw_uint(w, "samples", s->samples);
	jw_int(w, "busiest_cpu", s->busiest_cpu);
	jw_num(w, "busiest_cpu_busy_percent", s->busiest_busy_pct);
	jw_num(w, "busiest_cpu_softirq_percent", s->busiest_softirq_pct);
	jw_num(w, "cpu_busy_percent", s->cpu_busy_pct);
	jw_num(w, "softirq_percent", s->softirq_pct);
	jw_num(w, "steal_percent", s->steal_pct);
	jw_num(w, "process_cpu_seconds", s->process_cpu_s);
	jw_num(w, "data_cpu_seconds", s->data_cpu_s);
	jw_num(w, "moved_bytes", s->moved_bytes);
	jw_num(w, "freq_mhz", s->freq_mhz);
	jw_str(w, "freq_source", s->freq_source);
	jw_int(w, "pinned_cpu", s->pinned_cpu);
	jw_num(w, "tcp_busy_us", s->tcp_busy_us);
	jw_num(w, "tcp_rwnd_limited_us", s->tcp_rwnd_limited_us);
	jw_num(w, "tcp_sndbuf_limited_us", s->tcp_sndbuf_limited_us);
	jw_num(w, "tcp_rtt_us", s->tcp_rtt_us);
	jw_num(w, "tcp_cwnd", s->tcp_cwnd);
	jw_num(w, "tcp_delivery_bytes_per_second", s->tcp_delivery_rate);
	jw_num(w, "udp_rcvbuf_errors", s->udp_rcvbuf_errors);
	jw_obj_end(w);
}

char *iperf3_results_format(const struct iperf3_results *r, size_t *len)
{
	struct membuf m;
	struct jw w = JW_INIT(membuf_open(&m), false);

	jw_obj_begin(&w, NULL);
	jw_num(&w, "cpu_util_total", isfinite(r->cpu_total) ? r->cpu_total : 0);
	jw_num(&w, "cpu_util_user", isfinite(r->cpu_user) ? r->cpu_user : 0);
	jw_num(&w, "cpu_util_system", isfinite(r->cpu_system) ? r->cpu_system : 0);
	jw_int(&w, "sender_has_retransmits", r->sender_has_retransmits);
	if (r->congestion[0])
		jw_str(&w, "congestion_used", r->congestion);
	jw_arr_begin(&w, "streams");
	for (size_t i = 0; i < r->nstreams; i++) {
		const struct iperf3_stream_result *s = &r->streams[i];

		jw_obj_begin(&w, NULL);
		jw_int(&w, "id", s->id);
		/* A peer's count may be 2^64 (3.12 prints uint64 max), beyond what converts. */
		jw_uint(&w, "bytes", s->bytes >= 0x1p64 ? UINT64_MAX : (uint64_t)(s->bytes > 0 ? s->bytes : 0));
		jw_int(&w, "retransmits", s->retransmits);
		jw_num(&w, "jitter", isfinite(s->jitter_s) ? s->jitter_s : 0);
		jw_int(&w, "errors", s->errors);
		jw_int(&w, "packets", s->packets);
		jw_num(&w, "start_time", s->start_time);
		jw_num(&w, "end_time", s->end_time);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	if (r->extra.present)
		side_format(&w, &r->extra);
	jw_obj_end(&w);
	return membuf_close(&m, len);
}

#if HAVE_JANSSON

#define NUM_2_63 9223372036854775808.0

/* A number under KEY: 0 with *OUT, 1 when absent, -EINVAL when wrong. */
static int get_num(json_t *o, const char *key, double lo, double hi, double *out, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	double d;

	if (!v || json_is_null(v))
		return 1;
	if (json_is_boolean(v)) {
		d = json_is_true(v) ? 1 : 0;
	} else if (json_is_number(v)) {
		d = json_number_value(v);
	} else {
		snprintf(err, errlen, "'%s' is not a number", key);
		return -EINVAL;
	}
	if (!isfinite(d) || d < lo || d > hi) {
		snprintf(err, errlen, "'%s' is out of range (%g)", key, d);
		return -EINVAL;
	}
	*out = d;
	return 0;
}

/* A flag under KEY: true, or a non-zero number (iperf3 sends both forms). */
static int get_flag(json_t *o, const char *key, bool *out, char *err, size_t errlen)
{
	double d = 0;
	int r = get_num(o, key, -NUM_2_63, 2 * NUM_2_63, &d, err, errlen);

	if (r < 0)
		return r;
	*out = r == 0 && d != 0;
	return 0;
}

/* A signed counter that 3.12 may print as 2^64 - 1 for -1. */
static int get_count(json_t *o, const char *key, int64_t *out, char *err, size_t errlen)
{
	double d;
	int r = get_num(o, key, -NUM_2_63, 2 * NUM_2_63, &d, err, errlen);

	if (r)
		return r;
	*out = d >= NUM_2_63 || d < 0 ? -1 : (int64_t)d;
	return 0;
}

/* Copies a string under KEY into BUF, cut to fit; absent or not a string: "". */
static void get_str(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);

	buf[0] = 0;
	if (v && json_is_string(v)) {
		/* Only printable ASCII survives: these strings reach terminals. */
		const char *s = json_string_value(v);
		size_t n = 0;

		for (; *s && n + 1 < len; s++)
			buf[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
		buf[n] = 0;
	}
}

static json_t *load(const char *json, size_t len, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loadb(json, len, JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES, &je);

	if (!root) {
		snprintf(err, errlen, "bad JSON: %s", je.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		snprintf(err, errlen, "bad JSON: not an object");
		json_decref(root);
		return NULL;
	}
	return root;
}

int iperf3_params_parse(const char *json, size_t len, struct iperf3_params *p, char *err, size_t errlen)
{
	json_t *root, *e;
	bool tcp = false, udp = false, sctp = false;
	double d;
	int r = -EINVAL;

	iperf3_params_init(p);
	if (errlen)
		err[0] = 0;
	if (len > IPERF3_PARAMS_MAX) {
		snprintf(err, errlen, "parameters message too long (%zu bytes)", len);
		return -EINVAL;
	}
	if (!(root = load(json, len, err, errlen)))
		return -EINVAL;
	if (get_flag(root, "tcp", &tcp, err, errlen) || get_flag(root, "udp", &udp, err, errlen) ||
	    get_flag(root, "sctp", &sctp, err, errlen))
		goto out;
	if (sctp) {
		snprintf(err, errlen, "SCTP is not supported");
		goto out;
	}
	if (tcp == udp) {
		snprintf(err, errlen, "parameters must ask for exactly one of tcp and udp");
		goto out;
	}
	p->proto = udp ? NET_UDP : NET_TCP;
	p->len = udp ? IPERF3_UDP_LEN_FALLBACK : IPERF3_TCP_LEN_DEFAULT;
	p->time_s = 0;
	if (get_num(root, "time", 0, IPERF3_TIME_MAX, &p->time_s, err, errlen) < 0 ||
	    get_num(root, "omit", 0, IPERF3_OMIT_MAX, &p->omit_s, err, errlen) < 0)
		goto out;
	d = 0;
	if (get_num(root, "num", 0, 9e15, &d, err, errlen) < 0)
		goto out;
	p->num = (uint64_t)d;
	d = 0;
	if (get_num(root, "blockcount", 0, 9e15, &d, err, errlen) < 0)
		goto out;
	p->blockcount = (uint64_t)d;
	d = 1;
	if (get_num(root, "parallel", 1, IPERF3_MAX_STREAMS, &d, err, errlen) < 0)
		goto out;
	p->parallel = (int)d;
	d = (double)p->len;
	if (udp ? get_num(root, "len", IPERF3_UDP_LEN_MIN, IPERF3_UDP_LEN_MAX, &d, err, errlen) < 0
		: get_num(root, "len", 1, IPERF3_TCP_LEN_MAX, &d, err, errlen) < 0)
		goto out;
	p->len = (uint64_t)d;
	if (get_flag(root, "reverse", &p->reverse, err, errlen) ||
	    get_flag(root, "bidirectional", &p->bidir, err, errlen) ||
	    get_flag(root, "nodelay", &p->nodelay, err, errlen) ||
	    get_flag(root, "udp_counters_64bit", &p->udp_counters_64bit, err, errlen) ||
	    get_flag(root, "zerocopy", &p->zerocopy, err, errlen))
		goto out;
	if (p->reverse && p->bidir) {
		snprintf(err, errlen, "reverse and bidirectional together");
		goto out;
	}
	d = 0;
	if (get_num(root, "window", 0, IPERF3_WINDOW_MAX, &d, err, errlen) < 0)
		goto out;
	p->window = (int64_t)d;
	d = 0;
	if (get_num(root, "MSS", 0, 65535, &d, err, errlen) < 0)
		goto out;
	p->mss = (int64_t)d;
	d = 0;
	if (get_num(root, "bandwidth", 0, 1e15, &d, err, errlen) < 0)
		goto out;
	p->bandwidth_bps = d;
	if (udp && p->bandwidth_bps == 0 && !json_object_get(root, "bandwidth"))
		p->bandwidth_bps = IPERF3_UDP_RATE_DEFAULT;
	d = -1;
	if (get_num(root, "server_affinity", -1, 1023, &d, err, errlen) < 0)
		goto out;
	p->server_affinity = (int)d;
	get_str(root, "client_version", p->client_version, sizeof(p->client_version));
	e = json_object_get(root, "engpass");
	if (e && json_is_object(e)) {
		p->engpass = true;
		get_str(e, "version", p->engpass_version, sizeof(p->engpass_version));
		if (get_flag(e, "capacity", &p->want_capacity, err, errlen))
			goto out;
	}
	r = 0;
out:
	json_decref(root);
	return r;
}

/* Reads the engpass extras; bad values leave the field unknown, never fail. */
static void side_parse(json_t *e, struct net_side *s)
{
	char scratch[128];
	double d;

	net_side_init(s);
	s->present = true;
	get_str(e, "version", s->version, sizeof(s->version));
	get_str(e, "box_tag", s->box_tag, sizeof(s->box_tag));
	get_str(e, "iface", s->iface, sizeof(s->iface));
	get_str(e, "freq_source", s->freq_source, sizeof(s->freq_source));
	if (get_num(e, "link_bits_per_second", 1, 1e15, &d, scratch, sizeof(scratch)) == 0)
		s->link_bps = d;
	if (get_flag(e, "link_virtual", &s->link_virtual, scratch, sizeof(scratch)))
		s->link_virtual = false;
	if (get_num(e, "ncpu", 1, 65536, &d, scratch, sizeof(scratch)) == 0)
		s->ncpu = (int)d;
	if (get_flag(e, "have_view", &s->have_view, scratch, sizeof(scratch)))
		s->have_view = false;
	if (get_num(e, "samples", 0, 1e9, &d, scratch, sizeof(scratch)) == 0)
		s->samples = (unsigned)d;
	if (get_num(e, "busiest_cpu", 0, 65535, &d, scratch, sizeof(scratch)) == 0)
		s->busiest_cpu = (int)d;
	if (get_num(e, "busiest_cpu_busy_percent", 0, 100.5, &d, scratch, sizeof(scratch)) == 0)
		s->busiest_busy_pct = d;
	if (get_num(e, "busiest_cpu_softirq_percent", 0, 100.5, &d, scratch, sizeof(scratch)) == 0)
		s->busiest_softirq_pct = d;
	if (get_num(e, "cpu_busy_percent", 0, 100.5, &d, scratch, sizeof(scratch)) == 0)
		s->cpu_busy_pct = d;
	if (get_num(e, "softirq_percent", 0, 100.5, &d, scratch, sizeof(scratch)) == 0)
		s->softirq_pct = d;
	if (get_num(e, "steal_percent", 0, 100.5, &d, scratch, sizeof(scratch)) == 0)
		s->steal_pct = d;
	if (get_num(e, "process_cpu_seconds", 0, 1e9, &d, scratch, sizeof(scratch)) == 0)
		s->process_cpu_s = d;
	if (get_num(e, "data_cpu_seconds", 0, 1e9, &d, scratch, sizeof(scratch)) == 0)
		s->data_cpu_s = d;
	if (get_num(e, "moved_bytes", 0, 1e19, &d, scratch, sizeof(scratch)) == 0)
		s->moved_bytes = d;
	if (get_num(e, "freq_mhz", 1, 1e6, &d, scratch, sizeof(scratch)) == 0)
		s->freq_mhz = d;
	if (get_num(e, "pinned_cpu", 0, 65535, &d, scratch, sizeof(scratch)) == 0)
		s->pinned_cpu = (int)d;
	if (get_num(e, "tcp_busy_us", 0, 1e15, &d, scratch, sizeof(scratch)) == 0)
		s->tcp_busy_us = d;
	if (get_num(e, "tcp_rwnd_limited_us", 0, 1e15, &d, scratch, sizeof(scratch)) == 0)
		s->tcp_rwnd_limited_us = d;
	if (get_num(e, "tcp_sndbuf_limited_us", 0, 1e15, &d, scratch, sizeof(scratch)) == 0)
		s->tcp_sndbuf_limited_us = d;
	if (get_num(e, "tcp_rtt_us", 0, 1e10, &d, scratch, sizeof(scratch)) == 0)
		s->tcp_rtt_us = d;
	if (get_num(e, "tcp_cwnd", 0, 1e9, &d, scratch, sizeof(scratch)) == 0)
		s->tcp_cwnd = d;
	if (get_num(e, "tcp_delivery_bytes_per_second", 0, 1e15, &d, scratch, sizeof(scratch)) == 0)
		s->tcp_delivery_rate = d;
	if (get_num(e, "udp_rcvbuf_errors", 0, 1e15, &d, scratch, sizeof(scratch)) == 0)
		s->udp_rcvbuf_errors = d;
	if (s->busiest_cpu < 0 || isnan(s->busiest_busy_pct))
		s->have_view = false;
}

int iperf3_results_parse(const char *json, size_t len, struct iperf3_results *r, char *err, size_t errlen)
{
	json_t *root, *arr, *e;
	size_t n;
	int rc = -EINVAL;

	memset(r, 0, sizeof(*r));
	net_side_init(&r->extra);
	r->cpu_total = r->cpu_user = r->cpu_system = NAN;
	if (errlen)
		err[0] = 0;
	if (len > IPERF3_RESULTS_MAX) {
		snprintf(err, errlen, "results message too long (%zu bytes)", len);
		return -EINVAL;
	}
	if (!(root = load(json, len, err, errlen)))
		return -EINVAL;
	if (get_num(root, "cpu_util_total", 0, 1e6, &r->cpu_total, err, errlen) < 0 ||
	    get_num(root, "cpu_util_user", 0, 1e6, &r->cpu_user, err, errlen) < 0 ||
	    get_num(root, "cpu_util_system", 0, 1e6, &r->cpu_system, err, errlen) < 0)
		goto out;
	{
		int64_t shr = -1;

		if (get_count(root, "sender_has_retransmits", &shr, err, errlen) < 0)
			goto out;
		r->sender_has_retransmits = shr > 1 ? 1 : (int)shr;
	}
	get_str(root, "congestion_used", r->congestion, sizeof(r->congestion));
	arr = json_object_get(root, "streams");
	if (!arr || !json_is_array(arr)) {
		snprintf(err, errlen, "results have no 'streams' array");
		goto out;
	}
	n = json_array_size(arr);
	if (n > 2 * IPERF3_MAX_STREAMS) {
		snprintf(err, errlen, "results list %zu streams, at most %d allowed", n, 2 * IPERF3_MAX_STREAMS);
		goto out;
	}
	r->streams = n ? xcalloc(n, sizeof(*r->streams)) : NULL;
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(arr, i);
		struct iperf3_stream_result *sr = &r->streams[i];
		double d;

		if (!json_is_object(s)) {
			snprintf(err, errlen, "stream %zu is not an object", i);
			goto out;
		}
		sr->retransmits = sr->errors = sr->packets = -1;
		sr->jitter_s = 0;
		sr->end_time = NAN;
		if (get_num(s, "id", 1, 65536, &d, err, errlen) != 0) {
			if (!err[0])
				snprintf(err, errlen, "stream %zu has no id", i);
			goto out;
		}
		sr->id = (int)d;
		if (get_num(s, "bytes", 0, 1.9e19, &sr->bytes, err, errlen) != 0) {
			if (!err[0] || !json_object_get(s, "bytes"))
				snprintf(err, errlen, "stream %d has no byte count", sr->id);
			goto out;
		}
		if (get_count(s, "retransmits", &sr->retransmits, err, errlen) < 0 ||
		    get_num(s, "jitter", 0, 1e6, &sr->jitter_s, err, errlen) < 0 ||
		    get_count(s, "errors", &sr->errors, err, errlen) < 0 ||
		    get_count(s, "packets", &sr->packets, err, errlen) < 0 ||
		    get_num(s, "start_time", 0, 1e7, &sr->start_time, err, errlen) < 0 ||
		    get_num(s, "end_time", 0, 1e7, &sr->end_time, err, errlen) < 0)
			goto out;
		r->nstreams++;
	}
	e = json_object_get(root, "engpass");
	if (e && json_is_object(e))
		side_parse(e, &r->extra);
	rc = 0;
out:
	json_decref(root);
	return rc;
}

#else /* !HAVE_JANSSON */

int iperf3_params_parse(const char *json, size_t len, struct iperf3_params *p, char *err, size_t errlen)
{
	(void)json;
	(void)len;
	iperf3_params_init(p);
	snprintf(err, errlen, "built without jansson");
	return -ENOTSUP;
}

int iperf3_results_parse(const char *json, size_t len, struct iperf3_results *r, char *err, size_t errlen)
{
	(void)json;
	(void)len;
	memset(r, 0, sizeof(*r));
	snprintf(err, errlen, "built without jansson");
	return -ENOTSUP;
}

#endif

int iperf3_cookie_make(char cookie[IPERF3_COOKIE_LEN])
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
	unsigned char rnd[IPERF3_COOKIE_LEN - 1];
	size_t got = 0;

	while (got < sizeof(rnd)) {
		ssize_t n = getrandom(rnd + got, sizeof(rnd) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		cookie[i] = alphabet[rnd[i] % 32];
	cookie[IPERF3_COOKIE_LEN - 1] = 0;
	return 0;
}

void iperf3_cookie_mark(char cookie[IPERF3_COOKIE_LEN])
{
	size_t m = sizeof(IPERF3_COOKIE_MARK) - 1;

	memcpy(cookie + IPERF3_COOKIE_LEN - 1 - m, IPERF3_COOKIE_MARK, m);
}

bool iperf3_cookie_marked(const char *cookie)
{
	size_t m = sizeof(IPERF3_COOKIE_MARK) - 1;

	return !cookie[IPERF3_COOKIE_LEN - 1] && !memcmp(cookie + IPERF3_COOKIE_LEN - 1 - m, IPERF3_COOKIE_MARK, m);
}

int iperf3_send_state(int fd, int s, uint64_t timeout_ns, volatile sig_atomic_t *stop)
{
	signed char c = (signed char)s;

	return net_write_full(fd, &c, 1, timeout_ns, stop);
}

int iperf3_recv_state(int fd, int *s, uint64_t timeout_ns, volatile sig_atomic_t *stop)
{
	signed char c;
	int r = net_read_full(fd, &c, 1, timeout_ns, stop);

	if (r == 0)
		*s = c;
	return r;
}

int iperf3_send_json(int fd, const char *json, size_t len, uint64_t timeout_ns, volatile sig_atomic_t *stop)
{
	uint32_t be = htonl((uint32_t)len);
	int r;

	if (len == 0 || len > UINT32_MAX)
		return -EMSGSIZE;
	if ((r = net_write_full(fd, &be, sizeof(be), timeout_ns, stop)) < 0)
		return r;
	return net_write_full(fd, json, len, timeout_ns, stop);
}

int iperf3_recv_json(int fd, size_t max, uint64_t timeout_ns, volatile sig_atomic_t *stop, char **out,
		     size_t *len)
{
	uint32_t be;
	size_t n;
	char *buf;
	int r;

	*out = NULL;
	*len = 0;
	if ((r = net_read_full(fd, &be, sizeof(be), timeout_ns, stop)) < 0)
		return r;
	n = ntohl(be);
	if (n == 0 || n > max)
		return -EMSGSIZE;
	buf = xmalloc(n + 1);
	if ((r = net_read_full(fd, buf, n, timeout_ns, stop)) < 0) {
		free(buf);
		return r;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

const char *iperf3_state_name(int s, char *buf, size_t len)
{
	static const struct {
		int s;
		const char *name;
	} names[] = {
		{ IPERF3_TEST_START, "TEST_START" }, { IPERF3_TEST_RUNNING, "TEST_RUNNING" },
		{ IPERF3_TEST_END, "TEST_END" }, { IPERF3_PARAM_EXCHANGE, "PARAM_EXCHANGE" },
		{ IPERF3_CREATE_STREAMS, "CREATE_STREAMS" }, { IPERF3_SERVER_TERMINATE, "SERVER_TERMINATE" },
		{ IPERF3_CLIENT_TERMINATE, "CLIENT_TERMINATE" }, { IPERF3_EXCHANGE_RESULTS, "EXCHANGE_RESULTS" },
		{ IPERF3_DISPLAY_RESULTS, "DISPLAY_RESULTS" }, { IPERF3_IPERF_DONE, "IPERF_DONE" },
		{ IPERF3_ACCESS_DENIED, "ACCESS_DENIED" }, { IPERF3_SERVER_ERROR, "SERVER_ERROR" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].s == s)
			return names[i].name;
	snprintf(buf, len, "state %d", s);
	return buf;
}
