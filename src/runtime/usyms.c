#define _GNU_SOURCE
#include "runtime/usyms.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "kernel/elfsym.h"
#include "util/demangle.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* One mapped file, shared by every mapping of it in every pid. */
struct ufile {
	uint64_t dev, ino;    /* 0, 0: a special image ([vdso]) */
	char *path;
	bool tried;           /* loading was attempted (es NULL: failed) */
	struct elf_syms *es;
	struct elf_syms *dbg; /* the debug file of a stripped es, or NULL */
};

struct umap {
	uint64_t start, end, pgoff;
	struct ufile *file;
};

/* A perf map entry: "START SIZE name" in hex. */
struct jitsym {
	uint64_t start, size;
	char *name;
};

/* An executable mapping of no file: JIT code, [vsyscall], [uprobes]. */
struct urange {
	uint64_t start, end;
};

struct upid {
	int32_t pid;
	VEC(struct umap) maps;   /* executable mappings, sorted by start */
	VEC(struct urange) anon; /* executable mappings of no file, sorted */
	VEC(struct jitsym) jit;  /* sorted by start */
	bool jit_tried;
	bool miss_refreshed; /* re-read once for an address outside maps */
};

struct usyms {
	VEC(struct upid *) pids;  /* sorted by pid */
	VEC(struct ufile *) files;
};

struct usyms *usyms_new(void)
{
	return xcalloc(1, sizeof(struct usyms));
}

static void upid_clear(struct upid *p)
{
	vec_free(&p->maps);
	vec_free(&p->anon);
	for (size_t i = 0; i < p->jit.len; i++)
		free(p->jit.data[i].name);
	vec_free(&p->jit);
	p->jit_tried = false;
}

void usyms_free(struct usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->pids.len; i++) {
		upid_clear(u->pids.data[i]);
		free(u->pids.data[i]);
	}
	vec_free(&u->pids);
	for (size_t i = 0; i < u->files.len; i++) {
		elfsym_free(u->files.data[i]->es);
		elfsym_free(u->files.data[i]->dbg);
		free(u->files.data[i]->path);
		free(u->files.data[i]);
	}
	vec_free(&u->files);
	free(u);
}

/* The index of pid in u->pids, or where it would go (*found false). */
static size_t pid_slot(const struct usyms *u, int32_t pid, bool *found)
{
	size_t lo = 0, hi = u->pids.len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->pids.data[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < u->pids.len && u->pids.data[lo]->pid == pid;
	return lo;
}

static struct upid *find_pid(const struct usyms *u, int32_t pid)
{
	bool found;
	size_t i = pid_slot(u, pid, &found);
	return found ? u->pids.data[i] : NULL;
}

bool usyms_known(const struct usyms *u, int32_t pid)
{
	return find_pid(u, pid) != NULL;
}

/* The entry of pid, created empty (with no read of /proc) if needed. */
static struct upid *pid_entry(struct usyms *u, int32_t pid)
{
	bool found;
	size_t i = pid_slot(u, pid, &found);
	if (found)
		return u->pids.data[i];
	struct upid *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	vec_reserve(&u->pids, 1);
	memmove(u->pids.data + i + 1, u->pids.data + i,
		(u->pids.len - i) * sizeof(*u->pids.data));
	u->pids.data[i] = p;
	u->pids.len++;
	return p;
}

static struct ufile *file_for(struct usyms *u, uint64_t dev, uint64_t ino,
			      const char *path)
{
	for (size_t i = 0; i < u->files.len; i++) {
		struct ufile *f = u->files.data[i];
		if (f->dev == dev && f->ino == ino &&
		    (ino || !strcmp(f->path, path)))
			return f;
	}
	struct ufile *f = xcalloc(1, sizeof(*f));
	f->dev = dev;
	f->ino = ino;
	f->path = xstrdup(path);
	vec_push(&u->files, f);
	return f;
}

/* Our own vdso: the kernel maps the same image into every process. */
static struct elf_syms *own_vdso(void)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	FILE *f = fopen("/proc/self/maps", "re");
	if (!base || !f) {
		if (f)
			fclose(f);
		return NULL;
	}
	char line[512];
	size_t len = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		if (sscanf(line, "%llx-%llx", &s, &e) == 2 && s == base) {
			len = (size_t)(e - s);
			break;
		}
	}
	fclose(f);
	struct elf_syms *es = NULL;
	if (len && elfsym_load_mem((const void *)base, len, "[vdso]", &es))
		es = NULL;
	return es;
}

/* A stripped file's full symbol table (local functions such as glibc's
 * __libc_start_call_main) is in its debug file, found by build id as gdb
 * and bcc do. Its symbols use the same virtual addresses. */
static struct elf_syms *debug_file(const struct elf_syms *es)
{
	if (es->has_symtab || es->build_id_len < 2)
		return NULL;
	char path[128];
	int n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/",
			 es->build_id[0]);
	for (uint32_t i = 1; i < es->build_id_len; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x",
			      es->build_id[i]);
	snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
	struct elf_syms *dbg = NULL;
	if (elfsym_load(path, &dbg) || !dbg->nsyms) {
		elfsym_free(dbg);
		return NULL;
	}
	return dbg;
}

static struct elf_syms *file_syms(struct ufile *f, int32_t pid)
{
	if (f->tried)
		return f->es;
	f->tried = true;
	if (!strcmp(f->path, "[vdso]")) {
		f->es = own_vdso();
		return f->es;
	}
	if (elfsym_load(f->path, &f->es)) {
		/* another mount namespace (a container): through the pid */
		char alt[4096 + 32];
		snprintf(alt, sizeof(alt), "/proc/%d/root%s", (int)pid,
			 f->path);
		if (elfsym_load(alt, &f->es))
			f->es = NULL;
	}
	if (f->es)
		f->dbg = debug_file(f->es);
	return f->es;
}

static int cmp_map(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_range(const void *a, const void *b)
{
	const struct urange *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Takes the executable range [start, end) of no file into p->anon, in
 * place of those it overlaps. */
static void add_anon(struct upid *p, uint64_t start, uint64_t end)
{
	size_t k = 0;
	for (size_t i = 0; i < p->anon.len; i++)
		if (p->anon.data[i].end <= start || p->anon.data[i].start >= end)
			p->anon.data[k++] = p->anon.data[i];
	p->anon.len = k;
	struct urange r = { start, end };
	vec_push(&p->anon, r);
	qsort(p->anon.data, p->anon.len, sizeof(*p->anon.data), cmp_range);
}

static int cmp_jit(const void *a, const void *b)
{
	const struct jitsym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int read_maps(struct usyms *u, struct upid *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	VEC(struct umap) maps = { 0 };
	VEC(struct urange) anon = { 0 };
	while (getline(&line, &cap, f) > 0) {
		unsigned long long s, e, off, ino;
		unsigned maj, min;
		char perms[8];
		int n = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &s, &e,
			   perms, &off, &maj, &min, &ino, &n) < 7 ||
		    perms[2] != 'x')
			continue;
		char *name = line + n;
		name[strcspn(name, "\n")] = '\0';
		if (!*name || (name[0] == '[' && strcmp(name, "[vdso]"))) {
			/* anonymous (JIT: the perf map names it), [vsyscall] */
			struct urange r = { s, e };
			vec_push(&anon, r);
			continue;
		}
		struct umap m = { s, e, off,
				  file_for(u, ino ? makedev(maj, min) : 0, ino,
					   name) };
		vec_push(&maps, m);
	}
	free(line);
	fclose(f);
	if (maps.len == 0 && p->maps.len) {
		/* a zombie's maps are empty: keep what was seen alive */
		vec_free(&maps);
		vec_free(&anon);
		return -ENOENT;
	}
	vec_free(&p->anon); /* (in address order, as the file lists them) */
	p->anon.data = anon.data;
	p->anon.len = anon.len;
	p->anon.cap = anon.cap;
	if (maps.len) /* (an exited process's maps may be empty) */
		qsort(maps.data, maps.len, sizeof(*maps.data), cmp_map);
	vec_free(&p->maps);
	p->maps.data = maps.data;
	p->maps.len = maps.len;
	p->maps.cap = maps.cap;
	return 0;
}

/* /tmp/perf-PID.map, written by JITs (node --perf-basic-prof, ...). */
static void read_perf_map(struct upid *p)
{
	p->jit_tried = true;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)p->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long s, sz;
		int n = 0;
		if (sscanf(line, "%llx %llx %n", &s, &sz, &n) < 2 || !n)
			continue;
		line[strcspn(line, "\n")] = '\0';
		struct jitsym j = { s, sz, xstrdup(line + n) };
		vec_push(&p->jit, j);
	}
	free(line);
	fclose(f);
	if (p->jit.len)
		qsort(p->jit.data, p->jit.len, sizeof(*p->jit.data), cmp_jit);
}

int usyms_snapshot(struct usyms *u, int32_t pid, bool refresh)
{
	bool found;
	size_t i = pid_slot(u, pid, &found);
	if (found && !refresh)
		return 0;
	struct upid tmp = { .pid = pid };
	int err = read_maps(u, found ? u->pids.data[i] : &tmp);
	if (!found) {
		if (err)
			return err;
		*pid_entry(u, pid) = tmp;
	}
	if (!err) {
		struct upid *p = find_pid(u, pid);
		/* a JIT adds to its map as it runs: read it again too */
		for (size_t k = 0; k < p->jit.len; k++)
			free(p->jit.data[k].name);
		p->jit.len = 0;
		read_perf_map(p);
	}
	return err;
}

/* Records from different CPUs arrive out of order, so an exec must not
 * drop mappings that may already be the new image's: the new image's
 * mappings replace the old ones they overlap instead. The entry makes the
 * new image's mappings go in without a read of /proc. */
void usyms_exec(struct usyms *u, int32_t pid)
{
	pid_entry(u, pid);
}

void usyms_fork(struct usyms *u, int32_t ppid, int32_t pid)
{
	if (!find_pid(u, ppid) || usyms_known(u, pid))
		return; /* unknown parent; or the child's exec came first */
	struct upid *p = pid_entry(u, pid);
	struct upid *parent = find_pid(u, ppid);
	for (size_t i = 0; i < parent->maps.len; i++)
		vec_push(&p->maps, parent->maps.data[i]);
	for (size_t i = 0; i < parent->anon.len; i++)
		vec_push(&p->anon, parent->anon.data[i]);
}

void usyms_add_mapping(struct usyms *u, int32_t pid, uint64_t start,
		       uint64_t len, uint64_t pgoff, uint64_t dev,
		       uint64_t ino, const char *path)
{
	if (!usyms_known(u, pid) && usyms_snapshot(u, pid, false) == 0)
		return; /* the snapshot, read now, holds the mapping */
	struct upid *p = pid_entry(u, pid);
	if (path[0] != '/' && strcmp(path, "[vdso]")) {
		/* "//anon" (JIT code), [vsyscall], [uprobes] */
		add_anon(p, start, start + len);
		return;
	}
	if (path[0] == '/' || !strcmp(path, "[vdso]")) {
		/* a new mapping replaces the ones it overlaps */
		size_t k = 0;
		for (size_t i = 0; i < p->maps.len; i++)
			if (p->maps.data[i].end <= start ||
			    p->maps.data[i].start >= start + len)
				p->maps.data[k++] = p->maps.data[i];
		p->maps.len = k;
		struct umap m = { start, start + len, pgoff,
				  file_for(u, ino ? dev : 0, ino, path) };
		vec_push(&p->maps, m);
		qsort(p->maps.data, p->maps.len, sizeof(*p->maps.data),
		      cmp_map);
	}
}

/* The last of n elements (of size bytes, each starting with its u64
 * start address, sorted by it) that starts at or below addr, or NULL. */
static const void *last_at_or_below(const void *base, size_t n, size_t size,
				    uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t start;
		memcpy(&start, (const char *)base + mid * size, 8);
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (const char *)base + (lo - 1) * size : NULL;
}

static const struct umap *find_map(const struct upid *p, uint64_t addr)
{
	const struct umap *m = last_at_or_below(p->maps.data, p->maps.len,
						sizeof(*m), addr);
	return m && addr < m->end ? m : NULL;
}

static const struct jitsym *find_jit(const struct upid *p, uint64_t addr)
{
	const struct jitsym *j = last_at_or_below(p->jit.data, p->jit.len,
						  sizeof(*j), addr);
	return j && addr < j->start + j->size ? j : NULL;
}

static void put(struct strbuf *sb, const char *name, uint64_t off,
		bool offset)
{
	char *dm = demangle_for_output(name);
	sb_append(sb, dm ? dm : name);
	free(dm);
	if (offset)
		sb_printf(sb, "+%" PRIu64, off);
}

int usyms_frame(struct usyms *u, int32_t pid, uint64_t addr,
		struct usyms_frame *f)
{
	memset(f, 0, sizeof(*f));
	struct upid *p = find_pid(u, pid);
	if (!p && usyms_snapshot(u, pid, false) == 0)
		p = find_pid(u, pid);
	if (!p)
		return -ENOENT;
	const struct umap *m = find_map(p, addr);
	if (!m && !p->miss_refreshed) {
		/* mapped since the snapshot (dlopen)? once per pid, so that
		 * unknown frames cost no file reads */
		p->miss_refreshed = true;
		if (usyms_snapshot(u, pid, true) == 0)
			m = find_map(p, addr);
	}
	if (m) {
		f->path = m->file->path;
		f->start = m->start;
		f->end = m->end;
		f->pgoff = m->pgoff;
		struct elf_syms *es = file_syms(m->file, pid);
		uint64_t vaddr, off;
		const struct elf_sym *s;
		if (!es || elfsym_off_to_vaddr(es, addr - m->start + m->pgoff,
					       &vaddr))
			return -ENOENT;
		f->elf = es;
		f->vaddr = vaddr;
		if ((m->file->dbg &&
		     (s = elfsym_lookup(m->file->dbg, vaddr, &off))) ||
		    (s = elfsym_lookup(es, vaddr, &off))) {
			f->sym = s->name;
			f->sym_off = off;
			return 0;
		}
		return -ENOENT;
	}
	const struct jitsym *j = find_jit(p, addr);
	if (!j)
		return -ENOENT;
	f->path = "[perf-map]";
	f->sym = j->name;
	f->sym_off = addr - j->start;
	return 0;
}

static bool in_anon(const struct upid *p, uint64_t addr)
{
	const struct urange *r = last_at_or_below(p->anon.data, p->anon.len,
						  sizeof(*r), addr);
	return r && addr < r->end;
}

static bool executable(const struct upid *p, uint64_t addr)
{
	return find_map(p, addr) || in_anon(p, addr) || find_jit(p, addr);
}

int usyms_mapped(struct usyms *u, int32_t pid, uint64_t addr)
{
	struct upid *p = find_pid(u, pid);
	if (!p && usyms_snapshot(u, pid, false) == 0)
		p = find_pid(u, pid);
	if (!p || (!p->maps.len && !p->anon.len))
		return -1; /* never seen alive: nothing to judge by */
	if (executable(p, addr))
		return 1;
	if (!p->miss_refreshed) { /* mapped since the snapshot? (as below) */
		p->miss_refreshed = true;
		if (usyms_snapshot(u, pid, true) == 0 && executable(p, addr))
			return 1;
	}
	return 0;
}

int usyms_resolve(struct usyms *u, int32_t pid, uint64_t addr, bool offset,
		  struct strbuf *sb, const char **module)
{
	struct usyms_frame f;
	int err = usyms_frame(u, pid, addr, &f);
	if (module)
		*module = f.path;
	if (err)
		return err;
	put(sb, f.sym, f.sym_off, offset);
	return 0;
}
