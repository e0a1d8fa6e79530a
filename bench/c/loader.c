/* One libbpf loader for every C baseline.
 *
 *   loader [-q] [-c CMD] OBJ.bpf.o
 *
 * Loads OBJ, attaches its programs, prints "Attaching N probes..." (as
 * bpftrace does, so the harness waits for the same line), then runs until
 * SIGINT/SIGTERM, an EV_EXIT record, or the end of CMD. Conventions, by
 * program name:
 *   begin*            run once after attach (BPF_PROG_TEST_RUN), like BEGIN
 *   end*              run once before exit, like END
 *   interval_ms_N     SEC("perf_event"), attached to a cpu-clock event of
 *                     period N ms on CPU 0, like interval:ms:N
 *   anything else     libbpf's auto-attach (tracepoint/..., raw_tp/...)
 * A ring buffer map named "events" carries bench.h records, formatted to
 * stdout. At exit each other map is summarised on stderr (entries, sum of
 * its u64 values over all CPUs) unless -q. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench.h"

static volatile sig_atomic_t stop;
static unsigned long long n_events;

static void on_signal(int sig) { (void)sig; stop = 1; }

static int on_event(void *ctx, void *data, size_t len)
{
	const struct ev_hdr *h = data;
	(void)ctx;
	n_events++;
	switch (h->type) {
	case EV_EXIT:
		stop = 1;
		break;
	case EV_PRINT_PID_COMM: {
		const struct ev_print_pid_comm *e = data;
		if (len < sizeof(*e))
			break;
		printf("%u %.16s %llu\n", e->pid, e->comm, e->ns);
		break;
	}
	case EV_PRINT_STR: {
		const struct ev_print_str *e = data;
		if (len >= sizeof(*e))
			printf("%.16s\n", e->msg);
		break;
	}
	}
	return 0;
}

static int run_once(struct bpf_program *p)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int err = bpf_prog_test_run_opts(bpf_program__fd(p), &o);
	if (err)
		fprintf(stderr, "loader: test run of %s: %s\n", bpf_program__name(p), strerror(-err));
	return err;
}

static int starts(const char *s, const char *pfx) { return !strncmp(s, pfx, strlen(pfx)); }

static struct bpf_link *attach_interval(struct bpf_program *p, long ms, int *pfd)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(a),
		.sample_period = ms * 1000000ULL,
	};
	*pfd = syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (*pfd < 0) {
		fprintf(stderr, "loader: perf_event_open: %s\n", strerror(errno));
		return NULL;
	}
	return bpf_program__attach_perf_event(p, *pfd);
}

static void summarise(struct bpf_object *obj)
{
	struct bpf_map *m;
	int ncpu = libbpf_num_possible_cpus();
	bpf_object__for_each_map(m, obj) {
		enum bpf_map_type t = bpf_map__type(m);
		if (t == BPF_MAP_TYPE_RINGBUF || bpf_map__value_size(m) != 8 ||
		    bpf_map__key_size(m) > 64)
			continue;
		int percpu = t == BPF_MAP_TYPE_PERCPU_ARRAY || t == BPF_MAP_TYPE_PERCPU_HASH;
		int n = percpu ? ncpu : 1, fd = bpf_map__fd(m);
		unsigned long long vals[n], sum = 0, entries = 0;
		char key[64], next[64];
		void *prev = NULL;
		while (!bpf_map_get_next_key(fd, prev, next)) {
			memcpy(key, next, sizeof(key));
			prev = key;
			if (bpf_map_lookup_elem(fd, key, vals))
				continue;
			unsigned long long s = 0;
			for (int i = 0; i < n; i++)
				s += vals[i];
			if (t != BPF_MAP_TYPE_ARRAY && t != BPF_MAP_TYPE_PERCPU_ARRAY)
				entries++;
			else if (s)
				entries++;
			sum += s;
		}
		fprintf(stderr, "map %s: %llu entries, sum %llu\n", bpf_map__name(m), entries, sum);
	}
}

int main(int argc, char **argv)
{
	const char *cmd = NULL;
	int quiet = 0, opt, err = 0, nprobes = 0, npfd = 0, pfds[16];
	struct bpf_link *links[64];
	int nlinks = 0;
	struct ring_buffer *rb = NULL;
	struct bpf_program *p;
	struct bpf_map *m;
	pid_t child = 0;

	while ((opt = getopt(argc, argv, "qc:")) != -1) {
		if (opt == 'q') quiet = 1;
		else if (opt == 'c') cmd = optarg;
		else goto usage;
	}
	if (optind != argc - 1) {
usage:
		fprintf(stderr, "usage: loader [-q] [-c CMD] OBJ.bpf.o\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);

	struct bpf_object *obj = bpf_object__open_file(argv[optind], NULL);
	if (!obj) {
		fprintf(stderr, "loader: open %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		const char *n = bpf_program__name(p);
		if (starts(n, "begin") || starts(n, "end") || starts(n, "interval_ms_"))
			bpf_program__set_autoattach(p, false);
	}
	if ((err = bpf_object__load(obj))) {
		fprintf(stderr, "loader: load: %s\n", strerror(-err));
		goto out;
	}
	bpf_object__for_each_program(p, obj) {
		const char *n = bpf_program__name(p);
		struct bpf_link *l = NULL;
		if (starts(n, "begin") || starts(n, "end")) {
			nprobes++;
			continue;
		}
		if (starts(n, "interval_ms_") && npfd < 16)
			l = attach_interval(p, atol(n + 12), &pfds[npfd++]);
		else
			l = bpf_program__attach(p);
		if (!l) {
			err = -errno;
			fprintf(stderr, "loader: attach %s: %s\n", n, strerror(errno));
			goto out;
		}
		if (nlinks < 64)
			links[nlinks++] = l;
		nprobes++;
	}
	if ((m = bpf_object__find_map_by_name(obj, "events"))) {
		rb = ring_buffer__new(bpf_map__fd(m), on_event, NULL, NULL);
		if (!rb) {
			err = -errno;
			goto out;
		}
	}
	printf("Attaching %d probe%s...\n", nprobes, nprobes == 1 ? "" : "s");
	fflush(stdout);

	bpf_object__for_each_program(p, obj)
		if (starts(bpf_program__name(p), "begin"))
			run_once(p);
	if (cmd) {
		child = fork();
		if (child == 0) {
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
	}
	while (!stop) {
		if (rb)
			ring_buffer__poll(rb, 100);
		else
			usleep(100000);
		if (child > 0 && waitpid(child, NULL, WNOHANG) == child)
			break;
	}
	bpf_object__for_each_program(p, obj)
		if (starts(bpf_program__name(p), "end"))
			run_once(p);
	if (rb)
		ring_buffer__consume(rb);
	fflush(stdout);
	if (!quiet) {
		summarise(obj);
		fprintf(stderr, "events %llu\n", n_events);
	}
out:
	ring_buffer__free(rb);
	for (int i = nlinks - 1; i >= 0; i--)
		bpf_link__destroy(links[i]);
	for (int i = 0; i < npfd; i++)
		if (pfds[i] >= 0)
			close(pfds[i]);
	bpf_object__close(obj);
	return err ? 1 : 0;
}
