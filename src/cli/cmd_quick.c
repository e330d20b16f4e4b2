/* SPDX-License-Identifier: MIT */
/*
 * `engpass quick`: the whole-box profile in about a minute, the README's
 * `make run`. It runs a short, fixed list of benchmark steps, each as its
 * own engpass process with --json (as sweep does), then prints one summary
 * table -- a row per step, its headline figure and what bound it -- and a
 * few plain sentences of findings, stores the whole profile as one run in
 * the history and writes an HTML report.
 *
 * The list below is the profile. A step whose benchmark this build lacks,
 * or that needs root, is a row that says why it was skipped; nothing is
 * dropped silently.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "config.h"
#include "core/clock.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "store/history.h"

struct quick_step {
	const char *group;	/* for --skip: cpu mem disk net latency ladder */
	const char *bench;
	const char *args[16];	/* after the benchmark name */
	bool needs_root;
	const char *why;	/* one line: what this step shows */
	const char *label;	/* appended to the step names of this run, or NULL */
	bool net_server;	/* needs an engpass net server on loopback for the run */
	const char *delay;	/* that server's --delay, or NULL */
};

/*
 * The profile. Times are short on purpose: the whole list must finish in
 * about a minute on a 2-core box (budget 90 s).
 */
static const struct quick_step steps[] = {
	{ "cpu", "cpu", { "--cipher", "chacha20-poly1305,salsa2012", "--size", "1400", "--lib", "auto", "--time",
			  "1s" }, false, "cipher cost per core and per GHz" },
	{ "mem", "mem", { "--bandwidth", "--latency" }, false, "memory bandwidth and the latency curve" },
	{ "disk", "disk", { "-T", "-t", "--size", "256M" }, false, "hdparm -T and -t in the current directory" },
	{ "disk", "disk", { "--workload", "rand-read", "--bs", "4K", "--qd", "32", "--size", "256M", "--time", "2s" },
	  false, "4 KiB random reads at queue depth 32" },
	{ "disk", "disk", { "--workload", "seq-write", "--bs", "1M", "--size", "256M", "--time", "2s" }, false,
	  "1 MiB sequential writes" },
	{ "disk", "disk", { "--workload", "torrent", "--size", "64M", "--cache", "0" }, false,
	  "the torrent pattern without a write cache", "cache 0" },
	{ "disk", "disk", { "--workload", "torrent", "--size", "64M", "--cache", "8M" }, false,
	  "the torrent pattern with an 8 MiB write cache", "cache 8M" },
	{ "net", "net", { "client", "127.0.0.1", "--port", "@PORT", "--time", "3s", "--capacity" }, false,
	  "one TCP stream over loopback", "over loopback", true },
	{ "net", "net", { "client", "127.0.0.1", "--port", "@PORT", "--mode", "rr", "--block", "60K", "--depth", "1",
			  "--time", "2s" }, false, "60 KiB requests one at a time over a 1 ms round trip",
	  "rr depth 1", true, "1ms" },
	{ "net", "net", { "client", "127.0.0.1", "--port", "@PORT", "--mode", "rr", "--block", "60K", "--depth", "2",
			  "--time", "2s" }, false, "60 KiB requests two in flight over a 1 ms round trip",
	  "rr depth 2", true, "1ms" },
	{ "latency", "latency", { "--task", "audio,video", "--load", "none,burn", "--time", "2s", "--warmup",
				  "500ms" }, false, "interactivity under a CPU hog" },
	{ "ladder", "mem", { "--ladder", "--sandbox", "64M", "--swapfile", "128M", "--sizes", "0.5x,1.5x" }, true,
	  "a small swap ladder in a sandbox" },
};

struct quick_opts {
	const char *skip;
	const char *report;
	bool no_report;
	bool no_net;
	bool json;
	bool no_history;
	const char *db;
	const char *prom;
	bool help;
};

static const struct opt quick_options[] = {
	OPT_STRING("skip", 0, struct quick_opts, skip, "LIST",
		   "leave out these parts: cpu,mem,disk,net,latency,ladder"),
	OPT_FLAG("no-net", 0, struct quick_opts, no_net, "leave out the loopback net step (same as --skip net)"),
	OPT_STRING("report", 0, struct quick_opts, report, "FILE",
		   "HTML report path (default engpass-quick-TIME.html in the current directory)"),
	OPT_FLAG("no-report", 0, struct quick_opts, no_report, "do not write the HTML report"),
	OPT_FLAG("json", 0, struct quick_opts, json, "print the whole profile as one JSON document"),
	OPT_FLAG("no-history", 0, struct quick_opts, no_history, "do not store the profile in the history"),
	OPT_STRING("db", 0, struct quick_opts, db, "PATH", "history database"),
	OPT_STRING("prom", 0, struct quick_opts, prom, "FILE", "also write Prometheus text format to FILE"),
	OPT_FLAG("help", 'h', struct quick_opts, help, "show this help"),
	OPT_END,
};

/*
 * Starts `engpass net server --one-off` on 127.0.0.1:PORT in the
 * background, its output discarded. Returns its pid, or -1.
 */
static pid_t start_net_server(const char *port, const char *delay)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl("/proc/self/exe", "engpass", "net", "server", "--bind", "127.0.0.1", "--port", port,
		      "--one-off", "--idle-timeout", "30s", "--no-history", "--quiet",
		      delay ? "--delay" : (char *)NULL, delay, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Stops the server started above: it ends by itself after its one test; else SIGTERM. */
static void stop_net_server(pid_t pid)
{
	int st;

	for (int i = 0; i < 50; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(20000);
	}
	kill(pid, SIGTERM);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

static const char *const groups[] = { "cpu", "mem", "disk", "net", "latency", "ladder", NULL };

/* True when GROUP is named in the comma list SKIP. */
static bool skipped(const char *skip, const char *group)
{
	size_t len = strlen(group);

	for (const char *p = skip; p && *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, group, n))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* Checks every name in SKIP; returns the first unknown one (static buffer) or NULL. */
static const char *bad_skip(const char *skip)
{
	static char word[32];

	for (const char *p = skip; p && *p;) {
		size_t n = strcspn(p, ",");
		bool ok = false;

		for (size_t i = 0; groups[i]; i++)
			ok |= strlen(groups[i]) == n && !strncmp(p, groups[i], n);
		if (!ok) {
			snprintf(word, sizeof(word), "%.*s", (int)(n > 30 ? 30 : n), p);
			return word;
		}
		p += n + (p[n] == ',');
	}
	return NULL;
}

#if HAVE_JANSSON
#include <jansson.h>

/* A skipped or failed row of the profile, as a result object. */
static json_t *status_result(const struct quick_step *s, const char *status, const char *reason)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:b, s:i, s:{}, s:{}, s:{}, s:{}, s:[], s:n, s:{s:n, s:n}}", "bench",
			 s->bench, "step", s->group, "status", status, "reason", reason, "incomplete", 0,
			 "repetitions", 1, "parameters", "method", "metrics", "labels", "notes", "system",
			 "verdict", "resource", "evidence");
}

/* The headline figure of a result object, formatted; "" when none. */
static void headline(json_t *r, char *buf, size_t len)
{
	json_t *metrics = json_object_get(r, "metrics"), *v;
	const char *key = json_string_value(json_object_get(r, "headline"));

	buf[0] = 0;
	if (!key) {
		void *it = json_object_iter(metrics);

		key = it ? json_object_iter_key(it) : NULL;
	}
	v = key ? json_object_get(metrics, key) : NULL;
	if (json_is_number(v)) {
		size_t nlen;
		enum unit u = unit_from_key(key, &nlen);
		char val[48];

		render_value(val, sizeof(val), json_number_value(v), u);
		snprintf(buf, len, "%s %.*s", val, (int)nlen, key);
	}
}

/* Finds the result whose step is STEP; NULL when absent or not ok. */
static json_t *find_ok(json_t *results, const char *step)
{
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r) {
		const char *s = json_string_value(json_object_get(r, "step"));
		const char *st = json_string_value(json_object_get(r, "status"));

		if (s && st && !strcmp(s, step) && !strcmp(st, "ok"))
			return r;
	}
	return NULL;
}

static double metric(json_t *r, const char *key)
{
	json_t *v = r ? json_object_get(json_object_get(r, "metrics"), key) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * A few plain sentences from the figures: each says what it compares and
 * only appears when both figures exist.
 */
static void findings(FILE *f, json_t *results)
{
	size_t i, n = 0;
	json_t *r, *a, *b;
	double x, y;

	fprintf(f, "\nfindings\n");
	/* One sentence per benchmark whose steps were bound by one core. */
	json_array_foreach(results, i, r) {
		const char *res = json_string_value(json_object_get(json_object_get(r, "verdict"), "resource"));
		const char *ev = json_string_value(json_object_get(json_object_get(r, "verdict"), "evidence"));
		const char *bench = json_string_value(json_object_get(r, "bench"));
		size_t j, same = 0, earlier = 0;
		json_t *o;

		if (!res || strcmp(res, "one core"))
			continue;
		json_array_foreach(results, j, o) {
			const char *xr = json_string_value(json_object_get(json_object_get(o, "verdict"), "resource"));

			if (xr && !strcmp(xr, "one core") && !strcmp(json_string_value(json_object_get(o, "bench")), bench)) {
				same++;
				earlier += j < i;
			}
		}
		if (earlier)
			continue;
		fprintf(f, "- %zu %s step%s bound by one core, e.g. %s: %s.\n", same, bench, same > 1 ? "s were" : " was",
			json_string_value(json_object_get(r, "step")), ev ? ev : "");
		n++;
	}
	a = find_ok(results, "chacha20-poly1305/1400B/openssl/1 thread");
	if (!a)
		a = find_ok(results, "chacha20-poly1305/1400B/sodium/1 thread");
	if (!isnan(x = metric(a, "bitrate_per_ghz_bits_per_second"))) {
		fprintf(f, "- chacha20-poly1305 on 1400-byte packets: %.0f Mbit/s per GHz of one core (seed 004's fastd "
			   "managed ~70 for its whole VPN path).\n", x / 1e6);
		n++;
	}
	a = find_ok(results, "client over loopback");
	if (!isnan(x = metric(a, "throughput_bits_per_second"))) {
		y = metric(a, "capacity_per_ghz_bits_per_second");
		fprintf(f, "- one TCP stream over loopback moved %.1f Gbit/s", x / 1e9);
		if (!isnan(y))
			fprintf(f, "; seed 004's rule of three makes that an ESTIMATED %.2f Gbit/s per GHz of one core", y / 1e9);
		fprintf(f, ".\n");
		n++;
	}
	a = find_ok(results, "client rr depth 1");
	b = find_ok(results, "client rr depth 2");
	if (!isnan(x = metric(a, "throughput_bytes_per_second")) && !isnan(y = metric(b, "throughput_bytes_per_second")) &&
	    x > 0) {
		fprintf(f, "- over a 1 ms round trip, 60 KiB requests one at a time moved %.0f MB/s and two in flight %.0f "
			   "MB/s (%.1fx): the round trip, not the wire, set the pace (seed 002: 59 vs 92 MB/s).\n",
			x / 1e6, y / 1e6, y / x);
		n++;
	}
	a = find_ok(results, "cached");
	b = find_ok(results, "device");
	if (!isnan(x = metric(a, "read_bytes_per_second")) && !isnan(y = metric(b, "read_bytes_per_second")) && y > 0) {
		fprintf(f, "- re-reading the page cache (a memory copy, hdparm -T) is %.0fx faster than reading the "
			   "device (hdparm -t).\n", x / y);
		n++;
	}
	a = find_ok(results, "torrent cache 0");
	b = find_ok(results, "torrent cache 8M");
	if (!isnan(x = metric(a, "device_write_requests")) && !isnan(y = metric(b, "device_write_requests"))) {
		fprintf(f, "- the torrent write pattern cost the device %.0f write requests without a write cache and "
			   "%.0f with 8 MiB (%.0f vs %.0f write calls).\n", x, y, metric(a, "write_calls"),
			   metric(b, "write_calls"));
		n++;
	}
	a = find_ok(results, "audio/none");
	b = find_ok(results, "audio/burn");
	if (!isnan(x = metric(a, "deadlines_met_percent")) && !isnan(y = metric(b, "deadlines_met_percent"))) {
		fprintf(f, "- audio met %.1f %% of its deadlines alone and %.1f %% beside a CPU hog.\n", x, y);
		n++;
	}
	a = find_ok(results, "video/burn");
	if (!isnan(x = metric(a, "desired_cpu_percent"))) {
		fprintf(f, "- video got %.0f %% of the CPU it wanted beside a CPU hog.\n", x);
		n++;
	}
	a = find_ok(results, "latency");
	if (!isnan(x = metric(a, "lat_largest_ns"))) {
		fprintf(f, "- a dependent load from memory too big for the caches takes %.0f ns.\n", x);
		n++;
	}
	{
		double res_read = NAN, swap_read = NAN;

		json_array_foreach(results, i, r) {
			const char *label = json_string_value(json_object_get(json_object_get(r, "labels"),
									       "read_bytes_per_second"));
			double v = metric(r, "read_bytes_per_second");

			if (!label || isnan(v) || strcmp(json_string_value(json_object_get(r, "bench")), "mem"))
				continue;
			if (strstr(label, "resident"))
				res_read = v;
			else if (strstr(label, "swap"))
				swap_read = v;
		}
		if (!isnan(res_read) && !isnan(swap_read) && swap_read > 0) {
			fprintf(f, "- reading memory back through swap is %.0fx slower than from RAM.\n",
				res_read / swap_read);
			n++;
		}
	}
	if (!n)
		fprintf(f, "- nothing stood out.\n");
}

/* The steps that scaled their sizes down to fit this box, with what they scaled (their "scaled down" notes). */
static void scaled(FILE *f, json_t *results)
{
	size_t i, j, n = 0;
	json_t *r, *note;

	json_array_foreach(results, i, r) {
		json_array_foreach(json_object_get(r, "notes"), j, note) {
			const char *t = json_string_value(note);

			if (!t || strncmp(t, "scaled down", 11))
				continue;
			if (!n++)
				fprintf(f, "\nscaled to fit this box\n");
			fprintf(f, "- %s %s: %s\n", json_string_value(json_object_get(r, "bench")),
				json_string_value(json_object_get(r, "step")), t);
		}
	}
}

int cmd_quick(int argc, char **argv)
{
	struct quick_opts o = { 0 };
	struct opt_group g = { quick_options, &o };
	struct opt_seen seen;
	char err[256], *pos[1], when[32], *report = NULL;
	size_t npos;
	json_t *doc = NULL, *results = json_array();
	mono_ns t0 = clock_mono();
	time_t now = time(NULL);
	struct tm tm;
	const char *bad;
	char port[16];
	int rc = EXIT_OK;

	if (opt_parse(argc, argv, &g, 1, 1, pos, 0, &npos, &seen, err, sizeof(err))) {
		json_decref(results);
		return usage_error("quick", "%s", err);
	}
	if (o.help) {
		printf("usage: engpass quick [options]\n\n"
		       "The whole-box profile in about a minute: cpu (chacha20-poly1305 and salsa2012 at 1400 B),\n"
		       "mem (bandwidth, latency curve), net (one TCP stream over loopback; 60 KiB requests one\n"
		       "at a time and two in flight over a 1 ms server delay), disk in the current directory (-T, -t, 4 KiB random\n"
		       "reads at QD32, 1 MiB sequential writes, the torrent pattern with and without a write\n"
		       "cache; at most 256 MiB of temp files), latency (audio and video, alone and beside a CPU hog)\n"
		       "and, as root, a small sandboxed swap ladder. Prints a summary table and findings,\n"
		       "stores the profile in the history and writes an HTML report.\n\noptions:\n");
		opt_help(stdout, quick_options);
		json_decref(results);
		return EXIT_OK;
	}
	if ((bad = bad_skip(o.skip))) {
		json_decref(results);
		return usage_error("quick", "option '--skip': '%s' is not one of cpu, mem, disk, net, latency, ladder",
				   bad);
	}
	/* A port for the loopback net step, away from iperf3's 5201. */
	snprintf(port, sizeof(port), "%d", 30000 + (int)(getpid() % 20000));
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", localtime_r(&now, &tm) ? &tm : &tm);
	if (!o.no_report)
		report = o.report ? xstrdup(o.report) : xasprintf("engpass-quick-%s.html", when);

	if (child_signals_install() < 0)
		fprintf(stderr, "engpass quick: cannot catch signals; a signal stops quick at once\n");
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		const struct quick_step *s = &steps[i];
		const struct bench *b = bench_find(s->bench);
		char *cargv[32], *out = NULL;
		size_t n = 0, k;
		json_t *child, *r;
		json_error_t jerr;
		pid_t server = -1;
		int st;

		if (skipped(o.skip, s->group) || (o.no_net && !strcmp(s->group, "net")))
			continue;
		if (child_stop_signal()) {
			fprintf(stderr, "engpass quick: stopped by signal %d before %s\n", child_stop_signal(), s->group);
			rc = 128 + child_stop_signal();
			break;
		}
		if (!b || b->unsupported_reason) {
			json_array_append_new(results, status_result(s, "skipped", b ? b->unsupported_reason
										    : "not in this build"));
			continue;
		}
		if (s->needs_root && geteuid() != 0) {
			json_array_append_new(results, status_result(s, "skipped", "needs root (a memory cgroup and a swap file)"));
			continue;
		}
		cargv[n++] = (char *)"engpass";
		cargv[n++] = (char *)s->bench;
		for (k = 0; s->args[k]; k++)
			cargv[n++] = (char *)(strcmp(s->args[k], "@PORT") ? s->args[k] : port);
		cargv[n++] = (char *)"--json";
		cargv[n++] = (char *)"--quiet";
		cargv[n++] = (char *)"--no-history";
		cargv[n] = NULL;
		if (!o.json)
			fprintf(stderr, "engpass quick: %s (%s)\n", s->group, s->why);
		if (s->net_server) {
			server = start_net_server(port, s->delay);
			usleep(300000);	/* the client also retries until --connect-timeout */
		}
		st = child_run_engpass(cargv, &out);
		if (server > 0) {
			stop_net_server(server);
			server = -1;
		}
		child = out ? json_loads(out, 0, &jerr) : NULL;
		free(out);
		if (st >= 128) {
			json_decref(child);
			fprintf(stderr, "engpass quick: stopped by signal %d during %s\n", st - 128, s->group);
			rc = st;
			break;
		}
		if (!json_is_array(json_object_get(child, "results"))) {
			char *why = xasprintf("'engpass %s' exited %d without a result", s->bench, st);

			json_array_append_new(results, status_result(s, "failed", why));
			free(why);
			json_decref(child);
			continue;
		}
		if (!doc) {
			doc = json_deep_copy(child);
			json_object_del(doc, "results");
		}
		json_array_foreach(json_object_get(child, "results"), k, r) {
			if (s->label) {
				char *step = xasprintf("%s %s", json_string_value(json_object_get(r, "step")) ?: "?",
						       s->label);

				json_object_set_new(r, "step", json_string(step));
				free(step);
			}
			json_array_append(results, r);
		}
		json_decref(child);
	}
	if (!doc) {
		/* Nothing ran as a child: a document of skipped rows still tells why. */
		doc = json_pack("{s:s, s:{s:s, s:s}, s:s, s:I}", "schema", "engpass/1", "tool", "name", "engpass",
				"version", ENGPASS_VERSION, "time", "", "time_unix_ns", (json_int_t)clock_wall_ns());
	}
	json_object_set_new(doc, "command", json_string("engpass quick"));
	json_object_set_new(doc, "results", results);

	if (o.json) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		size_t i;
		json_t *r;

		printf("%-8s %-40s %-34s %s\n", "bench", "step", "headline", "bound by");
		json_array_foreach(results, i, r) {
			const char *st = json_string_value(json_object_get(r, "status"));
			const char *res = json_string_value(json_object_get(json_object_get(r, "verdict"), "resource"));
			char head[64];

			headline(r, head, sizeof(head));
			printf("%-8.8s %-40.40s ", json_string_value(json_object_get(r, "bench")),
			       json_string_value(json_object_get(r, "step")));
			if (strcmp(st, "ok"))
				printf("%s: %s\n", st, json_string_value(json_object_get(r, "reason")) ?: "");
			else
				printf("%-34.34s %s\n", head, res ? res : "");
		}
		findings(stdout, results);
		scaled(stdout, results);
		printf("\n(%.0f s; every figure with its method: engpass show RUN, or the report)\n",
		       elapsed_s(t0, clock_mono()));
	}

	{
		char *text = json_dumps(doc, JSON_COMPACT);
		struct run *run = NULL;

		if (text && run_from_json(text, &run, err, sizeof(err)) == 0) {
			if (!o.no_history) {
				char *path = o.db ? xstrdup(o.db) : history_default_path();
				struct history *h;

				if (path && history_open(&h, path, true, err, sizeof(err)) == 0) {
					int64_t id;

					if (history_store(h, run, text, &id, err, sizeof(err)) == 0 && !o.json)
						printf("stored as run %lld (engpass show %lld)\n", (long long)id,
						       (long long)id);
					else if (!o.json)
						fprintf(stderr, "engpass quick: history not stored: %s\n", err);
					history_close(h);
				} else if (path) {
					fprintf(stderr, "engpass quick: history not stored in '%s': %s\n", path, err);
				}
				free(path);
			}
			if (o.prom) {
				int r = prom_write(o.prom, run);

				if (r < 0) {
					fprintf(stderr, "engpass quick: cannot write '%s': %s\n", o.prom, strerror(-r));
					rc = rc ? rc : EXIT_MEASURE_FAILED;
				}
			}
			run_free(run);
		}
		free(text);
	}
	if (report) {
		const char *stage;
		int r = report_write_file(report, doc, "engpass quick", &stage);

		if (r < 0) {
			fprintf(stderr, "engpass quick: cannot write the report '%s' (%s): %s\n", report, stage,
				strerror(-r));
			rc = rc ? rc : EXIT_MEASURE_FAILED;
		} else if (!o.json) {
			printf("report: %s\n", report);
		}
	}
	free(report);
	json_decref(doc);
	child_signals_restore();
	return rc;
}

#else

int cmd_quick(int argc, char **argv)
{
	(void)argc, (void)argv, (void)steps, (void)quick_options, (void)skipped, (void)bad_skip;
	(void)start_net_server, (void)stop_net_server;
	printf("engpass quick: skipped: built without jansson, which it needs to read each step's result\n");
	return EXIT_OK;
}

#endif
