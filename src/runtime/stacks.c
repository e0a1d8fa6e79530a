#include "runtime/stacks.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/elfsym.h"
#include "kernel/srcline.h"
#include "model/compiled.h"
#include "model/stackids.h"
#include "model/types.h"
#include "model/unwind.h"
#include "runtime/loader.h"
#include "runtime/mmap_events.h"
#include "runtime/output.h"
#include "runtime/symbols.h"
#include "runtime/usyms.h"
#include "util/strbuf.h"

#define TICK_MS 100
#define FIRST_TICK_MS 10
/* With mapping records only processes older than sonde need the scans of
 * map keys, so they can be rare: each costs a syscall per map entry. */
#define TICK_MS_RECORDED 1000

static bool holds_user_addr(const struct type *t)
{
	static const enum type_kind user[] = { TY_USTACK, TY_USYM, TY_NONE };
	return type_holds(t, user);
}

static struct usyms *usyms_of(struct stacks *s)
{
	if (!s->usyms)
		s->usyms = usyms_new();
	return s->usyms;
}

struct usyms *stacks_usyms(struct stacks *s)
{
	return usyms_of(s);
}

void stacks_init(struct stacks *s, const struct compiled *c,
		 const int *map_fds)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->map_fds = map_fds;
	bool user = false;
	for (uint32_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].is_user && (holds_user_addr(c->maps[i].key) ||
					   holds_user_addr(c->maps[i].value)))
			s->scan = true;
	for (uint32_t i = 0; i < c->nevents; i++)
		for (uint32_t k = 0; k < c->events[i].nargs; k++)
			user |= holds_user_addr(c->events[i].args[k]);
	/* Without the records (no perf events), snapshots still work for
	 * processes that live long enough. */
	/* a program that unwinds from tables (model/unwind.h) needs each
	 * new mapping at once */
	bool prompt = false;
	for (uint32_t i = 0; i < c->nmaps; i++)
		prompt |= c->maps[i].name &&
			  !strcmp(c->maps[i].name, UW_PROCS_MAP);
	if ((user || s->scan) && mmapev_open(&s->mmaps, usyms_of(s), prompt))
		s->mmaps = NULL;
}

int stacks_poll_fd(const struct stacks *s)
{
	return s->mmaps ? mmapev_fd(s->mmaps) : -1;
}

void stacks_consume(struct stacks *s)
{
	if (s->mmaps)
		mmapev_consume(s->mmaps);
	s->behind = false;
}

void stacks_new_record(struct stacks *s)
{
	s->behind = s->mmaps != NULL;
}

/* Before a user address of the record being printed is named. */
static void catch_up(struct stacks *s)
{
	if (s->behind)
		stacks_consume(s);
}

void stacks_fini(struct stacks *s)
{
	mmapev_close(s->mmaps);
	s->mmaps = NULL;
	usyms_free(s->usyms);
	s->usyms = NULL;
}

static int sym(void *ctx, uint64_t addr, int32_t pid, bool offset,
	       struct strbuf *sb)
{
	if (pid < 0)
		return symbols_resolve(NULL, addr, pid, offset, sb);
	catch_up(ctx);
	return usyms_resolve(usyms_of(ctx), pid, addr, offset, sb, NULL);
}

static int module(void *ctx, uint64_t addr, int32_t pid, struct strbuf *sb)
{
	struct strbuf junk = STRBUF_INIT;
	const char *path = NULL;
	catch_up(ctx);
	usyms_resolve(usyms_of(ctx), pid, addr, false, &junk, &path);
	sb_free(&junk);
	if (!path)
		return -ENOENT;
	sb_append(sb, path);
	return 0;
}

static int mapped(void *ctx, uint64_t addr, int32_t pid)
{
	catch_up(ctx);
	return usyms_mapped(usyms_of(ctx), pid, addr);
}

static int file_offset(void *ctx, uint64_t addr, int32_t pid,
		       struct strbuf *sb)
{
	struct usyms_frame f;
	catch_up(ctx);
	usyms_frame(usyms_of(ctx), pid, addr, &f);
	if (!f.path || f.path[0] != '/')
		return -ENOENT; /* no file: [vdso], JIT code */
	const char *base = strrchr(f.path, '/') + 1;
	sb_printf(sb, "%s+%#" PRIx64, base, addr - f.start + f.pgoff);
	return 0;
}

static int lines(void *ctx, uint64_t addr, int32_t pid, bool leaf,
		 struct srcline *out, int max)
{
	struct usyms_frame f;
	if (pid < 0)
		return 0;
	catch_up(ctx);
	usyms_frame(usyms_of(ctx), pid, addr, &f);
	if (!f.elf || !srcline_available(f.elf->path))
		return 0;
	/* a return address is after its call: its line is the call's */
	return srcline_frames(f.elf->path, leaf ? f.vaddr : f.vaddr - 1, out,
			      max);
}

void stacks_resolver(struct stacks *s, struct out_resolver *res)
{
	res->ctx = s;
	res->sym = sym;
	res->module = module;
	res->mapped = mapped;
	res->file_offset = file_offset;
	res->lines = lines;
}

void stacks_watch(struct stacks *s, int32_t pid)
{
	for (int i = 0; i < 2; i++)
		if (!s->watch[i] || s->watch[i] == pid) {
			s->watch[i] = pid;
			return;
		}
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int stacks_tick_ms(struct stacks *s)
{
	if (!s->scan)
		return -1;
	uint64_t now = now_ms();
	if (!s->next_ms)
		s->next_ms = now + FIRST_TICK_MS;
	return s->next_ms > now ? (int)(s->next_ms - now) : 0;
}

/* Snapshots the pid of every user address in t, at offset off of data;
 * ids_key: data is a key of that type stored with stack ids (its stacks'
 * pids are their table's, scanned as its values). */
static void note_pids(struct stacks *s, const struct type *t,
		      const uint8_t *data, uint32_t off,
		      const struct type *ids_key)
{
	if (t->kind == TY_TUPLE) {
		for (uint32_t i = 0; i < t->nfields; i++)
			note_pids(s, t->fields[i].type, data,
				  off + t->fields[i].offset, ids_key);
		return;
	}
	if ((t->kind != TY_USTACK && t->kind != TY_USYM) ||
	    (t->kind == TY_USTACK && ids_key))
		return;
	uint64_t pid;
	memcpy(&pid, data + (ids_key ? stackids_stored_off(ids_key, off) : off)
			     + 8, 8);
	if (pid)
		usyms_snapshot(usyms_of(s), (int32_t)pid, false);
}

static void scan_map(struct stacks *s, uint32_t mi)
{
	const struct cmap *m = &s->c->maps[mi];
	bool in_key = holds_user_addr(m->key);
	bool in_value = holds_user_addr(m->value) && !m->percpu;
	const struct type *ids_key = m->stack_ids ? m->key : NULL;
	if (!in_key && !in_value)
		return;
	uint8_t *key = calloc(2, m->key_size), *next = key + m->key_size;
	uint8_t *val = in_value ? calloc(1, m->value_size) : NULL;
	void *prev = NULL;
	int fd = s->map_fds[mi];
	while (key && (!in_value || val) &&
	       !bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, m->key_size);
		prev = key;
		if (in_key)
			note_pids(s, m->key, key, 0, ids_key);
		if (in_value && !bpf_map_lookup_elem(fd, key, val))
			note_pids(s, m->value, val, 0, NULL);
	}
	free(key);
	free(val);
}

void stacks_tick(struct stacks *s)
{
	if (stacks_tick_ms(s) != 0)
		return;
	s->next_ms = now_ms() + (++s->ticks < 10 ? FIRST_TICK_MS :
				 s->mmaps     ? TICK_MS_RECORDED :
						TICK_MS);
	for (int i = 0; i < 2; i++)
		if (s->watch[i] > 0)
			usyms_snapshot(usyms_of(s), s->watch[i], true);
	for (uint32_t i = 0; i < s->c->nmaps; i++)
		if (s->c->maps[i].is_user || s->c->maps[i].stack_table)
			scan_map(s, i);
}
