/* Whether bpf_probe_write_user writes to the strings a process got from
 * exec (its argv) before the process has written their page itself: for
 * the REQUIRES word writeuser (common.sh) of the write_user() tests, whose
 * -c child has its argv rewritten. sonde --info's probe_write_user only
 * says the helper is offered.
 *
 * The helper writes with page faults disabled, so only to a page whose
 * page-table entry is already writable. exec makes the new stack with
 * mprotect (setup_arg_pages), and before Linux 6.0 ("mm/mprotect: try
 * avoiding write faults for exclusive anonymous pages when changing
 * protection") mprotect leaves a private page's entry write-protected
 * until a write fault: so there (Debian 11's 5.10) the argv strings can
 * be written only when the kernel's own writes below them at exec (the
 * platform string, after a random drop of up to 8 KiB) hit their page,
 * about half the time.
 *
 * The canary makes such a page (anonymous, written, mprotected read-only
 * and back), puts a uprobe (the uprobe PMU, as sonde does) on its own
 * poke(target), with a program that writes 'b' over target[0] ("a"), and
 * looks at target afterwards. It prints "writes" (exit 0) or "no write"
 * (exit 1), or on stderr why it cannot tell (exit 2). Run as root.
 *   cc -O2 -o wucanary wucanary.c
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "uprobe_self.h"

/* Where the program finds poke's first argument in its context, the
 * struct pt_regs of the probed task: di on x86_64, regs[0] on arm64. */
#if defined(__x86_64__)
#define PARM1_OFF 112 /* offsetof(struct pt_regs, di) */
#elif defined(__aarch64__)
#define PARM1_OFF 0 /* offsetof(struct pt_regs, regs[0]) */
#endif

/* The probed function: not inlined, and p used by an asm the compiler
 * must keep, so that the call stays, to this very symbol, with p in the
 * first argument register. */
__attribute__((noinline)) void poke(char *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static int cannot(const char *why, const char *detail)
{
	fprintf(stderr, "wucanary: %s%s%s\n", why, detail ? ": " : "", detail ? detail : "");
	return 2;
}

int main(void)
{
#ifndef PARM1_OFF
	return cannot("no canary for this architecture (x86_64 and arm64 only)", NULL);
#else
	/* The program: r1 = PARM1; *(u64 *)(fp - 8) = 'b'; r0 =
	 * probe_write_user(r1, fp - 8, 1); return 1. Its return value makes
	 * the uprobe count the hit (0 would drop it), which tells that it ran. */
	struct bpf_insn insns[] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 1, .src_reg = 1, .off = PARM1_OFF },
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = 10, .off = -8, .imm = 'b' },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 2, .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 3, .imm = 1 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_probe_write_user },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	/* Before 5.11 programs are charged to RLIMIT_MEMLOCK (64 KiB by
	 * default then): lift it, as sonde does. */
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	setrlimit(RLIMIT_MEMLOCK, &rl);

	/* kern_version: kernels before 5.0 refuse a kprobe-type program
	 * (which a uprobe program is) unless it is LINUX_VERSION_CODE. */
	struct utsname u;
	unsigned a = 0, b = 0, c = 0;
	if (uname(&u) == 0)
		sscanf(u.release, "%u.%u.%u", &a, &b, &c);
	static char log[65536];
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (uintptr_t)"GPL"; /* probe_write_user is GPL-only */
	attr.log_level = 1;
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.kern_version = (a << 16) + (b << 8) + (c > 255 ? 255 : c);
	int prog = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (prog < 0) {
		int e = errno;
		fputs(log, stderr);
		return cannot("loading the program", strerror(e));
	}

	/* The probe: this process only (pid 0, any CPU), counting its hits. */
	struct perf_event_attr pa;
	const char *detail, *why = uprobe_self((uintptr_t)poke, &pa, &detail);
	if (why)
		return cannot(why, detail);
	pa.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	if (fd < 0)
		return cannot("perf_event_open of the uprobe", strerror(errno));
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) < 0)
		return cannot("attaching the program to the uprobe", strerror(errno));
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return cannot("enabling the uprobe", strerror(errno));

	/* target: a page as exec leaves the argv strings, written (so this
	 * process's own, no copy-on-write pending) and mprotected since. (A
	 * read-write to read-write mprotect would be a no-op: exec's changes
	 * other flags of the stack.) */
	char *target = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (target == MAP_FAILED)
		return cannot("mmap of the target page", strerror(errno));
	strcpy(target, "a");
	if (mprotect(target, 4096, PROT_READ) < 0 || mprotect(target, 4096, PROT_READ | PROT_WRITE) < 0)
		return cannot("mprotect of the target page", strerror(errno));
	poke(target);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	/* The hit count (the program returned 1): 0 means it never ran. */
	uint64_t hits = 0;
	if (read(fd, &hits, sizeof(hits)) != sizeof(hits))
		return cannot("reading the uprobe's count", strerror(errno));
	char now = *(volatile char *)target;
	if (now == 'b') {
		puts("writes");
		return 0;
	}
	if (hits == 0)
		return cannot("the uprobe never fired", NULL);
	puts("no write");
	return 1;
#endif
}
