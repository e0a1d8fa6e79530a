/*
 * The stacks' typing rules (sema_stack.h), as bpftrace 0.26's stdlib.md
 * defines kstack, ustack and dw_ustack. A user stack is walked by frame
 * pointers (bpf_get_stack) or by sonde's DWARF unwinder in the kernel,
 * over tables made from each binary's .eh_frame (model/unwind.h): its
 * type then has stack_dwarf, which codegen and the printers read. That is
 * dw_ustack's, and every ustack's under ustack_unwind = dwarf.
 */
#include "lang/sema_stack.h"

#include <string.h>

#include "kernel/arch.h"
#include "lang/builtins.h"
#include "lang/sema_const.h"
#include "lang/sema_state.h"
#include "model/limits.h"
#include "model/types.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"

/* 0.26's name for the feature in its unstable-feature messages
 * (ast/passes/unstable_feature.cpp) */
#define DW_USTACK_FEATURE "dw_ustack (DWARF stack unwinding)"

static bool is_user(int id)
{
	return id == BI_USTACK || id == BI_USTACK_VAR || id == BI_DW_USTACK ||
	       id == BI_DW_USTACK_VAR;
}

static bool is_dw_ustack(int id)
{
	return id == BI_DW_USTACK || id == BI_DW_USTACK_VAR;
}

/* bench and test probes are XDP programs (probes/testbench.c), which
 * the kernel gives no stack helper: refused here rather than by the
 * verifier. */
static bool stack_refused(struct sema *s, struct ast_expr *e)
{
	if (!s->tgt || s->tgt->prov->prog_type != BPF_PROG_TYPE_XDP)
		return false;
	sema_err(s, e->span, "%s is not available in %s probes",
		 builtin_info[e->builtin].name, s->tgt->prov->name);
	return true;
}

/* unstable_dw_ustack, as 0.26 applies it: error refuses dw_ustack at the
 * call; warn (the default) says so once, with no place. 0.26 checks only
 * calls (dw_ustack()), before its macros make the bare word one; sonde
 * checks the bare word too. */
static bool unstable_refused(struct sema *s, struct ast_expr *e)
{
	if (limits.unstable_dw_ustack == UNSTABLE_ERROR) {
		sema_err(s, e->span, "%s feature is not enabled by default. To "
			 "enable this unstable feature, set the config flag to "
			 "enable. unstable_dw_ustack=enable", DW_USTACK_FEATURE);
		return true;
	}
	if (limits.unstable_dw_ustack == UNSTABLE_WARN &&
	    s->report == s->diag && !s->warned_dw_ustack) {
		diag_warning(s->report, (struct span){ 0 }, "Script is using an "
			     "unstable feature: %s. To prevent this warning you "
			     "must explicitly enable it in the config e.g. "
			     "unstable_dw_ustack=enable", DW_USTACK_FEATURE);
		s->warned_dw_ustack = true;
	}
	return false;
}

/* Whether e may take a stack in this probe at all (said at e if not). */
static bool stack_allowed(struct sema *s, struct ast_expr *e)
{
	return !stack_refused(s, e) &&
	       !(is_dw_ustack(e->builtin) && unstable_refused(s, e));
}

/* What a DWARF-unwound stack of mode needs, said at e: the x86_64
 * unwinder, a mode whose frames are instruction pointers, and for
 * dw_ustack a process to load the tables of (ustack_unwind = dwarf loads
 * every process's). */
static bool dwarf_refused(struct sema *s, struct ast_expr *e,
			  enum stack_mode mode)
{
	bool dw = is_dw_ustack(e->builtin);
	if (arch_build() != ARCH_X86_64) {
		/* the tables' rules are x86_64's (model/unwind.h,
		 * kernel/ehframe.c): aarch64's return address in x30 and
		 * its CFA rules are not implemented */
		sema_err(s, e->span, "%s is not available on %s (requires "
			 "x86_64: sonde's DWARF unwinder has x86_64's rules "
			 "only; ustack's frame pointers work)",
			 dw ? "dw_ustack" : "ustack_unwind = dwarf",
			 arch_name(arch_build()));
		return true;
	}
	if (mode == STACK_BUILD_ID) {
		/* the unwinder gives addresses, not bpf_get_stack's build id
		 * records */
		sema_err(s, e->span, "'build_id' stack mode cannot be used with "
			 "%s", dw ? "dw_ustack" : "ustack_unwind = dwarf");
		return true;
	}
	if (dw && !s->opts->dwarf_target && !limits.dwarf_pid &&
	    limits.ustack_dwarf == UNWIND_FP) {
		/* 0.26's words, which it says with no place when it loads */
		sema_err(s, e->span, "dw_ustack requires a target process. Use "
			 "-p, -c, or --dwarf-pid to specify one.");
		return true;
	}
	return false;
}

/* The stack type e has: dw_ustack's, and under ustack_unwind = dwarf
 * ustack's, with stack_dwarf. */
static const struct type *stack_type(struct sema *s, struct ast_expr *e,
				     enum stack_mode mode, uint32_t limit)
{
	bool user = is_user(e->builtin);
	bool dwarf = is_dw_ustack(e->builtin) ||
		     (user && limits.ustack_dwarf == UNWIND_DWARF);
	if (dwarf && dwarf_refused(s, e, mode))
		return &type_none;
	const struct type *t = type_stack(s->arena, user, mode, limit);
	if (!dwarf)
		return t;
	struct type *d = arena_alloc(s->arena, sizeof(*d));
	*d = *t;
	d->stack_dwarf = true;
	return d;
}

/* A stack mode named by a's identifier: bpftrace, perf, raw, build_id. */
static bool stack_mode_of(struct sema *s, struct ast_expr *a,
			  enum stack_mode *mode)
{
	static const char *const names[] = {
		[STACK_BPFTRACE] = "bpftrace", [STACK_PERF] = "perf",
		[STACK_RAW] = "raw", [STACK_BUILD_ID] = "build_id",
	};
	for (size_t m = 0; m < sizeof(names) / sizeof(*names); m++)
		if (names[m] && !strcmp(a->u.name, names[m])) {
			*mode = (enum stack_mode)m;
			return true;
		}
	sema_err(s, a->span, "unknown stack mode '%s' (bpftrace, perf, raw or "
		 "build_id)", a->u.name);
	return false;
}

const struct type *sema_ty_stack(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	bool user = is_user(e->builtin);
	if (!stack_allowed(s, e))
		return &type_none;
	enum stack_mode mode = (enum stack_mode)limits.stack_mode;
	uint32_t limit = 127;
	for (uint32_t i = 0; i < e->u.call.args.n; i++) {
		struct ast_expr *a = e->u.call.args.items[i];
		int64_t v;
		if (a->kind == E_IDENT && i == 0) {
			if (!stack_mode_of(s, a, &mode))
				return &type_none;
			a->type = &type_void;
		} else if (sema_const_int(s, a, &v)) {
			if (v < 1 || v > 1024) {
				sema_err(s, a->span, "stack limit must be between 1 "
					"and 1024");
				return &type_none;
			}
			limit = (uint32_t)v;
			a->type = &type_s64;
		} else {
			sema_err(s, a->span, "expected a stack mode or a constant "
				"limit");
			return &type_none;
		}
	}
	if (mode == STACK_BUILD_ID && !user) {
		sema_err(s, e->span, "'build_id' stack mode can only be used "
			 "for ustack");
		return &type_none;
	}
	return stack_type(s, e, mode, limit);
}

const struct type *sema_ty_stack_var(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	bool user = is_user(e->builtin);
	if (!stack_allowed(s, e))
		return &type_none;
	enum stack_mode mode = (enum stack_mode)limits.stack_mode;
	if (mode == STACK_BUILD_ID && !user) {
		/* as bpftrace 0.26 */
		diag_warning(s->report, e->span, "'build_id' stack mode can "
			     "only be used for ustack. Falling back to 'raw' "
			     "mode.");
		mode = STACK_RAW;
	}
	return stack_type(s, e, mode, 127);
}
