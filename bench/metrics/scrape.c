/*
 * Scrape cost of --metrics: a per-CPU hash of N keys (default 10,000;
 * key (comm, pid), a count() value on every CPU), as sonde's maps hold
 * them, served by sonde's metrics code (runtime/metrics.c, metrics_http.c)
 * and scraped over HTTP by curl. Prints two medians of 7:
 *   render   reading and formatting the map (the time the event loop is
 *            busy with a scrape)
 *   scrape   curl's time_total for GET /metrics on loopback
 * and the size of the answer.   scrape [N]
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/types.h"
#include "runtime/mapdump.h"
#include "runtime/metrics.h"
#include "runtime/output.h"
#include "util/arena.h"
#include "util/strbuf.h"

#define RUNS 7

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static struct metrics_map mm;

static int render(void *ctx, struct strbuf *sb)
{
	return metrics_render(sb, &mm, 1, NULL);
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000;
	struct arena a;
	arena_init(&a);
	const struct type *parts[2] = { type_new(&a, TY_STRING, 16),
					 type_new(&a, TY_INT, 8) };
	const struct type *kt = type_tuple(&a, parts, 2);
	struct type *vt = type_new(&a, TY_COUNT, 8);
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "bench_scrape",
				kt->size, 8, n, NULL);
	if (fd < 0 || ncpu < 0) {
		fprintf(stderr, "scrape: cannot create the map (root?)\n");
		return 1;
	}
	uint8_t *key = calloc(1, kt->size);
	uint64_t *vals = calloc((size_t)ncpu, 8);
	for (uint32_t i = 0; i < n; i++) {
		memset(key, 0, kt->size);
		snprintf((char *)key + kt->fields[0].offset, 16, "proc%u",
			 i % 97);
		uint64_t pid = 1000 + i;
		memcpy(key + kt->fields[1].offset, &pid, 8);
		for (int c = 0; c < ncpu; c++)
			vals[c] = i + (uint64_t)c;
		if (bpf_map_update_elem(fd, key, vals, BPF_ANY)) {
			fprintf(stderr, "scrape: cannot fill the map\n");
			return 1;
		}
	}
	struct mapdump_map m = { .name = "@by_proc", .fd = fd, .key = kt,
				 .value = vt, .percpu = true };
	mm.m = &m;

	double t[RUNS];
	size_t bytes = 0;
	for (int r = 0; r < RUNS; r++) {
		struct strbuf sb = STRBUF_INIT;
		double t0 = now();
		metrics_render(&sb, &mm, 1, NULL);
		t[r] = (now() - t0) * 1e3;
		bytes = sb.len;
		sb_free(&sb);
	}
	qsort(t, RUNS, sizeof(t[0]), cmp);
	printf("render %.2f ms %zu bytes\n", t[RUNS / 2], bytes);

	/* the same over HTTP: the server polled as sonde's loop does */
	char *msg = NULL;
	size_t msglen = 0;
	FILE *err = open_memstream(&msg, &msglen);
	struct metrics_server *s;
	if (metrics_listen(&s, "127.0.0.1:0", render, NULL, false, err)) {
		fclose(err);
		fprintf(stderr, "%s", msg);
		return 1;
	}
	fclose(err);
	char url[128];
	if (sscanf(msg, "sonde: metrics at %127s", url) != 1)
		return 1;
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };
	epoll_ctl(ep, EPOLL_CTL_ADD, metrics_poll_fd(s), &ev);
	int pipefd[2];
	if (pipe(pipefd))
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		char cmd[512];
		snprintf(cmd, sizeof(cmd),
			 "for i in 1 2 3 4 5 6 7; do curl -s -o /dev/null "
			 "-w '%%{time_total}\\n' %s; done", url);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	int status;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		struct epoll_event got;
		if (epoll_wait(ep, &got, 1, 10) > 0)
			metrics_serve(s);
	}
	FILE *f = fdopen(pipefd[0], "r");
	int k = 0;
	while (k < RUNS && fscanf(f, "%lf", &t[k]) == 1)
		t[k++] *= 1e3;
	fclose(f);
	metrics_close(s);
	if (k < RUNS) {
		fprintf(stderr, "scrape: curl failed\n");
		return 1;
	}
	qsort(t, RUNS, sizeof(t[0]), cmp);
	printf("scrape %.2f ms\n", t[RUNS / 2]);
	free(msg);
	free(key);
	free(vals);
	close(fd);
	arena_release(&a);
	return 0;
}
