#include "runtime/mmap_events.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "runtime/usyms.h"
#include "runtime/uwtables.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define PAGES_PER_CPU 64

/* A record read, kept until the read of every CPU's buffer is done. */
struct held {
	uint64_t time, seq;
	struct perf_event_header *h;
};

struct mmap_events {
	struct usyms *u;
	int map_fd; /* the PERF_EVENT_ARRAY libbpf keeps the events in */
	struct perf_buffer *pb;
	VEC(struct held) held;
	/* the unwind tables fed too, or NULL */
	struct uwtables *uwt;
	bool (*want)(void *ctx, int32_t pid);
	void *want_ctx;
};

struct rec_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct rec_comm {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct rec_fork { /* and PERF_RECORD_EXIT */
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

static bool feeds(const struct mmap_events *m, uint32_t pid)
{
	return m->uwt && m->want(m->want_ctx, (int32_t)pid);
}

static void apply(struct mmap_events *m, const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		const struct rec_mmap2 *r = (const void *)h;
		size_t max = h->size - sizeof(*r);
		if (!max || !memchr(r->filename, '\0', max))
			break;
		usyms_add_mapping(m->u, (int32_t)r->pid, r->addr, r->len,
				  r->pgoff, makedev(r->maj, r->min), r->ino,
				  r->filename);
		if ((r->prot & PROT_EXEC) && feeds(m, r->pid))
			uwt_on_mmap(m->uwt, (pid_t)r->pid, r->addr, r->len,
				    r->pgoff, r->filename);
		break;
	}
	case PERF_RECORD_COMM:
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			const struct rec_comm *r = (const void *)h;
			if (r->pid != r->tid)
				break;
			usyms_exec(m->u, (int32_t)r->pid);
			if (feeds(m, r->pid))
				uwt_on_exec(m->uwt, (pid_t)r->pid);
		}
		break;
	case PERF_RECORD_FORK: {
		const struct rec_fork *r = (const void *)h;
		if (r->pid == r->ppid) /* a thread, not a process */
			break;
		usyms_fork(m->u, (int32_t)r->ppid, (int32_t)r->pid);
		if (feeds(m, r->pid))
			uwt_on_fork(m->uwt, (pid_t)r->ppid, (pid_t)r->pid);
		break;
	}
	case PERF_RECORD_EXIT: {
		const struct rec_fork *r = (const void *)h;
		if (r->pid == r->tid && feeds(m, r->pid))
			uwt_on_exit(m->uwt, (pid_t)r->pid);
		break;
	}
	default:
		break;
	}
}

/* Each CPU's buffer is in order, not the buffers among themselves: an
 * old image's mappings (one CPU) applied after the new image's (another)
 * would name a just-exec'd process's frames in the old binary. The
 * records are applied in the order of their times (sample_id_all's
 * trailing PERF_SAMPLE_TIME) once all are read. */
static enum bpf_perf_event_ret on_record(void *ctx, int cpu,
					 struct perf_event_header *h)
{
	struct mmap_events *m = ctx;
	(void)cpu;
	if (h->size < sizeof(*h) + 8)
		return LIBBPF_PERF_EVENT_CONT;
	struct held r = { .seq = m->held.len, .h = xmalloc(h->size) };
	memcpy(r.h, h, h->size);
	memcpy(&r.time, (const char *)h + h->size - 8, 8);
	vec_push(&m->held, r);
	return LIBBPF_PERF_EVENT_CONT;
}

static int by_time(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int mmapev_open(struct mmap_events **out, struct usyms *u, bool prompt)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return ncpu < 0 ? ncpu : -ENODEV;
	struct mmap_events *m = xcalloc(1, sizeof(*m));
	m->u = u;
	m->map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "mmap_events",
				   4, 4, (uint32_t)ncpu, NULL);
	if (m->map_fd < 0) {
		int err = -errno;
		free(m);
		return err;
	}
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.comm = 1;
	attr.comm_exec = 1;
	attr.task = 1;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TIME;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	/* wakeup_events counts samples, and these records are none: they
	 * wake the reader only as the buffer half fills, unless a watermark
	 * of one byte says every record */
	if (prompt) {
		attr.watermark = 1;
		attr.wakeup_watermark = 1;
	}
	m->pb = perf_buffer__new_raw(m->map_fd, PAGES_PER_CPU, &attr,
				     on_record, m, NULL);
	if (!m->pb) {
		int err = -errno;
		close(m->map_fd);
		free(m);
		return err;
	}
	*out = m;
	return 0;
}

int mmapev_fd(const struct mmap_events *m)
{
	return perf_buffer__epoll_fd(m->pb);
}

void mmapev_consume(struct mmap_events *m)
{
	perf_buffer__consume(m->pb);
	if (!m->held.len)
		return;
	qsort(m->held.data, m->held.len, sizeof(*m->held.data), by_time);
	for (size_t i = 0; i < m->held.len; i++) {
		apply(m, m->held.data[i].h);
		free(m->held.data[i].h);
	}
	m->held.len = 0;
}

void mmapev_feed_uwtables(struct mmap_events *m, struct uwtables *u,
			  bool (*want)(void *ctx, int32_t pid), void *ctx)
{
	m->uwt = u;
	m->want = want;
	m->want_ctx = ctx;
}

void mmapev_close(struct mmap_events *m)
{
	if (!m)
		return;
	perf_buffer__free(m->pb);
	close(m->map_fd);
	for (size_t i = 0; i < m->held.len; i++)
		free(m->held.data[i].h);
	vec_free(&m->held);
	free(m);
}
