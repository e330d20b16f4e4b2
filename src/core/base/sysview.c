/* SPDX-License-Identifier: MIT */
/* The system view: see sysview.h. */
#include "core/base/sysview.h"

/* One copy (an inline one was kept twice by LTO in the router build: docs/embedded.md). */
void sysview_init(struct sysview *v)
{
	memset(v, 0, sizeof(*v));
	v->duration_s = NAN;
	v->ncpu = -1;
	v->cpu_busy_pct = v->cpu_iowait_pct = v->cpu_softirq_pct = v->cpu_steal_pct = NAN;
	v->busiest_cpu = -1;
	v->busiest_cpu_busy_pct = v->busiest_cpu_softirq_pct = v->peak_cpu_busy_pct = NAN;
	v->run_queue_avg = NAN;
	v->disk_util_pct = v->disk_reads_per_s = v->disk_writes_per_s = NAN;
	v->disk_read_bytes_per_s = v->disk_write_bytes_per_s = NAN;
	v->disk_avg_write_request_bytes = v->disk_avg_wait_ms = NAN;
	v->swap_in_pages_per_s = v->swap_out_pages_per_s = v->major_faults_per_s = NAN;
	v->mem_available_min_bytes = NAN;
	v->psi_cpu_some_pct = v->psi_mem_some_pct = v->psi_mem_full_pct = NAN;
	v->psi_io_some_pct = v->psi_io_full_pct = NAN;
	v->net_rx_bytes_per_s = v->net_tx_bytes_per_s = NAN;
	v->proc_cpu_pct = NAN;
	v->disk_queue_avg = NAN;
	v->work_cpu_pct = v->work_wait_pct = v->work_thread_cpu_pct = v->work_thread_wait_pct = NAN;
	v->work_thread_cpu = -1;
	v->others_cpu_pct = v->others_on_work_cpus_pct = NAN;
	v->tcp_bytes = v->tcp_work_bytes = NAN;
	v->udp_rcvbuf_errors = v->udp_in_errors = NAN;
	v->cg_cpu_usage_pct = v->cg_cpu_throttled_pct = v->cg_cpu_throttled_s = NAN;
	v->cg_io_read_bytes_per_s = v->cg_io_write_bytes_per_s = NAN;
	v->cg_io_reads_per_s = v->cg_io_writes_per_s = NAN;
	v->cg_mem_peak_bytes = v->cg_mem_limit_hits = v->cg_mem_high_events = v->cg_mem_oom_events = NAN;
	v->qdisc_bytes_per_s = v->qdisc_drops = v->qdisc_overlimits = v->qdisc_backlog_max_bytes = NAN;
	v->qdisc_in_bytes_per_s = v->qdisc_in_drops = v->qdisc_in_overlimits = v->qdisc_in_backlog_max_bytes = NAN;
	v->temp_sensors = v->throttle_cpus = v->cooling_devices = -1;
	for (int i = 0; i < SYSVIEW_TEMPS; i++)
		v->temps[i].start_c = v->temps[i].end_c = v->temps[i].max_c = v->temps[i].trip_c = NAN;
	v->temp_hit.start_c = v->temp_hit.end_c = v->temp_hit.max_c = v->temp_hit.trip_c = NAN;
	v->throttle_core_events = v->throttle_package_events = NAN;
	v->cooling_state_max = v->cooling_state_limit = NAN;
	v->budget.thread_s = v->budget.idle_s = v->budget.rate_hz = v->budget.quota_s = NAN;
	v->budget.major_faults = v->budget.read_bytes = v->budget.write_bytes = NAN;
	v->budget.delayacct = -1;
	v->budget.delay_blkio_s = v->budget.delay_swapin_s = v->budget.delay_thrashing_s = NAN;
	v->budget.delay_reclaim_s = NAN;
}
