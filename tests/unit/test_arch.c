/* The per-architecture tables (kernel/arch.h) against references sonde did
 * not write: aarch64's from Debian's cross toolchain (its kernel headers,
 * and the compiler itself for offsets, numbers and USDT operands, read back
 * from its assembly output or with readelf), x86_64's from this host's
 * headers when the host is one. */
#include "check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <asm/unistd_64.h>
#include <linux/ptrace.h>
#include <stddef.h>
#endif

#include "kernel/arch.h"
#include "kernel/elfsym.h"
#include "kernel/regs.h"
#include "kernel/sysnr.h"
#include "kernel/ucaller.h"
#include "kernel/usdt.h"

#define A64_CC "aarch64-linux-gnu-gcc"

static char tmpdir[] = "/tmp/sonde-arch-XXXXXX";

static bool have_cross(void)
{
	return system("command -v " A64_CC " >/dev/null 2>&1") == 0;
}

/* The whole output of cmd, or NULL when it fails. */
static char *run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 2)
			buf = realloc(buf, cap *= 2);
	}
	if (pclose(p) != 0 || !buf) {
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	return buf;
}

static const char *write_src(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

/* The .xword values of the cross compiler's assembly for src, in order;
 * returns how many (at most max), or -1. */
static int xwords(const char *src, long *out, int max)
{
	const char *path = write_src("probe.c", src);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), A64_CC " -S -o - %s 2>/dev/null", path);
	char *as = run(cmd);
	if (!as)
		return -1;
	int n = 0;
	for (char *l = strstr(as, ".xword"); l && n < max;
	     l = strstr(l + 1, ".xword"))
		out[n++] = strtol(l + 6, NULL, 0);
	free(as);
	return n;
}

/* struct user_pt_regs (arm64's <asm/ptrace.h>): x0..x30, sp, pc, pstate;
 * and that a kprobe's or uprobe's BPF context is that struct
 * (<asm/bpf_perf_event.h>: bpf_user_pt_regs_t). */
static long a64_off[34];
static int a64_ctx_is_user;

static bool load_a64_offsets(void)
{
	char src[4096];
	int n = snprintf(src, sizeof(src),
			 "#include <stddef.h>\n#include <asm/ptrace.h>\n"
			 "#include <asm/bpf_perf_event.h>\n"
			 "#define O(f) offsetof(struct user_pt_regs, f)\n"
			 "unsigned long o[] = {\n");
	for (int i = 0; i < 31; i++)
		n += snprintf(src + n, sizeof(src) - n, "O(regs[%d]),", i);
	snprintf(src + n, sizeof(src) - n,
		 "O(sp), O(pc), O(pstate), __builtin_types_compatible_p("
		 "bpf_user_pt_regs_t, struct user_pt_regs) };\n");
	long v[35];
	if (xwords(src, v, 35) != 35)
		return false;
	memcpy(a64_off, v, sizeof(a64_off));
	a64_ctx_is_user = (int)v[34];
	return true;
}

TEST(aarch64_pt_regs)
{
	if (!have_cross())
		SKIP(A64_CC " is not installed (scripts/deps.sh)");
	CHECK(load_a64_offsets());
	CHECK(a64_ctx_is_user == 1);
	const struct regs_abi *a = regs_abi(ARCH_AARCH64);
	char name[16];
	for (int i = 0; i <= 30; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		CHECK(regs_abi_offset(a, name) == a64_off[i]);
		CHECK(a->asm_offset(name) == a64_off[i]);
		snprintf(name, sizeof(name), "r%d", i); /* bpftrace's name */
		CHECK(regs_abi_offset(a, name) == a64_off[i]);
		snprintf(name, sizeof(name), "w%d", i); /* the low half */
		CHECK(a->asm_offset(name) == a64_off[i]);
	}
	CHECK(regs_abi_offset(a, "sp") == a64_off[31]);
	CHECK(regs_abi_offset(a, "pc") == a64_off[32]);
	CHECK(regs_abi_offset(a, "pstate") == a64_off[33]);
	CHECK(a->asm_offset("sp") == a64_off[31]);
	CHECK(a->sp == a64_off[31] && a->pc == a64_off[32]);
	/* AAPCS64: x0..x7 carry the arguments, x0 the result; the stack
	 * arguments start at sp (the return address is in x30) */
	CHECK(a->nargs == 8);
	for (uint32_t i = 0; i < a->nargs; i++)
		CHECK(a->args[i] == a64_off[i]);
	CHECK(a->retval == a64_off[0]);
	CHECK(a->stack_args == 0);
	CHECK(a->link == a64_off[30]); /* the return address: in x30 */
	/* not registers of this machine */
	CHECK(regs_abi_offset(a, "x31") == -ENOENT);
	CHECK(regs_abi_offset(a, "x01") == -ENOENT);
	CHECK(regs_abi_offset(a, "ip") == -ENOENT);
	CHECK(regs_abi_offset(a, "di") == -ENOENT);
	CHECK(a->asm_offset("r0") == -ENOENT); /* no such operand */
}

TEST(x86_64_pt_regs)
{
#if defined(__x86_64__)
	const struct regs_abi *a = regs_abi(ARCH_X86_64);
	CHECK(regs_abi_offset(a, "ip") == (int)offsetof(struct pt_regs, rip));
	CHECK(regs_abi_offset(a, "sp") == (int)offsetof(struct pt_regs, rsp));
	CHECK(regs_abi_offset(a, "cs") == (int)offsetof(struct pt_regs, cs));
	CHECK(regs_abi_offset(a, "r15") == (int)offsetof(struct pt_regs, r15));
	CHECK(regs_abi_offset(a, "ss") == (int)offsetof(struct pt_regs, ss));
	CHECK(regs_abi_offset(a, "x0") == -ENOENT);
	CHECK(a->asm_offset("r12d") == (int)offsetof(struct pt_regs, r12));
	CHECK(a->asm_offset("ebp") == (int)offsetof(struct pt_regs, rbp));
	const uint32_t args[] = {
		offsetof(struct pt_regs, rdi), offsetof(struct pt_regs, rsi),
		offsetof(struct pt_regs, rdx), offsetof(struct pt_regs, rcx),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	CHECK(a->nargs == 6);
	for (uint32_t i = 0; i < 6; i++)
		CHECK(a->args[i] == args[i]);
	CHECK(a->retval == offsetof(struct pt_regs, rax));
	CHECK(a->pc == offsetof(struct pt_regs, rip));
	CHECK(a->stack_args == 8);
	CHECK(a->link == -1); /* the return address: at sp */
#else
	SKIP("the x86_64 pt_regs reference is an x86_64 host's header");
#endif
}

/* The kernel's own table, as it builds it: <asm/unistd.h> with __SYSCALL
 * defined, preprocessed by the cross compiler, gives each number and the
 * function its syscall tracepoints are named after (sys_newfstat:
 * syscalls:sys_enter_newfstat). Every one must be found by that name, at
 * that number, and syscall_name() of the number must name the syscall. */
TEST(aarch64_syscalls)
{
	if (!have_cross())
		SKIP(A64_CC " is not installed (scripts/deps.sh)");
	const char *path = write_src("sc.c",
		"#define __SYSCALL(nr, sym) SONDE_SC nr sym\n"
		"#include <asm/unistd.h>\n");
	char cmd[512];
	snprintf(cmd, sizeof(cmd), A64_CC " -E -P %s 2>/dev/null", path);
	char *out = run(cmd);
	CHECK(out);
	if (!out)
		return;
	int seen = 0;
	for (char *l = strstr(out, "SONDE_SC "); l;
	     l = strstr(l + 1, "SONDE_SC ")) {
		int nr;
		char sym[64];
		if (sscanf(l, "SONDE_SC %d sys_%63[a-z0-9_]", &nr, sym) != 2)
			continue;
		if (!strcmp(sym, "ni_syscall"))
			continue;
		seen++;
		int got = sysnr_lookup_arch(ARCH_AARCH64, sym);
		if (got != nr)
			printf("# %s: %d, the header's %d\n", sym, got, nr);
		CHECK(got == nr);
		const char *name = sysnr_name_arch(ARCH_AARCH64, nr);
		CHECK(name && sysnr_lookup_arch(ARCH_AARCH64, name) == nr);
	}
	free(out);
	CHECK(seen > 250);
	/* the asm-generic table has none of these */
	CHECK(sysnr_lookup_arch(ARCH_AARCH64, "open") == -1);
	CHECK(sysnr_lookup_arch(ARCH_AARCH64, "fork") == -1);
	CHECK(sysnr_lookup_arch(ARCH_AARCH64, "stat") == -1);
	/* and a number past the table (the newer syscalls') has a name */
	CHECK(sysnr_name_arch(ARCH_AARCH64, 452) &&
	      !strcmp(sysnr_name_arch(ARCH_AARCH64, 452), "fchmodat2"));
}

TEST(x86_64_syscalls)
{
#if defined(__x86_64__)
	CHECK(sysnr_lookup_arch(ARCH_X86_64, "open") == __NR_open);
	CHECK(sysnr_lookup_arch(ARCH_X86_64, "openat") == __NR_openat);
	CHECK(sysnr_lookup_arch(ARCH_X86_64, "newfstat") == __NR_fstat);
	CHECK(sysnr_lookup_arch(ARCH_X86_64, "umount") == __NR_umount2);
	CHECK(sysnr_lookup_arch(ARCH_X86_64, "newfstatat") == __NR_newfstatat);
	CHECK(!strcmp(sysnr_name_arch(ARCH_X86_64, __NR_read), "read"));
	CHECK(!strcmp(sysnr_name_arch(ARCH_X86_64, __NR_fork), "fork"));
	CHECK(sysnr_lookup(("execve")) == __NR_execve);
#else
	SKIP("the x86_64 syscall reference is an x86_64 host's header");
#endif
}

/* One USDT argument as readelf prints it, decoded here as libbpf's usdt.c
 * reads aarch64's: "[reg, off]", "[reg]", a constant, or a register. */
static void check_a64_arg(const char *text, const struct usdt_arg *a)
{
	int size, n = 0;
	char reg[16];
	long off = 0;
	long want_reg = -1;
	enum usdt_arg_kind kind;
	if (sscanf(text, "%d@[%15[a-z0-9], %ld]%n", &size, reg, &off, &n) == 3 &&
	    !text[n])
		kind = USDT_ARG_MEM;
	else if (n = 0, sscanf(text, "%d@[%15[a-z0-9]]%n", &size, reg, &n) == 2 &&
		 !text[n])
		kind = USDT_ARG_MEM, off = 0;
	else if (n = 0, sscanf(text, "%d@%ld%n", &size, &off, &n) == 2 &&
		 !text[n])
		kind = USDT_ARG_CONST;
	else if (n = 0, sscanf(text, "%d@%15[a-z0-9]%n", &size, reg, &n) == 2 &&
		 !text[n])
		kind = USDT_ARG_REG;
	else {
		printf("# unknown form %s\n", text);
		CHECK(0);
		return;
	}
	if (kind != USDT_ARG_CONST) {
		int r;
		if (!strcmp(reg, "sp"))
			want_reg = a64_off[31];
		else if (sscanf(reg, "x%d", &r) == 1 && r >= 0 && r <= 30)
			want_reg = a64_off[r];
	}
	if (a->kind != kind)
		printf("# %s: kind %d, want %d\n", text, a->kind, kind);
	CHECK(a->kind == kind);
	CHECK(a->size == abs(size) && a->is_signed == (size < 0));
	if (kind == USDT_ARG_CONST) {
		/* cut to size as the probe's argument holds it */
		long v = off;
		if (abs(size) < 8) {
			unsigned shift = 64 - 8 * abs(size);
			v = size < 0 ? (long)((unsigned long)off << shift) >> shift
				     : (long)(((unsigned long)off << shift) >> shift);
		}
		CHECK(a->val == v);
	} else {
		CHECK(want_reg >= 0 && a->reg == (uint32_t)want_reg);
		if (kind == USDT_ARG_MEM)
			CHECK(a->val == off && a->scale == 0);
	}
}

/* A program with sdt.h probes of registers, constants and memory operands,
 * compiled for aarch64 at -O0 and -O2: the probes sonde reads from its
 * notes are readelf -n's, argument for argument. */
static const char usdt_prog[] =
	"#include <sys/sdt.h>\n"
	"struct s { long a; int b; short c; };\n"
	"__attribute__((noinline)) long f(int a, long b, short c,\n"
	"				  struct s *p, char *str)\n"
	"{\n"
	"	long loc[3] = { b, a, c };\n"
	"	volatile int vi = a * 3;\n"
	"	DTRACE_PROBE5(sonde, regs, a, b, c, p, str);\n"
	"	DTRACE_PROBE4(sonde, consts, 5, -1, 4096, (unsigned char)200);\n"
	"	DTRACE_PROBE3(sonde, mem, p->a, p->b, p->c);\n"
	"	DTRACE_PROBE2(sonde, stack, loc[1], vi);\n"
	"	return loc[0] + loc[2];\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	struct s s = { 1, 2, 3 };\n"
	"	return (int)f(argc, 7, 9, &s, argv[0]);\n"
	"}\n";

static void check_usdt_binary(const char *bin)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "readelf -n %s", bin);
	char *notes = run(cmd);
	CHECK(notes);
	struct elf_syms *es = NULL;
	CHECK(elfsym_load(bin, &es) == 0);
	if (!notes || !es) {
		free(notes);
		elfsym_free(es);
		return;
	}
	CHECK(!elfsym_native(es) == (arch_build() != ARCH_AARCH64));
	CHECK(!strcmp(elfsym_machine_name(es), "aarch64"));
	struct usdt_probes up;
	CHECK(usdt_load(bin, es, &up) == 0);
	CHECK(up.known_arch && up.arch == ARCH_AARCH64);
	CHECK(up.n == 4);
	uint32_t checked = 0;
	for (uint32_t i = 0; i < up.n; i++) {
		const struct usdt_probe *p = &up.probes[i];
		char key[128];
		snprintf(key, sizeof(key), "Name: %s\n", p->name);
		char *at = strstr(notes, key), *args = NULL;
		CHECK(at && (args = strstr(at, "Arguments: ")));
		if (!at || !args)
			continue;
		args += strlen("Arguments: ");
		size_t len = strcspn(args, "\n");
		/* the arguments, joined again, are readelf's line */
		char joined[512] = "";
		for (uint32_t k = 0; k < p->nargs; k++) {
			if (k)
				strcat(joined, " ");
			strncat(joined, p->args[k].text,
				sizeof(joined) - strlen(joined) - 1);
			check_a64_arg(p->args[k].text, &p->args[k]);
			checked++;
		}
		CHECK(strlen(joined) == len && !strncmp(joined, args, len));
	}
	CHECK(checked == 14);
	usdt_free(&up);
	elfsym_free(es);
	free(notes);
}

TEST(aarch64_usdt)
{
	if (!have_cross())
		SKIP(A64_CC " is not installed (scripts/deps.sh)");
	if (!a64_off[31])
		CHECK(load_a64_offsets());
	/* sdt.h is systemtap-sdt-dev's, in the host's multiarch directory:
	 * the cross compiler does not look there, so a copy */
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/sys && cp /usr/include/*/sys/sdt.h "
		 "/usr/include/*/sys/sdt-config.h %s/sys/ 2>/dev/null || "
		 "cp /usr/include/sys/sdt.h /usr/include/sys/sdt-config.h "
		 "%s/sys/", tmpdir, tmpdir, tmpdir);
	if (system(cmd) != 0)
		SKIP("<sys/sdt.h> is not installed (systemtap-sdt-dev)");
	const char *src = write_src("usdt.c", usdt_prog);
	CHECK(src);
	const char *opts[] = { "-O0", "-O2" };
	for (int i = 0; i < 2; i++) {
		char bin[300];
		snprintf(bin, sizeof(bin), "%s/usdt%s", tmpdir, opts[i]);
		snprintf(cmd, sizeof(cmd), A64_CC " %s -I%s -o %s %s/usdt.c",
			 opts[i], tmpdir, bin, tmpdir);
		CHECK(system(cmd) == 0);
		check_usdt_binary(bin);
	}
}

/* The spec forms one at a time, and what is not aarch64's. */
TEST(aarch64_usdt_forms)
{
	const struct regs_abi *a = regs_abi(ARCH_AARCH64);
	struct usdt_arg u;
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "-4@[sp, 12]", &u) == 0);
	CHECK(u.kind == USDT_ARG_MEM && u.reg == a->sp && u.val == 12);
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "8@[x29, -16]", &u) == 0);
	CHECK(u.kind == USDT_ARG_MEM && u.reg == 29 * 8 && u.val == -16);
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "4@[x1]", &u) == 0);
	CHECK(u.kind == USDT_ARG_MEM && u.reg == 8 && u.val == 0);
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "-8@x30", &u) == 0);
	CHECK(u.kind == USDT_ARG_REG && u.reg == 30 * 8 && u.is_signed);
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "1@-56", &u) == 0);
	CHECK(u.kind == USDT_ARG_CONST && u.val == 200);
	/* x86_64's forms, and registers aarch64 lacks, are refused */
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "-4@%eax", &u) == -EINVAL);
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "8@-8(%rbp)", &u) == -EINVAL);
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "8@x31", &u) == -EINVAL);
	CHECK(usdt_parse_arg_arch(ARCH_AARCH64, "8@[x3, 8", &u) == -EINVAL);
	/* and aarch64's by x86_64 */
	CHECK(usdt_parse_arg_arch(ARCH_X86_64, "8@x0", &u) != 0 ||
	      u.kind == USDT_ARG_BAD);
}

/* An x86_64 sonde refuses a uprobe or USDT probe in aarch64's binary (its
 * offsets, registers and instructions are another machine's), located and
 * naming the machine: the build's sonde, beside this test's directory. */
TEST(foreign_machine_refused)
{
	if (arch_build() != ARCH_X86_64)
		SKIP("the foreign binary at hand is aarch64's");
	char bin[300], exe[4096], cmd[8192];
	snprintf(bin, sizeof(bin), "%s/usdt-O2", tmpdir);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
	if (n <= 0 || access(bin, R_OK))
		SKIP("no aarch64 binary (aarch64_usdt did not build one)");
	exe[n] = 0;
	char *slash = strstr(exe, "/tests/unit/");
	if (!slash)
		SKIP("this test is not in BUILD/tests/unit");
	strcpy(slash, "/sonde");
	if (access(exe, X_OK))
		SKIP("no BUILD/sonde beside this test");
	const char *probes[] = { "uprobe:%s:f", "usdt:%s:sonde:regs" };
	for (int i = 0; i < 2; i++) {
		char ap[400];
		snprintf(ap, sizeof(ap), probes[i], bin);
		snprintf(cmd, sizeof(cmd), "%s -e '%s { exit(); }' 2>&1; "
			 "echo rc=$?", exe, ap);
		char *out = run(cmd);
		CHECK(out);
		if (!out)
			continue;
		char want[600];
		snprintf(want, sizeof(want), "stdin:1:1-%zu: ERROR: %s target "
			 "file '%s' is a binary of another machine (aarch64): "
			 "this sonde traces x86_64\n", strlen(ap) + 1,
			 i ? "usdt" : "uprobe", bin);
		if (!strstr(out, want))
			printf("# got: %s", out);
		CHECK(strstr(out, want) && strstr(out, "rc=1\n"));
		free(out);
	}
}

/* The .text bytes of what cmd (a compiler reading "-", writing obj.o)
 * makes of text; returns how many (at most max), or -1. */
static int text_bytes(const char *cc, const char *objcopy, const char *flags,
		      const char *lang, const char *text, unsigned char *out,
		      int max)
{
	const char *src = write_src("text.in", text);
	char cmd[768];
	snprintf(cmd, sizeof(cmd),
		 "%s %s -x %s -c -o %s/text.o %s 2>/dev/null && "
		 "%s -O binary -j .text %s/text.o %s/text.bin", cc, flags,
		 lang, tmpdir, src, objcopy, tmpdir, tmpdir);
	if (system(cmd) != 0)
		return -1;
	char path[256];
	snprintf(path, sizeof(path), "%s/text.bin", tmpdir);
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	int n = (int)fread(out, 1, (size_t)max, f);
	fclose(f);
	return n;
}

/* The entry rule of arm64 uprobes (kernel/ucaller.h: sonde adds the
 * caller from x30 there) against the cross assembler's encodings: each
 * instruction that only begins a function is one, the others are not;
 * and the first instruction of functions the cross compiler makes, with
 * frame pointers and with branch protection, is one. */
TEST(aarch64_entry_instructions)
{
	if (!have_cross())
		SKIP(A64_CC " is not installed (scripts/deps.sh)");
	static const char *const entry[] = {
		"paciasp", "pacibsp", "bti c", "bti jc",
		"stp x29, x30, [sp, #-16]!", "stp x29, x30, [sp, #-512]!",
	};
	static const char *const other[] = {
		"sub sp, sp, #32", "stp x29, x30, [sp, #16]", "mov x29, sp",
		"stp x19, x20, [sp, #-16]!", "stp x30, x29, [sp, #-16]!",
		"bti j", "nop", "ret", "ldp x29, x30, [sp], #16",
	};
	char text[1024] = "";
	size_t ne = sizeof(entry) / sizeof(*entry);
	size_t no = sizeof(other) / sizeof(*other);
	for (size_t i = 0; i < ne + no; i++) {
		strcat(text, i < ne ? entry[i] : other[i - ne]);
		strcat(text, "\n");
	}
	unsigned char b[4 * 32];
	int n = text_bytes(A64_CC, "aarch64-linux-gnu-objcopy", "",
			   "assembler", text, b, sizeof(b));
	CHECK(n == (int)(4 * (ne + no)));
	for (size_t i = 0; n == (int)(4 * (ne + no)) && i < ne + no; i++) {
		bool is = ucaller_is_entry(ARCH_AARCH64, b + 4 * i, 4);
		if (is != (i < ne))
			printf("# %s: %d\n", i < ne ? entry[i] : other[i - ne],
			       is);
		CHECK(is == (i < ne));
		CHECK(!ucaller_is_entry(ARCH_AARCH64, b + 4 * i, 3));
	}
	/* what the compiler begins a function that calls another with */
	static const char *const flags[] = {
		"-O2 -fno-omit-frame-pointer",
		"-O2 -fno-omit-frame-pointer -mbranch-protection=standard",
		"-O0",
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(*flags); i++) {
		n = text_bytes(A64_CC, "aarch64-linux-gnu-objcopy", flags[i],
			       "c", "extern int g(int);\n"
			       "int f(int x) { return g(x) + 1; }\n", b,
			       sizeof(b));
		CHECK(n >= 4 && ucaller_is_entry(ARCH_AARCH64, b, 4));
	}
}

/* x86_64's rule (the kernel's: push %rbp or endbr64), against this
 * host's assembler. */
TEST(x86_64_entry_instructions)
{
#if defined(__x86_64__)
	unsigned char b[64];
	int n = text_bytes("cc", "objcopy", "", "assembler",
			   "push %rbp\nendbr64\nmov %rsp, %rbp\nnop\n", b,
			   sizeof(b));
	CHECK(n == 1 + 4 + 3 + 1);
	if (n != 9)
		return;
	CHECK(ucaller_is_entry(ARCH_X86_64, b, 1));
	CHECK(ucaller_is_entry(ARCH_X86_64, b + 1, 4));
	CHECK(!ucaller_is_entry(ARCH_X86_64, b + 1, 3));
	CHECK(!ucaller_is_entry(ARCH_X86_64, b + 5, 3));
	CHECK(!ucaller_is_entry(ARCH_X86_64, b + 8, 1));
	/* arm64's rule is not x86's */
	CHECK(!ucaller_is_entry(ARCH_AARCH64, b + 1, 4));
#else
	SKIP("the x86_64 reference is an x86_64 host's assembler");
#endif
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(aarch64_pt_regs);
	RUN(x86_64_pt_regs);
	RUN(aarch64_syscalls);
	RUN(x86_64_syscalls);
	RUN(aarch64_usdt);
	RUN(aarch64_usdt_forms);
	RUN(foreign_machine_refused);
	RUN(aarch64_entry_instructions);
	RUN(x86_64_entry_instructions);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		return 1;
	return check_done();
}
