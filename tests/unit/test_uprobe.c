/* The pieces of uprobe, USDT and kprobe support that need no kernel: USDT
 * argument specs and notes (of this very binary), register names, library
 * name matching, and when kprobes fall back to fentry. */
#include "check.h"

#include <errno.h>
#include <linux/ptrace.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

#include "kernel/elfsym.h"
#include "kernel/regs.h"
#include "kernel/usdt.h"
#include "kernel/usrpath.h"
#include "kernel/x86insn.h"
#include "probes/impl.h"

TEST(usdt_arg_specs)
{
	struct usdt_arg a;
	CHECK(usdt_parse_arg("-4@%eax", &a) == 0);
	CHECK(a.kind == USDT_ARG_REG && a.size == 4 && a.is_signed);
	CHECK(a.reg == offsetof(struct pt_regs, rax));
	CHECK(usdt_parse_arg("8@%r8", &a) == 0);
	CHECK(a.kind == USDT_ARG_REG && a.size == 8 && !a.is_signed);
	CHECK(a.reg == offsetof(struct pt_regs, r8));
	CHECK(usdt_parse_arg("-4@$-1", &a) == 0);
	CHECK(a.kind == USDT_ARG_CONST && a.val == -1);
	CHECK(usdt_parse_arg("-8@$1000000000000", &a) == 0);
	CHECK(a.kind == USDT_ARG_CONST && a.val == 1000000000000LL);
	CHECK(usdt_parse_arg("8@-8(%rbp)", &a) == 0);
	CHECK(a.kind == USDT_ARG_MEM && a.val == -8);
	CHECK(a.reg == offsetof(struct pt_regs, rbp));
	CHECK(usdt_parse_arg("2@(%r12)", &a) == 0);
	CHECK(a.kind == USDT_ARG_MEM && a.val == 0 && a.size == 2);
	CHECK(a.reg == offsetof(struct pt_regs, r12));
	/* well-formed but unreadable here */
	CHECK(usdt_parse_arg("8@counter(%rip)", &a) == 0);
	CHECK(a.kind == USDT_ARG_BAD);
	/* base + index * scale */
	CHECK(usdt_parse_arg("4@8(%rax,%rbx,4)", &a) == 0);
	CHECK(a.kind == USDT_ARG_MEM && a.val == 8 && a.scale == 4);
	CHECK(a.reg == offsetof(struct pt_regs, rax));
	CHECK(a.index == offsetof(struct pt_regs, rbx));
	CHECK(usdt_parse_arg("8@-88(%rsp,%rax,8)", &a) == 0);
	CHECK(a.kind == USDT_ARG_MEM && a.val == -88 && a.scale == 8);
	/* constants cut to the argument's size: gcc writes unsigned ones
	 * signed */
	CHECK(usdt_parse_arg("4@$-202182160", &a) == 0);
	CHECK(a.kind == USDT_ARG_CONST && a.val == 4092785136LL);
	CHECK(usdt_parse_arg("-4@$-202182160", &a) == 0);
	CHECK(a.val == -202182160);
	CHECK(usdt_parse_arg("1@$-16", &a) == 0);
	CHECK(a.val == 240);
	CHECK(usdt_parse_arg("-2@$-3600", &a) == 0);
	CHECK(a.val == -3600);
	CHECK(usdt_parse_arg("4@8(%rax,%rbx,3)", &a) == -EINVAL);
	/* malformed */
	CHECK(usdt_parse_arg("3@%eax", &a) == -EINVAL);
	CHECK(usdt_parse_arg("4@%nosuch", &a) == -EINVAL);
	CHECK(usdt_parse_arg("4@%ah", &a) == -EINVAL);
}

int sondetest_with_probe(int x);
__attribute__((noinline)) int sondetest_with_probe(int x)
{
	long y = x * 7L;
	DTRACE_PROBE2(sondetest, twoargs, x, y);
	return (int)y;
}

TEST(usdt_notes_of_self)
{
	struct elf_syms *es;
	CHECK(sondetest_with_probe(3) == 21);
	CHECK(elfsym_load("/proc/self/exe", &es) == 0);
	if (check_failed_)
		return;
	struct usdt_probes up;
	CHECK(usdt_load("/proc/self/exe", es, &up) == 0);
	const struct usdt_probe *p = NULL;
	for (uint32_t i = 0; i < up.n; i++)
		if (!strcmp(up.probes[i].provider, "sondetest") &&
		    !strcmp(up.probes[i].name, "twoargs"))
			p = &up.probes[i];
	CHECK(p != NULL);
	if (p) {
		CHECK(p->nargs == 2 && p->sema_off == 0);
		CHECK(p->args[0].size == 4 && p->args[0].is_signed);
		CHECK(p->args[1].size == 8 && p->args[1].is_signed);
		/* the site is inside sondetest_with_probe, in file offsets */
		const struct elf_sym *f = elfsym_find(es, "sondetest_with_probe");
		uint64_t start, vaddr;
		CHECK(f && elfsym_vaddr_to_off(es, f->addr, &start) == 0);
		CHECK(elfsym_off_to_vaddr(es, p->pc_off, &vaddr) == 0);
		CHECK(f && elfsym_lookup(es, vaddr, NULL) == f);
	}
	usdt_free(&up);
	elfsym_free(es);
}

TEST(register_names)
{
	CHECK(regs_offset("ip") == (int)offsetof(struct pt_regs, rip));
	CHECK(regs_offset("di") == (int)offsetof(struct pt_regs, rdi));
	CHECK(regs_offset("orig_ax") == (int)offsetof(struct pt_regs, orig_rax));
	CHECK(regs_offset("rip") == -ENOENT); /* bpftrace's names only */
	CHECK(regs_asm_offset("r8d") == (int)offsetof(struct pt_regs, r8));
	CHECK(regs_asm_offset("r15w") == (int)offsetof(struct pt_regs, r15));
	CHECK(regs_asm_offset("sil") == (int)offsetof(struct pt_regs, rsi));
	CHECK(regs_asm_offset("r16") == -ENOENT);
	CHECK(regs_nargs() == 6);
	CHECK(regs_arg_offset(3) == offsetof(struct pt_regs, rcx));
}

TEST(library_names)
{
	CHECK(usrpath_lib_matches("libc", "libc.so.6"));
	CHECK(usrpath_lib_matches("c", "libc.so.6"));
	CHECK(usrpath_lib_matches("libc.so.6", "libc.so.6"));
	CHECK(!usrpath_lib_matches("libc", "libcap.so.2"));
	CHECK(!usrpath_lib_matches("c", "libcrypt.so.1"));
	char path[4096];
	CHECK(usrpath_resolve("./rel/path", 0, path, sizeof(path)) == 0);
	CHECK_STR(path, "./rel/path");
	CHECK(usrpath_resolve("no_such_library_xyz", 0, path,
			      sizeof(path)) == -ENOENT);
	int err = usrpath_resolve("libc", 0, path, sizeof(path));
	CHECK(err == 0 && strstr(path, "/libc.so"));
}

TEST(kprobe_fallback)
{
	CHECK_STR(probe_kprobe_fallback(false, true, "kprobe", "vfs_read"),
		  "fentry");
	CHECK_STR(probe_kprobe_fallback(false, true, "kretprobe", "vfs_*"),
		  "fexit");
	CHECK(!probe_kprobe_fallback(true, true, "kprobe", "vfs_read"));
	CHECK(!probe_kprobe_fallback(false, false, "kprobe", "vfs_read"));
	CHECK(!probe_kprobe_fallback(false, true, "kprobe", "vfs_read+4"));
}

/* Runs the -l hook of provider on pattern; returns what it printed. */
static char *listed(const char *provider, const char *pattern)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct provider *p = probe_provider(provider);
	CHECK(f && p && p->list && p->list(pattern, false, f) == 0);
	if (f)
		fclose(f);
	return buf;
}

TEST(listing)
{
	char *s = listed("uprobe", "uprobe:/proc/self/exe:sondetest_*");
	CHECK_STR(s, "uprobe:/proc/self/exe:sondetest_with_probe\n");
	free(s);
	s = listed("usdt", "usdt:/proc/self/exe:sondetest:*");
	CHECK_STR(s, "usdt:/proc/self/exe:sondetest:twoargs\n");
	free(s);
	s = listed("usdt", "usdt:/proc/self/exe:twoargs");
	CHECK_STR(s, "usdt:/proc/self/exe:sondetest:twoargs\n");
	free(s);
	s = listed("uprobe", "uprobe:*");
	CHECK_STR(s, "");
	free(s);
}

/* Instruction lengths against what objdump decodes (the decoder also
 * agrees with objdump on every instruction of bash, libc and libLLVM). */
TEST(x86_lengths)
{
	static const struct {
		uint8_t b[15];
		size_t len;
	} cases[] = {
		{ { 0x41, 0x57 }, 2 },                         /* push %r15 */
		{ { 0x48, 0x89, 0xe5 }, 3 },                   /* mov %rsp,%rbp */
		{ { 0x48, 0x83, 0xec, 0x28 }, 4 },             /* sub $0x28,%rsp */
		{ { 0x48, 0x8d, 0x05, 1, 2, 3, 4 }, 7 },       /* lea rip+d32 */
		{ { 0x8b, 0x44, 0x24, 0x08 }, 4 },             /* mov 8(%rsp),%eax */
		{ { 0x8b, 0x04, 0x25, 1, 2, 3, 4 }, 7 },       /* SIB, no base */
		{ { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 }, 10 }, /* movabs */
		{ { 0x66, 0xb8, 1, 2 }, 4 },                   /* mov $i16,%ax */
		{ { 0xe8, 1, 2, 3, 4 }, 5 },                   /* call rel32 */
		{ { 0x0f, 0x84, 1, 2, 3, 4 }, 6 },             /* je rel32 */
		{ { 0xf6, 0x45, 0xf8, 0x01 }, 4 },             /* testb $1,-8(%rbp) */
		{ { 0xf7, 0xd8 }, 2 },                         /* neg %eax */
		{ { 0xc5, 0xf8, 0x77 }, 3 },                   /* vzeroupper */
		{ { 0xc5, 0xfd, 0x6f, 0x06 }, 4 },             /* vmovdqa (%rsi) */
		{ { 0xc4, 0xe3, 0x7d, 0x39, 0xc1, 0x01 }, 6 }, /* vextracti128 */
		{ { 0xf3, 0x0f, 0x1e, 0xfa }, 4 },             /* endbr64 */
		{ { 0x66, 0x0f, 0x1f, 0x44, 0, 0 }, 6 },       /* nopw */
		{ { 0x06 }, 0 },                               /* not in 64-bit */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		CHECK(x86insn_len(cases[i].b, sizeof(cases[i].b)) ==
		      cases[i].len);
	/* push %r15; mov %rsp,%rbp: 2 and 5 start, 1 and 3 do not */
	static const uint8_t fn[] = { 0x41, 0x57, 0x48, 0x89, 0xe5, 0xc3 };
	CHECK(x86insn_boundary(fn, sizeof(fn), 2) == X86INSN_START);
	CHECK(x86insn_boundary(fn, sizeof(fn), 5) == X86INSN_START);
	CHECK(x86insn_boundary(fn, sizeof(fn), 1) == X86INSN_MIDDLE);
	CHECK(x86insn_boundary(fn, sizeof(fn), 3) == X86INSN_MIDDLE);
	static const uint8_t junk[] = { 0x06, 0x90 };
	CHECK(x86insn_boundary(junk, sizeof(junk), 1) == X86INSN_UNKNOWN);
}

int main(void)
{
	RUN(x86_lengths);
	RUN(usdt_arg_specs);
	RUN(usdt_notes_of_self);
	RUN(register_names);
	RUN(library_names);
	RUN(kprobe_fallback);
	RUN(listing);
	return check_done();
}
