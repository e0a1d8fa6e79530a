/* User symbolisation (runtime/usyms) on this process, and the flame graph
 * renderers (runtime/flamegraph). */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/flamegraph.h"
#include "runtime/usyms.h"
#include "util/strbuf.h"

__attribute__((noinline)) int usyms_probe_fn(int x) { return x * 7 + 3; }

static char *resolve(struct usyms *u, int32_t pid, uint64_t addr,
		     bool offset, const char **module)
{
	static struct strbuf sb = STRBUF_INIT;
	sb_reset(&sb);
	if (usyms_resolve(u, pid, addr, offset, &sb, module) < 0)
		return NULL;
	return (char *)sb_str(&sb);
}

TEST(own_process)
{
	struct usyms *u = usyms_new();
	int32_t pid = (int32_t)getpid();
	const char *mod = NULL;
	char *s = resolve(u, pid, (uintptr_t)&usyms_probe_fn + 2, true, &mod);
	CHECK(s && !strcmp(s, "usyms_probe_fn+2"));
	CHECK(mod && strstr(mod, "test_stacks"));
	s = resolve(u, pid, (uintptr_t)&usyms_probe_fn, false, NULL);
	CHECK(s && !strcmp(s, "usyms_probe_fn"));
	/* libc, through its .dynsym (or its debug file) */
	s = resolve(u, pid, (uintptr_t)&getpid, false, &mod);
	CHECK(s && strstr(s, "getpid"));
	CHECK(mod && strstr(mod, "libc"));
	/* nothing is mapped at 16 */
	CHECK(resolve(u, pid, 16, false, &mod) == NULL && mod == NULL);
	usyms_free(u);
}

TEST(vdso_from_our_own)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return; /* no vdso */
	struct usyms *u = usyms_new();
	const char *mod = NULL;
	/* the vdso's first function lies a little after its ELF header */
	bool found = false;
	for (uint64_t off = 0x400; off < 0x2000 && !found; off += 0x10) {
		char *s = resolve(u, (int32_t)getpid(), base + off, false,
				  &mod);
		found = s && strstr(s, "vdso") != NULL;
	}
	CHECK(found);
	CHECK(mod && !strcmp(mod, "[vdso]"));
	usyms_free(u);
}

/* An exited process: its mappings as the perf records gave them. */
TEST(recorded_mappings_of_a_gone_pid)
{
	struct usyms *u = usyms_new();
	int32_t gone = 0x3ffffff0; /* above pid_max */
	struct stat st;
	CHECK(stat("/proc/self/exe", &st) == 0);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	if (n <= 0) {
		usyms_free(u);
		return;
	}
	exe[n] = '\0';
	/* find our text mapping and replay it for the fake pid */
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uintptr_t me = (uintptr_t)&usyms_probe_fn;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &off) == 3 &&
		    s <= me && me < e)
			usyms_add_mapping(u, gone, s, e - s, off, st.st_dev,
					  st.st_ino, exe);
	}
	if (f)
		fclose(f);
	usyms_exec(u, gone); /* a late exec record keeps the new mappings */
	char *s = resolve(u, gone, me + 1, true, NULL);
	CHECK(s && !strcmp(s, "usyms_probe_fn+1"));
	/* a child forked by it shares them */
	usyms_fork(u, gone, gone + 1);
	s = resolve(u, gone + 1, me, false, NULL);
	CHECK(s && !strcmp(s, "usyms_probe_fn"));
	usyms_free(u);
}

static char *render(bool svg, const struct flame_line *l, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (svg)
		flamegraph_svg(f, l, n, "T<1>");
	else
		flamegraph_folded(f, l, n);
	fclose(f);
	return buf;
}

TEST(folded_and_svg)
{
	struct flame_line l[] = {
		{ (char *)"sh;main;a", 3 },
		{ (char *)"sh;main;b</script>\"", 2 },
	};
	char *s = render(false, l, 2);
	CHECK_STR(s, "sh;main;a 3\nsh;main;b</script>\" 2\n");
	free(s);
	s = render(true, l, 2);
	CHECK(strstr(s, "<svg ") && strstr(s, "</svg>\n"));
	CHECK(strstr(s, "[\"sh;main;a\", 3],\n"));
	/* names cannot close the script or the CDATA section */
	CHECK(strstr(s, "b\\u003c/script\\u003e\\u0022\", 2]\n"));
	CHECK(strstr(s, ">T&lt;1></text>"));
	CHECK(!strstr(s, "http://") || strstr(s, "xmlns=\"http://www.w3.org/2000/svg\""));
	free(s);
}

int main(void)
{
	RUN(own_process);
	RUN(vdso_from_our_own);
	RUN(recorded_mappings_of_a_gone_pid);
	RUN(folded_and_svg);
	return check_done();
}
