/*
 * The unwind tables in the two maps (runtime/uwtables.h, model/unwind.h).
 *
 * Rows are written through a mapping of .uw_rows (an mmapable array), not
 * one bpf_map_update_elem per row: python3's process is about 100,000
 * rows. Runs are only appended, one per binary, and a binary is known by
 * its file (device, inode, size, mtime), so that every process mapping it
 * shares its run. A process's entry in .uw_procs is written whole with
 * one update; the entry is the only copy of it (uwt_on_mmap reads it
 * back), so nothing here outlives the maps.
 *
 * Files are opened through /proc/PID/map_files (a deleted file, another
 * mount namespace) or else /proc/PID/root/PATH, and read through
 * /proc/self/fd/N, so the rows are those of the very file mapped. The
 * vdso, which has no file, is read from the process's memory.
 */
#define _GNU_SOURCE
#include "runtime/uwtables.h"

#include <bpf/bpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/ehframe.h"
#include "model/unwind.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define SEGS_MAX 8
#define VDSO_MAX (1u << 20)

/* An executable PT_LOAD segment. */
struct seg {
	uint64_t off, filesz, vaddr;
};

/* What a binary is known by: its file's identity, or for the vdso (dev
 * 0) a hash of its bytes. */
struct bin_key {
	uint64_t dev, ino;
	int64_t size, mtime_ns;
};

/* One binary: its run in .uw_rows and its executable segments. */
struct bin {
	struct bin_key key;
	uint32_t first, count;
	struct seg segs[SEGS_MAX];
	unsigned nsegs;
};

typedef VEC(struct uw_mapping) mapping_vec;

struct uwtables {
	int rows_fd, procs_fd;
	struct uw_row *rows; /* .uw_rows, mapped */
	size_t map_len;
	uint32_t rows_cap, rows_used;
	VEC(struct bin) bins;
	size_t binaries, procs, rows_dropped, maps_dropped;
	uint64_t page;
};

static int map_info(int fd, struct bpf_map_info *info)
{
	uint32_t len = sizeof(*info);
	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(fd, info, &len);
}

struct uwtables *uwt_open(int rows_fd, int procs_fd)
{
	struct bpf_map_info ri, pi;
	if (map_info(rows_fd, &ri) || map_info(procs_fd, &pi))
		return NULL;
	/* the layouts model/unwind.h promises the walker */
	if (ri.type != BPF_MAP_TYPE_ARRAY || ri.key_size != 4 ||
	    ri.value_size != sizeof(struct uw_row) ||
	    !(ri.map_flags & BPF_F_MMAPABLE) || pi.key_size != 4 ||
	    pi.value_size != sizeof(struct uw_proc)) {
		errno = EINVAL;
		return NULL;
	}
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t len = ((size_t)ri.max_entries * sizeof(struct uw_row) + page - 1) &
		     ~(page - 1);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rows_fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct uwtables *u = xcalloc(1, sizeof(*u));
	u->rows_fd = rows_fd;
	u->procs_fd = procs_fd;
	u->rows = p;
	u->map_len = len;
	u->rows_cap = ri.max_entries;
	u->page = page;
	return u;
}

void uwt_close(struct uwtables *u)
{
	if (!u)
		return;
	munmap(u->rows, u->map_len);
	vec_free(&u->bins);
	free(u);
}

/* ---- binaries ---- */

static void read_segs(int fd, struct bin *b)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n;
	if (e && !elf_getphdrnum(e, &n))
		for (size_t i = 0; i < n && b->nsegs < SEGS_MAX; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X))
				b->segs[b->nsegs++] = (struct seg){
					ph.p_offset, ph.p_filesz, ph.p_vaddr
				};
		}
	elf_end(e);
}

static bool same_key(const struct bin_key *a, const struct bin_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

/* The binary open on fd: found, or read and its rows appended. */
static const struct bin *bin_for(struct uwtables *u, int fd,
				 const struct bin_key *k)
{
	for (size_t i = 0; i < u->bins.len; i++)
		if (same_key(&u->bins.data[i].key, k))
			return &u->bins.data[i];
	struct bin b = { .key = *k };
	read_segs(fd, &b);
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct eh_rows r;
	/* a file with no rows (none, not ELF, not x86_64, past 4 GiB) is
	 * still a binary: its mappings say "no unwind data" */
	if (ehframe_rows(path, &r) == 0 && r.n) {
		if (r.n > u->rows_cap - u->rows_used) {
			u->rows_dropped++;
		} else {
			memcpy(u->rows + u->rows_used, r.rows,
			       r.n * sizeof(*r.rows));
			b.first = u->rows_used;
			b.count = (uint32_t)r.n;
			u->rows_used += (uint32_t)r.n;
			u->binaries++;
		}
	}
	ehframe_rows_free(&r);
	vec_push(&u->bins, b);
	return &u->bins.data[u->bins.len - 1];
}

static const struct bin *file_bin(struct uwtables *u, int fd)
{
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return NULL;
	struct bin_key k = {
		st.st_dev, st.st_ino, st.st_size,
		st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec
	};
	return bin_for(u, fd, &k);
}

/* The vdso has no file: its bytes, from the process's memory, into a
 * memfd (the same image in every process of one kernel and ABI, found
 * again by their hash). */
static const struct bin *vdso_bin(struct uwtables *u, pid_t pid,
				  uint64_t start, uint64_t end)
{
	if (end - start > VDSO_MAX)
		return NULL;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	if (mem < 0)
		return NULL;
	size_t len = end - start;
	uint8_t *buf = xmalloc(len);
	ssize_t got = pread(mem, buf, len, (off_t)start);
	close(mem);
	const struct bin *b = NULL;
	int fd = got == (ssize_t)len ? memfd_create("vdso", MFD_CLOEXEC) : -1;
	if (fd >= 0 && write(fd, buf, len) == (ssize_t)len) {
		uint64_t h = 1469598103934665603ull; /* FNV-1a */
		for (size_t i = 0; i < len; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
		struct bin_key k = { 0, h, (int64_t)len, 0 };
		b = bin_for(u, fd, &k);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return b;
}

/* ---- mappings ---- */

/* The file of pid's mapping [start, end) of path: the mapping's own
 * (map_files), else the path in the process's root unless the file was
 * deleted (the path may now name another file). */
static int open_mapped(pid_t pid, uint64_t start, uint64_t end,
		       const char *path)
{
	char p[4096 + 64];
	snprintf(p, sizeof(p), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)start, (unsigned long long)end);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || path[0] != '/')
		return fd;
	size_t n = strlen(path), d = strlen(" (deleted)");
	if (n > d && !strcmp(path + n - d, " (deleted)"))
		return -1;
	snprintf(p, sizeof(p), "/proc/%d/root%s", (int)pid, path);
	return open(p, O_RDONLY | O_CLOEXEC);
}

/* vaddr = ip - bias, from the executable segment the mapping's file
 * offset falls in (the kernel maps a segment from its offset rounded down
 * to a page, at its vaddr rounded down alike). */
static bool bias_of(const struct bin *b, uint64_t start, uint64_t pgoff,
		    uint64_t page, uint64_t *bias)
{
	for (unsigned i = 0; i < b->nsegs; i++) {
		const struct seg *s = &b->segs[i];
		if (pgoff >= (s->off & ~(page - 1)) && pgoff < s->off + s->filesz) {
			*bias = start - pgoff - (s->vaddr - s->off);
			return true;
		}
	}
	return false;
}

/* pid's executable mapping [start, end) at pgoff of path ("[vdso]", or
 * a file). False: nothing to say of it (no file found). */
static bool mapping_of(struct uwtables *u, pid_t pid, uint64_t start,
		       uint64_t end, uint64_t pgoff, const char *path,
		       struct uw_mapping *m)
{
	const struct bin *b;
	if (!strcmp(path, "[vdso]")) {
		b = vdso_bin(u, pid, start, end);
	} else {
		int fd = open_mapped(pid, start, end, path);
		if (fd < 0)
			return false;
		b = file_bin(u, fd);
		close(fd);
	}
	if (!b)
		return false;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	/* a mapping no segment explains keeps no rows: never a guessed bias */
	if (b->count && bias_of(b, start, pgoff, u->page, &m->bias)) {
		m->row_first = b->first;
		m->row_count = b->count;
	}
	return true;
}

static bool anonymous(const char *path)
{
	/* "", "//anon", "[heap]", "[stack]", "[vsyscall]"... */
	return path[0] != '/' && strcmp(path, "[vdso]");
}

static int by_start(const void *a, const void *b)
{
	const struct uw_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Those with rows first: a mapping without says nothing the walker does
 * not conclude when it finds none. */
static int rows_first(const void *a, const void *b)
{
	const struct uw_mapping *x = a, *y = b;
	if (!x->row_count != !y->row_count)
		return x->row_count ? -1 : 1;
	return by_start(a, b);
}

/* Writes pid's entry, counting the processes that have one. */
static int write_entry(struct uwtables *u, pid_t pid, const struct uw_proc *p)
{
	uint32_t key = (uint32_t)pid;
	struct uw_proc old;
	bool existed = bpf_map_lookup_elem(u->procs_fd, &key, &old) == 0;
	int rc = bpf_map_update_elem(u->procs_fd, &key, p, BPF_ANY);
	if (rc)
		return rc < 0 ? rc : -errno;
	u->procs += !existed;
	return 0;
}

/* Writes pid's entry: at most UW_MAPS_MAX mappings, sorted by start. */
static int put_proc(struct uwtables *u, pid_t pid, mapping_vec *ms)
{
	struct uw_proc p;
	if (ms->len > UW_MAPS_MAX) {
		qsort(ms->data, ms->len, sizeof(*ms->data), rows_first);
		u->maps_dropped += ms->len - UW_MAPS_MAX;
		ms->len = UW_MAPS_MAX;
	}
	qsort(ms->data, ms->len, sizeof(*ms->data), by_start);
	memset(&p, 0, sizeof(p));
	p.nmaps = (uint32_t)ms->len;
	memcpy(p.maps, ms->data, ms->len * sizeof(*ms->data));
	return write_entry(u, pid, &p);
}

/* pid's executable mappings, from /proc/PID/maps. */
static int read_maps(struct uwtables *u, pid_t pid, mapping_vec *out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, off;
		char perms[8];
		int name = 0;
		/* START-END PERMS OFFSET DEV INODE NAME */
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end,
			   perms, &off, &name) != 4 ||
		    !name || perms[2] != 'x')
			continue;
		char *p = line + name;
		p[strcspn(p, "\n")] = '\0';
		struct uw_mapping m;
		if (!anonymous(p) && mapping_of(u, pid, start, end, off, p, &m))
			vec_push(out, m);
	}
	free(line);
	fclose(f);
	return 0;
}

int uwt_add_pid(struct uwtables *u, pid_t pid)
{
	mapping_vec ms = { 0 };
	int rc = read_maps(u, pid, &ms);
	/* no executable mapping (a kernel thread, a zombie): no entry */
	if (!rc && ms.len)
		rc = put_proc(u, pid, &ms);
	vec_free(&ms);
	return rc;
}

int uwt_add_all(struct uwtables *u)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		rc = uwt_add_pid(u, (pid_t)atoi(de->d_name));
		/* gone since, or not ours to read: not an error of the set */
		if (rc == -ENOENT || rc == -ESRCH || rc == -EACCES)
			rc = 0;
	}
	closedir(d);
	return rc;
}

void uwt_on_mmap(struct uwtables *u, pid_t pid, uint64_t start,
		 uint64_t len, uint64_t pgoff, const char *path)
{
	uint32_t key = (uint32_t)pid;
	struct uw_proc p;
	if (!path || anonymous(path))
		return;
	if (bpf_map_lookup_elem(u->procs_fd, &key, &p)) {
		/* not seen yet: all of it, this mapping too if still there */
		uwt_add_pid(u, pid);
		return;
	}
	struct uw_mapping m;
	if (!mapping_of(u, pid, start, start + len, pgoff, path, &m))
		return;
	/* the new mapping replaces those it overlaps */
	mapping_vec ms = { 0 };
	for (uint32_t i = 0; i < p.nmaps && i < UW_MAPS_MAX; i++)
		if (p.maps[i].end <= m.start || p.maps[i].start >= m.end)
			vec_push(&ms, p.maps[i]);
	vec_push(&ms, m);
	put_proc(u, pid, &ms);
	vec_free(&ms);
}

void uwt_on_exit(struct uwtables *u, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	if (bpf_map_delete_elem(u->procs_fd, &key) == 0 && u->procs)
		u->procs--;
}

void uwt_on_exec(struct uwtables *u, pid_t pid)
{
	uwt_on_exit(u, pid);
	/* what is mapped by now; the mmap records that follow add the rest */
	uwt_add_pid(u, pid);
}

void uwt_on_fork(struct uwtables *u, pid_t ppid, pid_t pid)
{
	uint32_t parent = (uint32_t)ppid;
	struct uw_proc p;
	if (pid != ppid && !bpf_map_lookup_elem(u->procs_fd, &parent, &p))
		write_entry(u, pid, &p);
}

void uwt_stats(const struct uwtables *u, struct uwt_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->binaries = u->binaries;
	s->rows = u->rows_used;
	s->procs = u->procs;
	s->row_bytes = (size_t)u->rows_used * sizeof(struct uw_row);
	s->proc_bytes = u->procs * sizeof(struct uw_proc);
	s->rows_dropped = u->rows_dropped;
	s->maps_dropped = u->maps_dropped;
}
