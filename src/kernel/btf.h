/*
 * Kernel BTF: the types of kernel structs, function arguments and BTF
 * tracepoint (tp_btf) arguments.
 *
 * vmlinux BTF is loaded on the first lookup, module BTF only when a name
 * is missing from vmlinux. Conversion to sonde types is shallow: a record
 * comes back as a shell (name, size, btf_id, no fields) and its members
 * are looked up one at a time with kbtf_field(), or all at once with
 * kbtf_record(), so that naming task_struct does not convert the kernel.
 *
 * Handles: the int32 ids here (and in struct type.btf_id) are vmlinux
 * type ids as is; a type from module BTF carries the module's slot in
 * bits 20-30 (module ids are split-BTF ids, which overlap across modules).
 */
#ifndef SONDE_KBTF_H
#define SONDE_KBTF_H

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct btf;
struct type;
struct type_field;

/* Loads vmlinux BTF if not yet loaded: 0 or -errno (cached). */
int kbtf_load(void);
/* The libbpf handle of vmlinux BTF (loading it), or NULL. */
struct btf *kbtf_vmlinux(void);

/* A struct, union, enum or typedef by C name: "struct task_struct",
 * "union bpf_attr", "enum pid_type", "pid_t" (a bare name is tried as a
 * typedef, then a struct, then a union). Returns a handle or -ENOENT. */
int32_t kbtf_find(const char *name);
/* The vmlinux BTF id of kernel function name, for a kfunc call (a
 * BPF_PSEUDO_KFUNC_CALL's imm), or -ENOENT. */
int32_t kbtf_kfunc_id(const char *name);
/* The value of a vmlinux enumerator ("TCP_ESTABLISHED"): 0 or -ENOENT. */
int kbtf_enum_value(const char *name, int64_t *value);
/* ... and its enum's enumerators (in a; NULL: an anonymous enum), when
 * enm is not NULL. */
struct type_enum;
int kbtf_enumerator(struct arena *a, const char *name, int64_t *value,
		    const struct type_enum **enm);
/* Converts a handle. Typedefs and qualifiers are stripped; enums are ints;
 * char arrays are strings; pointers carry their (shallow) pointee;
 * records are shells. Never NULL: unknown kinds become type_none. */
const struct type *kbtf_type(struct arena *a, int32_t handle);
/* Converts type id of any BTF (a BPF object's, say) as kbtf_type does,
 * but deeply: records come with all their members, recursively, and carry
 * no handle (btf_id 0); pointers are opaque (void *). */
const struct type *kbtf_type_of(struct arena *a, const struct btf *b,
				uint32_t id);
/* kbtf_find + kbtf_type; NULL when not found. */
const struct type *kbtf_type_by_name(struct arena *a, const char *name);

/* The member name of record rec, searching through anonymous struct and
 * union members. rec may be a shell from kbtf_type() or a named shell
 * from tracefs (btf_id 0: looked up by rec->name). Offsets are from the
 * start of rec. A bitfield is given as the aligned storage unit of its
 * declared type (offset, type->size) plus bit_off/bit_size within it.
 * Returns 0, -ENOENT (no such member) or -ESRCH (rec not in BTF). */
int kbtf_field(struct arena *a, const struct type *rec, const char *name,
	       struct type_field *out);
/* A copy of rec with its direct members filled in (anonymous members
 * keep name ""), for printing whole records. NULL if rec is not in BTF. */
const struct type *kbtf_record(struct arena *a, const struct type *rec);

struct kbtf_param {
	const char *name;
	const struct type *type;
	const char *ctype; /* C spelling, by kbtf_func_ctypes() only */
};

struct kbtf_func {
	const char *name;
	const struct type *ret;     /* type_void for void */
	uint32_t nparams;
	struct kbtf_param *params;
	uint32_t btf_id;            /* attach_btf_id (id within its BTF) */
	int btf_obj_fd;             /* attach_btf_obj_fd: 0 for vmlinux */
	const char *module;         /* NULL for vmlinux */
	const char *ret_ctype;      /* by kbtf_func_ctypes() only */
};

/* The prototype of kernel function name (kfunc/kretfunc args and retval).
 * Variadic "..." is dropped. -ENOENT when there is no such function. */
int kbtf_func(struct arena *a, const char *name, struct kbtf_func *out);
/* The arguments of BTF tracepoint tp (e.g. "sched_switch") from the
 * btf_trace_<tp> typedef, without its leading void *ctx. btf_id is the
 * typedef's id, which is what tp_btf attach wants. Names come from the
 * tracepoint's stub function; arg0.. when the kernel has none. */
int kbtf_tp_btf(struct arena *a, const char *tp, struct kbtf_func *out);

/* kbtf_func (or, tp, kbtf_tp_btf) plus the C spelling of every param
 * type and the return type ("struct file *"), for -lv listings. */
int kbtf_func_ctypes(struct arena *a, const char *name, bool tp,
		     struct kbtf_func *out);

/* Calls cb for every kernel function (vmlinux and modules) or every BTF
 * tracepoint whose name matches pattern ('*', '?'). Stops at the first
 * non-zero cb return, which is returned; else the number of matches. */
typedef int (*kbtf_match_cb)(const char *name, const char *module, void *ctx);
int kbtf_match_funcs(const char *pattern, kbtf_match_cb cb, void *ctx);
int kbtf_match_tp_btf(const char *pattern, kbtf_match_cb cb, void *ctx);

/* Calls cb with vmlinux BTF and then each module's (split) BTF, with the
 * first type id that object adds; stops at the first non-zero return,
 * which is returned. 0 or -errno when vmlinux BTF cannot be loaded. */
typedef int (*kbtf_object_cb)(const struct btf *b, uint32_t first_id,
			      const char *module, void *ctx);
int kbtf_each_object(kbtf_object_cb cb, void *ctx);

/* Releases all loaded BTF (tests, leak checkers). */
void kbtf_unload(void);

#endif
