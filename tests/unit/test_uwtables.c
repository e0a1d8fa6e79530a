/* runtime/uwtables.c in real maps (root: bpf_map_create): this process's
 * entry against /proc/self/maps, the dynamic linker's load addresses
 * (dl_iterate_phdr) and dladdr; the rows of a run, read back through the
 * map (not the mmap that wrote them), against ehframe_rows; runs shared
 * between processes; mmap, fork, exec and exit updates; a deleted file
 * and the vdso. */
#define _GNU_SOURCE
#include "check.h"

#include <bpf/bpf.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/ehframe.h"
#include "model/unwind.h"
#include "runtime/uwtables.h"

static int rows_fd = -1, procs_fd = -1;
static struct uwtables *U;
static const char *no_maps; /* why the maps could not be made */

TEST(opens_the_maps)
{
	if (no_maps)
		SKIP(no_maps);
	CHECK(U != NULL);
}

static bool entry(pid_t pid, struct uw_proc *p)
{
	uint32_t k = (uint32_t)pid;
	return bpf_map_lookup_elem(procs_fd, &k, p) == 0;
}

static const struct uw_mapping *mapping_at(const struct uw_proc *p,
					   uint64_t addr)
{
	for (uint32_t i = 0; i < p->nmaps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* A run as the walker sees it: read through the map. */
static bool read_run(const struct uw_mapping *m, struct uw_row *out)
{
	for (uint32_t i = 0; i < m->row_count; i++) {
		uint32_t k = m->row_first + i;
		if (bpf_map_lookup_elem(rows_fd, &k, &out[i]))
			return false;
	}
	return true;
}

/* The executable mappings /proc/PID/maps lists: files and the vdso. */
static int exec_maps(pid_t pid, uint64_t start[], uint64_t end[], int max)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	int n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		char perms[8], name[4096] = "";
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %4095s", &s, &e,
			   perms, name) >= 3 &&
		    perms[2] == 'x' &&
		    (name[0] == '/' || !strcmp(name, "[vdso]")) && n < max) {
			start[n] = s;
			end[n++] = e;
		}
	}
	if (f)
		fclose(f);
	return n;
}

TEST(own_entry_matches_proc_maps)
{
	if (!U)
		SKIP(no_maps ? no_maps : "uwt_open failed (opens_the_maps)");
	struct uw_proc p;
	CHECK(uwt_add_pid(U, getpid()) == 0);
	CHECK(entry(getpid(), &p));
	uint64_t s[128], e[128];
	int n = exec_maps(getpid(), s, e, 128);
	CHECK(n >= 3 && n <= (int)UW_MAPS_MAX);
	CHECK(p.nmaps == (uint32_t)n);
	for (int i = 0; i < n && i < (int)p.nmaps; i++)
		CHECK(p.maps[i].start == s[i] && p.maps[i].end == e[i]);
	for (uint32_t i = 1; i < p.nmaps; i++)
		CHECK(p.maps[i - 1].end <= p.maps[i].start);
}

/* Every executable segment of every object the dynamic linker loaded:
 * the mapping holding it has the linker's load bias. */
struct objects {
	const struct uw_proc *p;
	int bad;
};

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct uw_proc *p = ((struct objects *)arg)->p;
	int *bad = &((struct objects *)arg)->bad;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		const struct uw_mapping *m =
			mapping_at(p, info->dlpi_addr + ph->p_vaddr);
		if (!m || m->bias != info->dlpi_addr || !m->row_count) {
			if (!(*bad)++)
				printf("  %s: bias %#llx, the mapping's %#llx\n",
				       info->dlpi_name, (unsigned long long)info->dlpi_addr,
				       m ? (unsigned long long)m->bias : 0ull);
		}
	}
	return 0;
}

TEST(biases_are_the_dynamic_linkers)
{
	if (!U)
		SKIP(no_maps ? no_maps : "uwt_open failed (opens_the_maps)");
	struct uw_proc p;
	CHECK(uwt_add_pid(U, getpid()) == 0 && entry(getpid(), &p));
	struct objects o = { &p, 0 };
	dl_iterate_phdr(each_object, &o);
	CHECK(o.bad == 0);
	/* the vdso: its ELF header is where the kernel says, linked at 0 */
	const struct uw_mapping *v =
		mapping_at(&p, getauxval(AT_SYSINFO_EHDR));
	CHECK(v && v->bias == getauxval(AT_SYSINFO_EHDR) && v->row_count > 0);
}

/* The run holding fn, read through the map, is ehframe_rows' answer for
 * fn's file, and the row for fn's address is the one for its vaddr. */
static void run_is_ehframes(const void *fn)
{
	Dl_info di;
	struct uw_proc p;
	CHECK(dladdr(fn, &di) && di.dli_fname);
	CHECK(entry(getpid(), &p));
	const struct uw_mapping *m = mapping_at(&p, (uint64_t)fn);
	CHECK(m != NULL);
	if (!m || !di.dli_fname)
		return;
	char self[4096];
	const char *file = di.dli_fname;
	if (!file[0]) { /* the executable */
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		file = self;
	}
	struct eh_rows want;
	CHECK(ehframe_rows(file, &want) == 0);
	CHECK(want.n > 0 && m->row_count == want.n);
	struct uw_row *got = calloc(m->row_count + 1, sizeof(*got));
	CHECK(read_run(m, got));
	CHECK(m->row_count == want.n &&
	      !memcmp(got, want.rows, want.n * sizeof(*got)));
	/* the row of fn's own address */
	uint64_t vaddr = (uint64_t)fn - m->bias;
	const struct uw_row *g = NULL, *w = NULL;
	for (uint32_t i = 0; i < m->row_count && got[i].addr <= vaddr; i++)
		g = &got[i];
	for (size_t i = 0; i < want.n && want.rows[i].addr <= vaddr; i++)
		w = &want.rows[i];
	CHECK(g && w && !memcmp(g, w, sizeof(*g)));
	/* a function's first instruction: CFA = rsp + 8 */
	CHECK(g && g->rule == UW_RULE(UW_CFA_SP, UW_BP_SAME) && g->cfa_off == 8);
	free(got);
	ehframe_rows_free(&want);
}

TEST(runs_are_ehframe_rows)
{
	if (!U)
		SKIP(no_maps ? no_maps : "uwt_open failed (opens_the_maps)");
	CHECK(uwt_add_pid(U, getpid()) == 0);
	/* (not fopen: ASan's build intercepts it) */
	run_is_ehframes((const void *)&gnu_get_libc_version); /* libc */
	run_is_ehframes((const void *)&bpf_map_create); /* libbpf */
	run_is_ehframes((const void *)&ehframe_rows);   /* this program */
}

static pid_t spawn(const char *path)
{
	pid_t c = fork();
	if (c == 0) {
		execl(path, path, "30", (char *)NULL);
		_exit(127);
	}
	usleep(200000); /* its mappings: after exec and ld.so */
	return c;
}

static void reap(pid_t c)
{
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

TEST(second_process_shares_runs)
{
	if (!U)
		SKIP(no_maps ? no_maps : "uwt_open failed (opens_the_maps)");
	CHECK(uwt_add_pid(U, getpid()) == 0);
	pid_t c = spawn("/bin/sleep");
	struct uwt_stats a, b;
	uwt_stats(U, &a);
	CHECK(uwt_add_pid(U, getpid()) == 0); /* again: nothing new */
	uwt_stats(U, &b);
	CHECK(b.rows == a.rows && b.binaries == a.binaries && b.procs == a.procs);
	/* sleep maps libc and ld.so, which this process has loaded */
	CHECK(uwt_add_pid(U, c) == 0);
	uwt_stats(U, &b);
	CHECK(b.procs == a.procs + 1);
	CHECK(b.binaries == a.binaries + 1); /* sleep itself */
	struct uw_proc me, it;
	CHECK(entry(getpid(), &me) && entry(c, &it));
	uint64_t libc = (uint64_t)&gnu_get_libc_version;
	const struct uw_mapping *x = mapping_at(&me, libc);
	int shared = 0;
	for (uint32_t i = 0; x && i < it.nmaps; i++)
		shared += it.maps[i].row_first == x->row_first &&
			  it.maps[i].row_count == x->row_count;
	CHECK(shared == 1);
	/* exit: the entry goes */
	uwt_on_exit(U, c);
	CHECK(!entry(c, &it));
	uwt_stats(U, &b);
	CHECK(b.procs == a.procs);
	CHECK(b.row_bytes == b.rows * sizeof(struct uw_row));
	reap(c);
}

TEST(mmap_adds_a_mapping)
{
	if (!U)
		SKIP(no_maps ? no_maps : "uwt_open failed (opens_the_maps)");
	CHECK(uwt_add_pid(U, getpid()) == 0);
	/* a library this program does not link */
	void *h = dlopen("libexpat.so.1", RTLD_NOW);
	if (!h)
		SKIP("libexpat.so.1 is not installed");
	void *fn = dlsym(h, "XML_ParserCreate");
	struct uw_proc p;
	CHECK(fn && entry(getpid(), &p) && !mapping_at(&p, (uint64_t)fn));
	/* its mapping, as an mmap record would say it */
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	bool told = false;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], name[4096];
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perms,
			   &off, name) == 5 &&
		    perms[2] == 'x' && (uint64_t)fn >= s && (uint64_t)fn < e) {
			uwt_on_mmap(U, getpid(), s, e - s, off, name);
			told = true;
		}
	}
	if (f)
		fclose(f);
	CHECK(told && entry(getpid(), &p));
	Dl_info di;
	struct link_map *lm = NULL;
	CHECK(dladdr1(fn, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm);
	const struct uw_mapping *m = mapping_at(&p, (uint64_t)fn);
	CHECK(m && lm && m->bias == lm->l_addr && m->row_count > 0);
	run_is_ehframes(fn);
	dlclose(h);
}

TEST(mmap_of_an_unseen_process_loads_it)
{
	if (!U)
		SKIP(no_maps ? no_maps : "uwt_open failed (opens_the_maps)");
	pid_t c = spawn("/bin/sleep");
	struct uw_proc p;
	uint64_t s[128], e[128];
	int n = exec_maps(c, s, e, 128);
	CHECK(n > 0 && !entry(c, &p));
	uwt_on_mmap(U, c, s[0], e[0] - s[0], 0, "/bin/sleep");
	CHECK(entry(c, &p) && p.nmaps == (uint32_t)n);
	uwt_on_exit(U, c);
	reap(c);
}

TEST(deleted_file_through_map_files)
{
	if (!U)
		SKIP(no_maps ? no_maps : "uwt_open failed (opens_the_maps)");
	char tmp[] = "/tmp/sonde-uwt-XXXXXX", cmd[256];
	int fd = mkstemp(tmp);
	CHECK(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s && chmod +x %s", tmp, tmp);
	CHECK(system(cmd) == 0);
	struct eh_rows want;
	CHECK(ehframe_rows(tmp, &want) == 0 && want.n > 0);
	pid_t c = spawn(tmp);
	unlink(tmp); /* its maps now say "(deleted)" */
	CHECK(uwt_add_pid(U, c) == 0);
	struct uw_proc p;
	uint64_t s[128], e[128];
	CHECK(exec_maps(c, s, e, 128) > 0 && entry(c, &p));
	const struct uw_mapping *m = mapping_at(&p, s[0]);
	CHECK(m && m->row_count == want.n);
	struct uw_row *got = calloc(want.n + 1, sizeof(*got));
	CHECK(m && read_run(m, got) &&
	      !memcmp(got, want.rows, want.n * sizeof(*got)));
	free(got);
	ehframe_rows_free(&want);
	uwt_on_exit(U, c);
	reap(c);
}

TEST(fork_copies_exec_rereads)
{
	if (!U)
		SKIP(no_maps);
	CHECK(uwt_add_pid(U, getpid()) == 0);
	int go[2];
	CHECK(pipe(go) == 0);
	pid_t c = fork();
	if (c == 0) { /* this program until told, then sleep */
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) == 1)
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	struct uw_proc me, it;
	uwt_on_fork(U, getpid(), c);
	CHECK(entry(getpid(), &me) && entry(c, &it));
	CHECK(!memcmp(&me, &it, sizeof(me)));
	/* a parent with no entry gives none */
	uwt_on_exit(U, c);
	uwt_on_fork(U, 0x3fffffff, c);
	CHECK(!entry(c, &it));
	uwt_on_fork(U, getpid(), c);
	/* after exec, none of this program's mappings may stay */
	CHECK(write(go[1], "x", 1) == 1);
	close(go[1]);
	usleep(200000);
	uwt_on_exec(U, c);
	uint64_t s[128], e[128];
	int n = exec_maps(c, s, e, 128);
	CHECK(entry(c, &it) && n > 0 && it.nmaps == (uint32_t)n);
	for (int i = 0; i < n && i < (int)it.nmaps; i++)
		CHECK(it.maps[i].start == s[i] && it.maps[i].end == e[i]);
	CHECK(!mapping_at(&it, (uint64_t)&ehframe_rows));
	uwt_on_exit(U, c);
	reap(c);
}

TEST(too_many_mappings_keep_those_with_rows)
{
	if (!U)
		SKIP(no_maps);
	/* 70 executable mappings of /bin/sleep's first page: its ELF
	 * header, in no executable segment, so no rows */
	int fd = open("/bin/sleep", O_RDONLY);
	void *m[70];
	int n = 0;
	for (int i = 0; fd >= 0 && i < 70; i++) {
		m[i] = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		n += m[i] != MAP_FAILED;
	}
	if (fd >= 0)
		close(fd);
	CHECK(n == 70);
	uint64_t s[256], e[256];
	int all = exec_maps(getpid(), s, e, 256);
	struct uwt_stats a, b;
	uwt_stats(U, &a);
	CHECK(uwt_add_pid(U, getpid()) == 0);
	uwt_stats(U, &b);
	CHECK(all > (int)UW_MAPS_MAX &&
	      b.maps_dropped == a.maps_dropped + (size_t)all - UW_MAPS_MAX);
	struct uw_proc p;
	CHECK(entry(getpid(), &p) && p.nmaps == UW_MAPS_MAX);
	for (uint32_t i = 1; i < p.nmaps; i++)
		CHECK(p.maps[i - 1].end <= p.maps[i].start);
	/* every object the dynamic linker loaded is still there, with rows */
	struct objects o = { &p, 0 };
	dl_iterate_phdr(each_object, &o);
	CHECK(o.bad == 0);
	for (int i = 0; i < 70; i++)
		if (m[i] != MAP_FAILED)
			munmap(m[i], 4096);
	CHECK(uwt_add_pid(U, getpid()) == 0);
}

TEST(refusals)
{
	if (!U)
		SKIP(no_maps ? no_maps : "uwt_open failed (opens_the_maps)");
	/* no such process */
	CHECK(uwt_add_pid(U, 0x3fffffff) == -ENOENT);
	/* a rows map the walker could not read through mmap */
	int plain = bpf_map_create(BPF_MAP_TYPE_ARRAY, "uw_plain", 4,
				   sizeof(struct uw_row), 16, NULL);
	CHECK(plain >= 0);
	errno = 0;
	CHECK(uwt_open(plain, procs_fd) == NULL && errno == EINVAL);
	close(plain);
}

int main(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	rows_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "uw_rows", 4,
				 sizeof(struct uw_row), UW_ROWS_MAX, &mm);
	procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "uw_procs", 4,
				  sizeof(struct uw_proc), UW_PROCS_MAX, NULL);
	if (rows_fd < 0 || procs_fd < 0)
		no_maps = geteuid() ? "bpf_map_create needs root"
				    : "bpf_map_create refused the maps";
	else
		U = uwt_open(rows_fd, procs_fd);
	RUN(opens_the_maps);
	RUN(own_entry_matches_proc_maps);
	RUN(biases_are_the_dynamic_linkers);
	RUN(runs_are_ehframe_rows);
	RUN(second_process_shares_runs);
	RUN(mmap_adds_a_mapping);
	RUN(mmap_of_an_unseen_process_loads_it);
	RUN(deleted_file_through_map_files);
	RUN(fork_copies_exec_rereads);
	RUN(too_many_mappings_keep_those_with_rows);
	RUN(refusals);
	uwt_close(U);
	return check_done();
}
