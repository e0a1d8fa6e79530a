/*
 * libFuzzer target: the printers of kernel data (src/runtime: events,
 * fmt, value_fmt, mapdump, output_text, output_json, hist, tseries,
 * metrics) fed arbitrary bytes laid out as a real program's types.
 *
 * Input: a program's text, a NUL, then chunks of payload, each
 * [tag][len, 2 bytes LE][len bytes]:
 *   tag % 3 == 0  a ring buffer record (event_hdr + payload) handed to
 *                 events_handle in text and in JSON: printf, print,
 *                 time, join, warnf/errorf, helper errors, exit, and
 *                 print/clear/zero of maps;
 *   tag % 3 == 1  a map entry: the key's bytes then the value's (one
 *                 slot, 8-byte aligned, per possible CPU for per-CPU
 *                 maps), written into user map (tag / 3) % n, a real BPF
 *                 map created for the program;
 *   tag % 3 == 2  every map printed now, as on SIGUSR1, text and JSON.
 * At the end every map is printed as at exit (text and JSON) and
 * rendered for Prometheus (metrics_render). The program is compiled
 * once (driver/frontend.c's passes, as main runs them) and kept, with its
 * maps, for the inputs that carry the same text; a program that does
 * not compile is skipped. cat() records are left out: their formatting
 * is printf's, and the file they name would be opened (a FIFO or
 * /proc/kmsg would block the run).
 *
 * Any crash, sanitizer report, leak or hang is a bug, and so is an
 * internal error reported for a record that has the size its event says
 * (the printers must take any bytes of the right size).
 *
 * Seeds: FUZZ_PRINTERS_SEEDS=DIR fuzz_printers PROGRAM.bt... compiles
 * each program and writes DIR/NAME: its text, a record of each of its
 * events and an entry of each of its maps (fuzz.mk does this for
 * tests/fuzz/printers/ *.bt).
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE /* open_memstream, memmem */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/cli.h"
#include "driver/frontend.h"
#include "lang/config.h"
#include "model/compiled.h"
#include "model/limits.h"
#include "runtime/events.h"
#include "runtime/fmt.h"
#include "runtime/loader.h"
#include "runtime/mapdump.h"
#include "runtime/metrics.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A compiled program and its maps, kept for the inputs that carry it. */
struct prog {
	char *text;
	size_t len;
	struct src_file file; /* spans (warnf's place) point here */
	struct job job;       /* the arena and what was compiled */
	struct compiled c;    /* a copy of job.compiled */
	int *map_fds;
	struct mapdump_map *maps; /* the user maps */
	size_t nmaps;
};

#define KEPT 16
static struct prog *kept[KEPT];
static unsigned kept_next;
static int ncpus;
static FILE *devnull;
static struct limits initial_limits;

static void prog_free(struct prog *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; p->map_fds && i < p->c.nmaps; i++)
		if (p->map_fds[i] >= 0 && !p->c.maps[i].shared)
			close(p->map_fds[i]);
	free(p->map_fds);
	free(p->maps);
	job_release(&p->job);
	free(p->text);
	free(p);
}

/* The program's maps, as the loader creates them (but the ring buffer,
 * which nothing here reads); a map the kernel refuses stays -1, and
 * printing it is an error the printers report. So does a map of more
 * than MAX_MAP_BYTES: a script can declare hash(100000000), which the
 * kernel would preallocate. */
#define MAX_MAP_BYTES (64ull << 20)
static void create_maps(struct prog *p)
{
	p->map_fds = malloc(sizeof(int) * (p->c.nmaps + 1));
	if (!p->map_fds)
		abort();
	for (uint32_t i = 0; i < p->c.nmaps; i++) {
		const struct cmap *m = &p->c.maps[i];
		p->map_fds[i] = -1;
		uint64_t slot = m->percpu ? (uint64_t)ncpus *
						  ((m->value_size + 7) & ~7u) :
					    m->value_size;
		if (m->shared || m->type == BPF_MAP_TYPE_RINGBUF ||
		    (uint64_t)m->max_entries * (m->key_size + slot) >
			    MAX_MAP_BYTES)
			continue;
		LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = m->flags);
		p->map_fds[i] = bpf_map_create(m->type, NULL, m->key_size,
					       m->value_size, m->max_entries,
					       &o);
	}
	for (uint32_t i = 0; i < p->c.nmaps; i++)
		if (p->c.maps[i].shared && p->c.maps[i].host < p->c.nmaps)
			p->map_fds[i] = p->map_fds[p->c.maps[i].host];
	struct loader l = { &p->c, p->map_fds, NULL };
	p->maps = loader_user_maps(&l, &p->nmaps);
	if (!p->maps)
		abort();
}

static struct prog *compile(const char *text, size_t len)
{
	struct prog *p = calloc(1, sizeof(*p));
	if (!p || !(p->text = malloc(len + 1)))
		abort();
	memcpy(p->text, text, len);
	p->text[len] = '\0';
	p->len = len;
	arena_init(&p->job.arena);
	p->file = (struct src_file){ "printers.bt", p->text, (uint32_t)len };
	struct options o;
	memset(&o, 0, sizeof(o));
	o.mode = MODE_CODEGEN; /* nothing attached */
	o.helper_check = 1;
	struct diag d;
	diag_init(&d, devnull);
	limits = initial_limits;
	if (frontend_run(&p->job, &o, &p->file, &d, FE_STOP_CODE) ||
	    d.nerrors || !p->job.have_compiled) {
		prog_free(p);
		return NULL;
	}
	p->c = p->job.compiled;
	create_maps(p);
	return p;
}

/* The kept program of this text, or it compiled (NULL: it does not). */
static struct prog *program(const char *text, size_t len)
{
	for (unsigned i = 0; i < KEPT; i++)
		if (kept[i] && kept[i]->len == len &&
		    !memcmp(kept[i]->text, text, len))
			return kept[i];
	struct prog *p = compile(text, len);
	if (p) {
		unsigned k = kept_next++ % KEPT;
		prog_free(kept[k]);
		kept[k] = p;
	}
	return p;
}

/* What the runtime's resolver gives: a name for some addresses, none
 * for others (the fallbacks), the probe names, a cgroup path. */
static int sym(void *ctx, uint64_t addr, int32_t pid, bool offset,
	       struct strbuf *sb)
{
	if (addr & 1)
		return -ENOENT;
	sb_printf(sb, pid < 0 ? "kfunc_%llx" : "ufunc_%llx",
		  (unsigned long long)(addr >> 4));
	if (offset && addr & 2)
		sb_append(sb, "+0x2");
	return 0;
}

static int cgroup_path(void *ctx, uint64_t id, const char *glob,
		       struct strbuf *sb)
{
	if (id & 1)
		return -ENOENT;
	sb_printf(sb, "unified:/fuzz/%llu", (unsigned long long)id);
	return 0;
}

struct printer {
	struct out o;
	struct events e;
};

static void printer_init(struct printer *pr, const char *format,
			 const struct prog *p, struct out_resolver *res)
{
	/* out_init sets what it knows; the rest (no_warnings) is zero, as
	 * in run.c's zeroed struct run */
	memset(pr, 0, sizeof(*pr));
	if (out_init(&pr->o, format, devnull, res))
		abort();
	pr->o.err = devnull;
	pr->e.c = &p->c;
	pr->e.map_fds = p->map_fds;
	pr->e.o = &pr->o;
	pr->e.err = devnull;
}

static void record(struct printer pr[2], const struct prog *p,
		   const uint8_t *bytes, size_t len)
{
	struct event_hdr h;
	if (len >= sizeof(h)) {
		memcpy(&h, bytes, sizeof(h));
		if (h.id < p->c.nevents && p->c.events[h.id].kind == EV_CAT)
			return; /* see the top */
	}
	/* A ring buffer record is 8-byte aligned (the kernel's and
	 * libbpf's layout); a buffer of its size, so that ASan sees any
	 * read past it. */
	uint8_t *r = malloc(len ? len : 1);
	if (!r)
		abort();
	memcpy(r, bytes, len);
	for (int k = 0; k < 2; k++) {
		pr[k].e.nbad = 0;
		events_handle(&pr[k].e, r, len);
		/* a record of its event's size is well-formed */
		if (pr[k].e.nbad && len >= sizeof(h) && h.id < p->c.nevents &&
		    len - sizeof(h) == p->c.events[h.id].size &&
		    p->c.events[h.id].kind != EV_SYSTEM) {
			fprintf(stderr, "fuzz_printers: event %u of %zu bytes "
					"reported malformed\nprogram:\n%s\n",
				h.id, len, p->text);
			abort();
		}
	}
	free(r);
}

/* The bytes of one entry of map m: key, then value (per CPU). */
static uint32_t value_bytes(const struct cmap *m)
{
	return m->percpu ? (uint32_t)ncpus * ((m->value_size + 7) & ~7u) :
			   m->value_size;
}

static void map_entry(const struct prog *p, unsigned which, const uint8_t *b,
		      size_t len)
{
	if (!p->nmaps)
		return;
	const struct mapdump_map *mm = &p->maps[which % p->nmaps];
	const struct cmap *m = NULL;
	for (uint32_t i = 0; i < p->c.nmaps; i++)
		if (p->c.maps[i].is_user && !strcmp(p->c.maps[i].name, mm->name))
			m = &p->c.maps[i];
	if (!m || mm->fd < 0)
		return;
	uint32_t vsize = value_bytes(m);
	uint8_t *kv = calloc(1, m->key_size + vsize + 8);
	if (!kv)
		abort();
	memcpy(kv, b, len < m->key_size + vsize ? len : m->key_size + vsize);
	if (m->shared) /* its one entry, at its slot in the host */
		memcpy(kv, &m->slot_key, sizeof(m->slot_key));
	bpf_map_update_elem(mm->fd, kv, kv + m->key_size, BPF_ANY);
	free(kv);
}

static void print_all(struct printer pr[2], const struct prog *p, bool exit)
{
	for (int k = 0; k < 2; k++) {
		if (exit) {
			out_exit_begin(&pr[k].o);
			mapdump_print_exit(&pr[k].o, p->maps, p->nmaps);
		} else {
			mapdump_print_all(&pr[k].o, p->maps, p->nmaps);
		}
	}
}

static void metrics(const struct prog *p, const struct out_resolver *res)
{
	struct metrics_map *mm = calloc(p->nmaps + 1, sizeof(*mm));
	if (!mm)
		abort();
	for (size_t i = 0; i < p->nmaps; i++)
		mm[i].m = &p->maps[i];
	struct strbuf sb = STRBUF_INIT;
	metrics_render(&sb, mm, p->nmaps, res);
	sb_free(&sb);
	free(mm);
}

static void run(const struct prog *p, const uint8_t *b, size_t len)
{
	struct out_resolver res = { .sym = sym, .cgroup_path = cgroup_path,
				    .probe_names = p->c.probe_names,
				    .nprobes = p->c.nprobe_names };
	struct printer pr[2];
	printer_init(&pr[0], "text", p, &res);
	printer_init(&pr[1], "json", p, &res);
	/* each input starts from empty maps */
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].fd >= 0)
			mapdump_clear(&p->maps[i]);
	while (len >= 3) {
		uint8_t tag = b[0];
		size_t n = (size_t)b[1] | (size_t)b[2] << 8;
		b += 3, len -= 3;
		if (n > len)
			n = len;
		switch (tag % 3) {
		case 0:
			record(pr, p, b, n);
			break;
		case 1:
			map_entry(p, tag / 3, b, n);
			break;
		case 2:
			print_all(pr, p, false);
			break;
		}
		b += n, len -= n;
	}
	print_all(pr, p, true);
	metrics(p, &res);
	events_fini(&pr[0].e);
	events_fini(&pr[1].e);
}

/* FUZZ_PRINTERS_SEEDS=DIR: one seed per program named on the command
 * line (see the top). */
static void write_seeds(const char *dir, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		FILE *in = fopen(argv[i], "r");
		char *text = NULL;
		size_t cap = 0;
		ssize_t len = in ? getdelim(&text, &cap, '\0', in) : -1;
		if (in)
			fclose(in);
		struct prog *p = len > 0 ? compile(text, (size_t)len) : NULL;
		if (!p) {
			fprintf(stderr, "fuzz_printers: %s does not compile\n",
				argv[i]);
			exit(1);
		}
		struct strbuf sb = STRBUF_INIT;
		sb_appendn(&sb, text, (size_t)len + 1); /* and its NUL */
		uint8_t fill = 1;
		/* an entry of each user map, small numbers in every byte */
		for (size_t k = 0; k < p->nmaps; k++) {
			const struct cmap *m = NULL;
			for (uint32_t j = 0; j < p->c.nmaps; j++)
				if (p->c.maps[j].is_user &&
				    !strcmp(p->c.maps[j].name, p->maps[k].name))
					m = &p->c.maps[j];
			uint32_t n = m->key_size + value_bytes(m);
			uint8_t hdr[3] = { (uint8_t)(3 * k + 1), (uint8_t)n,
					   (uint8_t)(n >> 8) };
			sb_appendn(&sb, (const char *)hdr, 3);
			for (uint32_t j = 0; j < n; j++, fill++)
				sb_appendn(&sb, (const char *)&(uint8_t){
						   j % 8 ? 0 : fill % 7 },
					   1);
		}
		/* a record of each event, its text bytes printable */
		for (uint32_t e = 0; e < p->c.nevents; e++) {
			uint32_t n = (uint32_t)sizeof(struct event_hdr) +
				     p->c.events[e].size;
			uint8_t hdr[3] = { 0, (uint8_t)n, (uint8_t)(n >> 8) };
			sb_appendn(&sb, (const char *)hdr, 3);
			struct event_hdr h = { e, 0 };
			sb_appendn(&sb, (const char *)&h, sizeof(h));
			for (uint32_t j = 0; j < p->c.events[e].size; j++)
				sb_appendn(&sb, (const char *)&(uint8_t){
						   (uint8_t)('a' + j % 26) },
					   1);
		}
		sb_appendn(&sb, "\002\000\000", 3);
		const char *base = strrchr(argv[i], '/');
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir,
			 base ? base + 1 : argv[i]);
		FILE *out = fopen(path, "w");
		if (!out || fwrite(sb.buf, 1, sb.len, out) != sb.len ||
		    fclose(out)) {
			fprintf(stderr, "fuzz_printers: cannot write %s\n", path);
			exit(1);
		}
		sb_free(&sb);
		free(text);
		prog_free(p);
	}
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	ncpus = libbpf_num_possible_cpus();
	if (!devnull || ncpus <= 0)
		abort();
	setenv("BPFTRACE_MAX_PROBES", "16", 0);
	if (limits_from_env(stderr) < 0 || config_from_env(stderr) < 0)
		abort();
	initial_limits = limits;
	loader_libbpf_quiet(false, devnull);
	const char *dir = getenv("FUZZ_PRINTERS_SEEDS");
	if (dir)
		write_seeds(dir, *argc, *argv);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	struct prog *p = program((const char *)data, tlen);
	if (!p)
		return 0;
	limits = initial_limits;
	if (nul)
		run(p, nul + 1, size - tlen - 1);
	else
		run(p, NULL, 0);
	return 0;
}
