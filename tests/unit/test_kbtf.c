/* Kernel BTF lookups, cross-checked against bpftool's raw dump of the
 * same /sys/kernel/btf/vmlinux. SKIPs without kernel BTF. */
#include "check.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernel/btf.h"
#include "model/types.h"
#include "util/arena.h"

static struct arena A;

static bool have_btf(void)
{
	return kbtf_load() == 0;
}

/* From bpftool's raw dump: the vlen of STRUCT 'sname' and the bit offset
 * and bitfield size of its member 'mname'. */
struct bpftool_member {
	long vlen, bits, bitsize;
};

static bool bpftool_lookup(const char *sname, const char *mname,
			   struct bpftool_member *out)
{
	FILE *p = popen("bpftool btf dump file /sys/kernel/btf/vmlinux "
			"2>/dev/null", "r");
	if (!p)
		return false;
	char line[512], head[160], mem[160];
	snprintf(head, sizeof(head), "] STRUCT '%s' ", sname);
	snprintf(mem, sizeof(mem), "\t'%s' ", mname);
	bool in = false, found = false;
	out->bitsize = 0;
	while (fgets(line, sizeof(line), p)) {
		if (line[0] == '[') {
			if (in)
				break;
			char *h = strstr(line, head);
			if (h) {
				in = true;
				char *v = strstr(h, "vlen=");
				out->vlen = v ? atol(v + 5) : -1;
			}
		} else if (in && !strncmp(line, mem, strlen(mem))) {
			char *b = strstr(line, "bits_offset=");
			char *s = strstr(line, "bitfield_size=");
			out->bits = b ? atol(b + 12) : -1;
			out->bitsize = s ? atol(s + 14) : 0;
			found = true;
		}
	}
	pclose(p);
	return found;
}

static bool have_bpftool(void)
{
	return access("/usr/sbin/bpftool", X_OK) == 0 ||
	       system("command -v bpftool >/dev/null 2>&1") == 0;
}

TEST(task_struct_matches_bpftool)
{
	if (!have_btf())
		SKIP("no kernel BTF");
	if (!have_bpftool())
		SKIP("bpftool not installed");
	struct bpftool_member bm;
	CHECK(bpftool_lookup("task_struct", "real_parent", &bm));
	const struct type *ts = kbtf_type_by_name(&A, "struct task_struct");
	CHECK(ts && ts->kind == TY_RECORD && ts->btf_id > 0 && ts->size > 1000);
	CHECK(ts && ts->nfields == 0); /* shallow until asked */
	struct type_field f;
	CHECK(kbtf_field(&A, ts, "real_parent", &f) == 0);
	CHECK(f.offset * 8 == bm.bits && f.bit_size == 0);
	CHECK(f.type->kind == TY_PTR && f.type->elem->kind == TY_RECORD);
	CHECK_STR(f.type->elem->name, "struct task_struct");
	/* the full member list, one level deep */
	const struct type *full = kbtf_record(&A, ts);
	CHECK(full && full->nfields == bm.vlen && full->btf_id == ts->btf_id);
}

TEST(bitfield_matches_bpftool)
{
	if (!have_btf())
		SKIP("no kernel BTF");
	if (!have_bpftool())
		SKIP("bpftool not installed");
	struct bpftool_member bm;
	if (!bpftool_lookup("task_struct", "in_execve", &bm) || !bm.bitsize)
		SKIP("task_struct.in_execve is not a bitfield on this kernel");
	const struct type *ts = kbtf_type_by_name(&A, "struct task_struct");
	struct type_field f;
	CHECK(kbtf_field(&A, ts, "in_execve", &f) == 0);
	CHECK(f.bit_size == bm.bitsize);
	CHECK((long)f.offset * 8 + f.bit_off == bm.bits);
	/* one aligned load of the declared type covers it */
	CHECK(f.offset % f.type->size == 0);
	CHECK(f.bit_off + f.bit_size <= f.type->size * 8);
}

TEST(anonymous_members)
{
	if (!have_btf())
		SKIP("no kernel BTF");
	const struct type *skb = kbtf_type_by_name(&A, "struct sk_buff");
	if (!skb)
		SKIP("no struct sk_buff");
	struct type_field f;
	/* sk_buff { union { struct { next; prev; union { dev; ... }; }; ...} }
	 * has held dev at 16 since 4.14. */
	CHECK(kbtf_field(&A, skb, "dev", &f) == 0);
	CHECK(f.offset == 16);
	CHECK(f.type->kind == TY_PTR);
	CHECK_STR(f.type->elem->name, "struct net_device");
	CHECK(kbtf_field(&A, skb, "no_such_member", &f) == -ENOENT);
}

TEST(scalars_strings_enums_typedefs)
{
	if (!have_btf())
		SKIP("no kernel BTF");
	const struct type *ts = kbtf_type_by_name(&A, "struct task_struct");
	struct type_field f;
	CHECK(kbtf_field(&A, ts, "comm", &f) == 0);
	CHECK(f.type->kind == TY_STRING && f.type->size == 16);
	CHECK(kbtf_field(&A, ts, "pid", &f) == 0);
	CHECK(f.type == &type_s32); /* pid_t: typedef stripped */
	const struct type *e = kbtf_type_by_name(&A, "enum pid_type");
	CHECK(e && e->kind == TY_INT && e->size == 4);
	/* a named enum is unsigned and knows its enumerators (bpftrace
	 * 0.26's CreateEnum), and so does a kernel enumerator */
	CHECK(e && !e->is_signed && e->enm);
	CHECK_STR(e && e->enm ? type_enum_name(e->enm, 1) : NULL,
		  "PIDTYPE_TGID");
	int64_t v;
	const struct type_enum *en = NULL;
	CHECK(kbtf_enumerator(&A, "PIDTYPE_PGID", &v, &en) == 0 && v == 2);
	CHECK(en && en->name && !strcmp(en->name, "pid_type"));
	CHECK(kbtf_type_by_name(&A, "pid_t") == &type_s32);
	CHECK(kbtf_type_by_name(&A, "u64") == &type_u64);
	CHECK(kbtf_find("struct no_such_struct_anywhere") == -ENOENT);
	CHECK(kbtf_type_by_name(&A, "no_such_type_anywhere") == NULL);
}

TEST(record_shell_by_name)
{
	if (!have_btf())
		SKIP("no kernel BTF");
	/* tracefs hands out "struct foo" shells with no BTF id */
	struct type shell = { .kind = TY_RECORD, .name = "struct task_struct" };
	struct type_field f;
	CHECK(kbtf_field(&A, &shell, "real_parent", &f) == 0);
	struct type none = { .kind = TY_RECORD, .name = "struct nope_nope" };
	CHECK(kbtf_field(&A, &none, "x", &f) == -ESRCH);
	CHECK(kbtf_record(&A, &none) == NULL);
}

TEST(function_prototype)
{
	if (!have_btf())
		SKIP("no kernel BTF");
	struct kbtf_func fn;
	CHECK(kbtf_func(&A, "vfs_read", &fn) == 0);
	CHECK(fn.nparams == 4 && fn.btf_id > 0 && !fn.module);
	static const char *const names[] = { "file", "buf", "count", "pos" };
	for (uint32_t i = 0; i < 4 && i < fn.nparams; i++)
		CHECK_STR(fn.params[i].name, names[i]);
	CHECK(fn.ret == &type_s64); /* ssize_t */
	CHECK(fn.params[0].type->kind == TY_PTR);
	CHECK_STR(fn.params[0].type->elem->name, "struct file");
	CHECK(fn.params[2].type == &type_u64);
	CHECK(kbtf_func(&A, "no_such_function_anywhere", &fn) == -ENOENT);
}

TEST(tp_btf_args)
{
	if (!have_btf())
		SKIP("no kernel BTF");
	struct kbtf_func tp;
	CHECK(kbtf_tp_btf(&A, "sched_switch", &tp) == 0);
	CHECK(tp.btf_id > 0);
	/* (void *__data, bool preempt, prev, next, prev_state): no ctx */
	CHECK(tp.nparams >= 3);
	CHECK_STR(tp.params[0].name, "preempt");
	CHECK_STR(tp.params[1].name, "prev");
	CHECK_STR(tp.params[2].name, "next");
	CHECK(tp.params[1].type->kind == TY_PTR);
	CHECK_STR(tp.params[1].type->elem->name, "struct task_struct");
	CHECK(tp.ret == &type_void);
	CHECK(kbtf_tp_btf(&A, "no_such_tracepoint", &tp) == -ENOENT);
}

static int count_cb(const char *name, const char *module, void *ctx)
{
	(*(int *)ctx)++;
	return 0;
}

static int find_vfs_read(const char *name, const char *module, void *ctx)
{
	if (!strcmp(name, "vfs_read"))
		*(int *)ctx = 1;
	return 0;
}

TEST(btf_wildcards)
{
	if (!have_btf())
		SKIP("no kernel BTF");
	int n = 0;
	CHECK(kbtf_match_tp_btf("sched_switch", count_cb, &n) == 1 && n == 1);
	n = 0;
	CHECK(kbtf_match_tp_btf("sched_*", count_cb, &n) > 5);
	int found = 0;
	CHECK(kbtf_match_funcs("vfs_rea?", find_vfs_read, &found) >= 1);
	CHECK(found);
}

/* Any BTF (a BPF object's): records come back with all their members,
 * nested ones too, and no kernel handle. Needs no kernel. */
TEST(foreign_btf_is_converted_deeply)
{
	struct btf *b = btf__new_empty();
	int u32 = btf__add_int(b, "unsigned int", 4, 0);
	int chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	int comm = btf__add_array(b, u32, chr, 16);
	int inner = btf__add_struct(b, "inner", 8);
	btf__add_field(b, "a", u32, 0, 0);
	btf__add_field(b, "b", u32, 32, 0);
	int outer = btf__add_struct(b, "event", 32);
	btf__add_field(b, "pid", u32, 0, 0);
	btf__add_field(b, "comm", comm, 32, 0);
	btf__add_field(b, "in", inner, 192, 0);
	int ptr = btf__add_ptr(b, outer);
	const struct type *t = kbtf_type_of(&A, b, (uint32_t)outer);
	CHECK(t->kind == TY_RECORD && t->size == 32 && t->btf_id == 0);
	CHECK(t->nfields == 3);
	CHECK_STR(t->name, "struct event");
	CHECK(t->fields[1].type->kind == TY_STRING && t->fields[1].offset == 4);
	const struct type *in = t->fields[2].type;
	CHECK(in->kind == TY_RECORD && in->nfields == 2 && t->fields[2].offset == 24);
	CHECK(in->fields[1].offset == 4 && in->fields[1].type == &type_u32);
	const struct type *p = kbtf_type_of(&A, b, (uint32_t)ptr);
	CHECK(p->kind == TY_PTR && p->elem == &type_void);
	btf__free(b);
}

int main(void)
{
	arena_init(&A);
	RUN(task_struct_matches_bpftool);
	RUN(bitfield_matches_bpftool);
	RUN(anonymous_members);
	RUN(scalars_strings_enums_typedefs);
	RUN(record_shell_by_name);
	RUN(function_prototype);
	RUN(tp_btf_args);
	RUN(btf_wildcards);
	RUN(foreign_btf_is_converted_deeply);
	arena_release(&A);
	kbtf_unload();
	return check_done();
}
