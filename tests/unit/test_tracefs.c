/* tracefs formats and wildcard matching; kernel-backed tests SKIP
 * without tracefs. */
#include "check.h"

#include <errno.h>

#include "kernel/glob.h"
#include "kernel/tracefs.h"
#include "model/types.h"
#include "util/arena.h"

static struct arena A;

/* Parsing needs no kernel: a frozen copy of a 6.x format file. */
static const char sched_switch_fmt[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc u8[] blob;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long args[6];\toffset:48;\tsize:48;\tsigned:0;\n"
	"\n"
	"print fmt: \"prev_comm=%s field:int bogus;\", REC->prev_comm\n";

TEST(glob_matches_like_bpftrace)
{
	CHECK(glob_match("sys_enter_*", "sys_enter_write"));
	CHECK(glob_match("*", ""));
	CHECK(glob_match("*write", "sys_enter_write"));
	CHECK(glob_match("s*_e*_w*e", "sys_enter_write"));
	CHECK(glob_match("sched_swi?ch", "sched_switch"));
	CHECK(!glob_match("sched_swi?ch", "sched_swich"));
	CHECK(!glob_match("sys_enter_*", "sys_exit_write"));
	CHECK(!glob_match("write", "writev"));
	CHECK(glob_match("a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaab"));
	CHECK(!glob_match("a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaa"));
	CHECK(glob_has_wildcard("a*") && glob_has_wildcard("a?"));
	CHECK(!glob_has_wildcard("sched_switch"));
}

TEST(parses_format_text)
{
	struct tracefs_format f;
	CHECK(tracefs_parse_format(&A, sched_switch_fmt, &f) == 0);
	CHECK_STR(f.name, "sched_switch");
	CHECK(f.id == 372);
	CHECK(f.nfields == 11); /* "print fmt" is not a field list */
	CHECK(f.fields[0].is_common && f.fields[3].is_common);
	const struct tracefs_field *c = tracefs_find_field(&f, "prev_comm");
	CHECK(c && !c->is_common && c->is_array && c->array_len == 16);
	CHECK(c && c->offset == 8 && c->size == 16);
	CHECK_STR(c ? c->ctype : NULL, "char");
	const struct tracefs_field *n = tracefs_find_field(&f, "name");
	CHECK(n && n->loc == TRACEFS_DATA_LOC && n->is_array && n->size == 4);
	CHECK_STR(n ? n->ctype : NULL, "char");
	const struct tracefs_field *b = tracefs_find_field(&f, "blob");
	CHECK(b && b->loc == TRACEFS_REL_LOC);
	CHECK(tracefs_find_field(&f, "bogus") == NULL);
	CHECK(tracefs_parse_format(&A, "garbage", &f) == -EINVAL);
}

TEST(types_format_fields)
{
	struct tracefs_format f;
	CHECK(tracefs_parse_format(&A, sched_switch_fmt, &f) == 0);
	f.category = "sched";
	const struct type *t = tracefs_args_type(&A, &f);
	CHECK(t->kind == TY_RECORD && t->nfields == 7);
	CHECK(t->size == 96);
	CHECK_STR(t->name, "struct _tracepoint_sched_sched_switch");
	const struct type_field *fl = t->fields;
	CHECK_STR(fl[0].name, "prev_comm");
	CHECK(fl[0].type->kind == TY_STRING && fl[0].type->size == 16);
	CHECK(fl[1].type == &type_s32 && fl[1].offset == 24);
	CHECK(fl[3].type == &type_s64);
	/* __data_loc: a kernel char * computed from the loc word */
	CHECK(fl[4].type->kind == TY_PTR && fl[4].type->elem == &type_s8);
	CHECK(!fl[4].type->is_user && fl[4].offset == 40);
	CHECK(fl[5].type->kind == TY_PTR && fl[5].type->elem == &type_u8);
	CHECK(fl[6].type->kind == TY_ARRAY && fl[6].type->count == 6);
	CHECK(fl[6].type->elem == &type_u64);
}

static bool have_tracefs(void)
{
	return tracefs_dir() != NULL;
}

static const struct type *arg(const struct type *rec, const char *name,
			      uint32_t *off)
{
	for (uint32_t i = 0; i < rec->nfields; i++) {
		if (!strcmp(rec->fields[i].name, name)) {
			*off = rec->fields[i].offset;
			return rec->fields[i].type;
		}
	}
	return NULL;
}

TEST(sys_enter_write_format)
{
	if (!have_tracefs())
		SKIP("no tracefs");
	struct tracefs_format f;
	int err = tracefs_format(&A, "syscalls", "sys_enter_write", &f);
	if (err == -ENOENT)
		SKIP("no syscalls:sys_enter_write (CONFIG_FTRACE_SYSCALLS)");
	CHECK(err == 0);
	CHECK(f.id > 0 && (int)f.id == tracefs_event_id("syscalls",
							 "sys_enter_write"));
	const struct type *t = tracefs_args_type(&A, &f);
	uint32_t off = 0;
	/* Syscall args are 8-byte slots whatever their C type. */
	const struct type *fd = arg(t, "fd", &off);
	CHECK(fd && fd->kind == TY_INT && fd->size == 8 && !fd->is_signed);
	CHECK(off == 16);
	const struct type *buf = arg(t, "buf", &off);
	CHECK(buf && buf->kind == TY_PTR && buf->is_user && off == 24);
	CHECK(buf && buf->elem == &type_s8);
	const struct type *count = arg(t, "count", &off);
	CHECK(count && count == &type_u64 && off == 32);
	CHECK(arg(t, "common_pid", &off) == NULL);
}

TEST(sys_enter_openat_format)
{
	if (!have_tracefs())
		SKIP("no tracefs");
	struct tracefs_format f;
	int err = tracefs_format(&A, "syscalls", "sys_enter_openat", &f);
	if (err == -ENOENT)
		SKIP("no syscalls:sys_enter_openat");
	CHECK(err == 0);
	const struct type *t = tracefs_args_type(&A, &f);
	uint32_t off = 0;
	const struct type *fn = arg(t, "filename", &off);
	CHECK(fn && fn->kind == TY_PTR && fn->is_user && fn->elem == &type_s8);
	/* int in an 8-byte slot: int64, so AT_FDCWD reads as -100 */
	CHECK(arg(t, "dfd", &off) == &type_s64);
}

TEST(sched_switch_format)
{
	if (!have_tracefs())
		SKIP("no tracefs");
	struct tracefs_format f;
	CHECK(tracefs_format(&A, "sched", "sched_switch", &f) == 0);
	const struct type *t = tracefs_args_type(&A, &f);
	uint32_t off = 0;
	const struct type *c = arg(t, "prev_comm", &off);
	CHECK(c && c->kind == TY_STRING && c->size == 16);
	const struct type *p = arg(t, "prev_pid", &off);
	CHECK(p == &type_s32);
	CHECK(p && off == 8 + c->size);
	CHECK(!t->fields[0].type->is_user); /* not a syscall */
}

TEST(data_loc_format)
{
	if (!have_tracefs())
		SKIP("no tracefs");
	struct tracefs_format f;
	CHECK(tracefs_format(&A, "sched", "sched_process_exec", &f) == 0);
	const struct tracefs_field *fn = tracefs_find_field(&f, "filename");
	CHECK(fn && fn->loc == TRACEFS_DATA_LOC && fn->size == 4);
	const struct type *t = fn ? tracefs_field_type(&A, fn, false) : NULL;
	CHECK(t && t->kind == TY_PTR && t->elem == &type_s8);
}

static int count_cb(const char *cat, const char *name, void *ctx)
{
	(*(int *)ctx)++;
	return 0;
}

static int stop_cb(const char *cat, const char *name, void *ctx)
{
	return 42;
}

static int check_switch_cb(const char *cat, const char *name, void *ctx)
{
	*(int *)ctx = !strcmp(cat, "sched") && !strcmp(name, "sched_switch");
	return 0;
}

TEST(wildcards_expand)
{
	if (!have_tracefs())
		SKIP("no tracefs");
	int n = 0;
	int r = tracefs_match("syscalls", "sys_enter_*", count_cb, &n);
	if (r == 0)
		SKIP("no syscall tracepoints");
	CHECK(r == n && n > 100);
	n = 0;
	CHECK(tracefs_match("sched", "sched_switch", check_switch_cb, &n) == 1);
	CHECK(n == 1);
	n = 0;
	CHECK(tracefs_match("sch?d", "sched_swi?ch", check_switch_cb, &n) == 1);
	CHECK(n == 1);
	CHECK(tracefs_match("sched", "no_such_event", count_cb, &n) == 0);
	CHECK(tracefs_match("*", "no_such_*", count_cb, &n) == 0);
	CHECK(tracefs_match("sched", "*", stop_cb, NULL) == 42);
	CHECK(tracefs_match("sched", "sched_switch", stop_cb, NULL) == 42);
}

TEST(rejects_path_escapes)
{
	if (!have_tracefs())
		SKIP("no tracefs");
	struct tracefs_format f;
	CHECK(tracefs_format(&A, "..", "x", &f) == -EINVAL);
	CHECK(tracefs_format(&A, "sched/../..", "x", &f) == -EINVAL);
	CHECK(tracefs_event_id("sched", "nope") == -ENOENT);
	CHECK(!tracefs_event_exists("sched", "nope"));
}

int main(void)
{
	arena_init(&A);
	RUN(glob_matches_like_bpftrace);
	RUN(parses_format_text);
	RUN(types_format_fields);
	RUN(sys_enter_write_format);
	RUN(sys_enter_openat_format);
	RUN(sched_switch_format);
	RUN(data_loc_format);
	RUN(wildcards_expand);
	RUN(rejects_path_escapes);
	arena_release(&A);
	return check_done();
}
