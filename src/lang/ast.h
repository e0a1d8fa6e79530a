/*
 * The abstract syntax tree. Nodes live in the compile arena. Sema fills in
 * the `type` of every expression and resolves names; codegen only reads.
 */
#ifndef SONDE_AST_H
#define SONDE_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "model/attach.h"
#include "model/types.h"
#include "util/diag.h"

struct fmt;
struct strbuf;

enum ast_op {
	OP_NONE,
	/* binary, by precedence group */
	OP_LOR, OP_LAND,
	OP_BOR, OP_BXOR, OP_BAND,
	OP_EQ, OP_NE,
	OP_LT, OP_LE, OP_GT, OP_GE,
	OP_SHL, OP_SHR,
	OP_ADD, OP_SUB,
	OP_MUL, OP_DIV, OP_MOD,
	/* unary */
	OP_NEG, OP_LNOT, OP_BNOT, OP_DEREF, OP_ADDR, OP_PLUS,
	OP_PREINC, OP_PREDEC, OP_POSTINC, OP_POSTDEC,
};

/* Spelling of an operator ("+", "&&", "++" ...). */
const char *ast_op_str(enum ast_op op);

#define AST_MAX_DIMS 4

/* A C type as written in a cast, sizeof/offsetof or a struct definition:
 * `unsigned long`, `struct task_struct *`, `uint8[4]`. */
struct ast_typespec {
	struct span span;
	const char *base;   /* normalised: "unsigned long", "struct sock" */
	int ptr_depth;
	uint32_t array_len; /* 0: not an array (unless array_auto) */
	bool array_auto;    /* int8[]: the length of what is cast */
	/* int y[2][3]: array_len 2, inner {3}; the element is int[3] */
	uint32_t inner[AST_MAX_DIMS - 1];
	uint8_t ninner;
	/* typeof(EXPR) (base "typeof"): the type is EXPR's, which is typed
	 * and never run */
	struct ast_expr *of;
	/* offsetof(NAME, f): base "struct NAME" from a bare name, which a
	 * macro's type parameter NAME replaces whole */
	bool implicit_struct;
};

enum ast_expr_kind {
	E_INT,        /* u.num */
	E_STRING,     /* u.str (may hold NUL bytes; len is the byte count) */
	E_BUILTIN,    /* u.name: pid, comm, args, arg0, retval, kstack, ... */
	E_IDENT,      /* u.name: bare identifier that is no builtin (enum
		       * constant, macro, stack mode such as `perf`) */
	E_POSITIONAL, /* u.pos: $1.. ($# has num == -1) */
	E_VAR,        /* u.name: "$x"; aux (set by sema): the variable's
		       * id, one per declaration (block scoping) */
	E_MAP,        /* u.map: "@x" or "@" with optional keys */
	E_CALL,       /* u.call */
	E_UNARY,      /* u.unary */
	E_BINARY,     /* u.binary */
	E_TERNARY,    /* u.ternary */
	E_CAST,       /* u.cast */
	E_FIELD,      /* u.field: a.b or a->b */
	E_INDEX,      /* u.index: a[i] */
	E_TUPLE,      /* u.list (a record when u.list.names) */
	E_TUPLE_INDEX, /* u.tindex: $t.0 */
	E_SIZEOF,     /* u.size_of: type or expression */
	E_OFFSETOF,   /* u.offset_of */
	E_BLOCK,      /* u.blockx: { stmts; value } (a macro's expansion) */
	E_COMPTIME,   /* u.comptime: comptime EXPR, decided at compile time
		       * (lang/comptime.h) */
	E_TYPEARG,    /* u.size_of.type: typeof(T) as a call's argument, a
		       * type handed to a macro (bpftrace PR #5234); none
		       * is left after macro expansion but in sizeof */
};

struct ast_expr;
struct ast_stmt;
struct ast_comptime; /* sema's record of a decision (lang/comptime.h) */

/* Where a macro's copy came from, for the errors found inside it: the
 * macro and its call; inner: the expansion this one's value came from
 * (a macro whose value is another macro's call), or NULL. */
struct ast_expansion {
	const char *macro;
	struct span site;
	const struct ast_expansion *inner;
};

struct ast_block {
	struct ast_stmt **stmts;
	uint32_t n;
	struct span span;
	/* the last statement is an expression with no ';' after it: the
	 * block's value when the block is one (a macro's body) */
	bool trailing;
	/* a macro's expansion called as a statement; NULL: none */
	const struct ast_expansion *expansion;
};

struct ast_expr_list {
	struct ast_expr **items;
	uint32_t n;
	/* E_TUPLE of a record, (name = "x", size = 2): the names of its
	 * items; NULL for a plain tuple and every other list */
	const char **names;
};

struct ast_expr {
	enum ast_expr_kind kind;
	struct span span;
	const struct type *type; /* set by sema */
	int32_t aux; /* set by sema: map index (E_MAP) */
	/* E_BUILTIN, E_CALL: the registry id (enum builtin_id of
	 * lang/builtins.h), set by the parser for variables and by sema for
	 * functions; -1: none. builtin_n: N of argN and sargN. */
	int16_t builtin;
	uint16_t builtin_n;
	/* set by macro expansion on the root of a macro's copy; NULL */
	const struct ast_expansion *expansion;
	union {
		struct {
			uint64_t value;
			bool is_char; /* written as 'c' */
			bool is_bool; /* true or false: of type bool */
			/* an enumerator's value: its enum (sema) */
			const struct type_enum *enm;
			/* the value of a name (an enumerator) sema put here:
			 * 64 bits, never typed as a literal is (sema) */
			bool named;
		} num;
		struct {
			const char *bytes;
			uint32_t len;
		} str;
		const char *name;
		struct {
			long num;
		} pos;
		struct {
			const char *name;
			struct ast_expr_list keys; /* n == 0: no [] */
			bool has_brackets;
		} map;
		struct {
			const char *name;
			struct span name_span;
			struct ast_expr_list args;
			/* set by sema: printf/cat/system's parsed format */
			const struct fmt *fmt;
			/* set by sema: has_key(@m, k) and delete(@m, k)'s
			 * access @m[k] (an E_MAP), NULL for the others */
			struct ast_expr *map_key;
		} call;
		struct {
			enum ast_op op;
			struct ast_expr *operand;
		} unary;
		struct {
			enum ast_op op;
			struct ast_expr *left, *right;
			/* set by sema: an ordering comparison of integers is
			 * signed (0.26 promotes mixed signs to a signed type) */
			bool cmp_signed;
		} binary;
		struct {
			struct ast_expr *cond, *then, *otherwise;
		} ternary;
		struct {
			struct ast_typespec to;
			struct ast_expr *operand;
			/* sema said the cast changes nothing (said once,
			 * however many attach points type the body) */
			bool warned_same;
		} cast;
		struct {
			struct ast_expr *base;
			const char *name;
			struct span name_span;
			bool arrow;
			/* set by sema: the field, for the context being
			 * compiled (see sema_retarget()) */
			const struct type_field *resolved;
		} field;
		struct {
			struct ast_expr *base, *index;
		} index;
		struct ast_expr_list list;
		struct {
			struct ast_expr *base;
			uint32_t index;
		} tindex;
		struct {
			struct ast_typespec type; /* used when expr is NULL */
			struct ast_expr *expr;
			/* typeinfo(): the type's record (btf_id, base_type,
			 * full_type), not its size (E_SIZEOF only) */
			bool info;
		} size_of;
		struct {
			struct ast_typespec type;
			const char **fields; /* a.b.c */
			uint32_t nfields;
		} offset_of;
		struct {
			struct ast_block body;
			struct ast_expr *value; /* NULL: no value */
		} blockx;
		struct {
			/* the condition (or value) as written: only copies
			 * of it are ever typed, one per decision */
			struct ast_expr *expr;
			/* an if whose value is used (if comptime C {a} else
			 * {b}, c ? a : b): its branches; NULL: a condition or
			 * a value */
			struct ast_expr *then, *otherwise;
			struct span at; /* 'comptime' to the end of expr */
			/* set by sema: the literal it is, or the branch taken
			 * (walks see that instead of the above) */
			struct ast_expr *result;
			struct ast_comptime *st; /* sema's; NULL before */
		} comptime;
	} u;
};

enum ast_stmt_kind {
	S_EXPR,     /* u.expr */
	S_ASSIGN,   /* u.assign: target = value, or target op= value */
	S_IF,       /* u.if_ */
	S_UNROLL,   /* u.loop (count in cond) */
	S_WHILE,    /* u.loop */
	S_BREAK,
	S_CONTINUE,
	S_RETURN,   /* u.expr, may be NULL */
	S_BLOCK,    /* u.block */
	S_LET,      /* u.let: let $x [: type] [= value] */
	S_FOR,      /* u.for_: for ($x : @map) or for ($x : a..b) */
};

struct ast_stmt {
	enum ast_stmt_kind kind;
	struct span span;
	union {
		struct ast_expr *expr;
		struct {
			struct ast_expr *target; /* E_MAP or E_VAR */
			enum ast_op op;          /* OP_NONE for plain = */
			struct ast_expr *value;
		} assign;
		struct {
			struct ast_expr *cond;
			struct ast_block then;
			struct ast_stmt *otherwise; /* S_IF or S_BLOCK, or NULL */
		} if_;
		struct {
			struct ast_expr *cond;
			struct ast_block body;
		} loop;
		struct ast_block block;
		struct {
			struct ast_expr *var;     /* E_VAR */
			struct ast_typespec type; /* when has_type */
			bool has_type;
			struct ast_expr *value;   /* may be NULL */
		} let;
		struct {
			struct ast_expr *var;  /* E_VAR: the loop variable */
			struct ast_expr *map;  /* E_MAP without keys, or NULL */
			struct ast_expr *start, *end; /* a range (map NULL) */
			struct ast_block body;
			/* set by sema: the ids of the variables of enclosing
			 * scopes the body uses (they are passed to its
			 * callback) */
			int32_t *captures;
			uint32_t ncaptures;
		} for_;
	} u;
};

struct ast_probe {
	struct span span;
	struct attach_point *attach;
	uint32_t nattach;
	struct ast_expr *pred; /* may be NULL */
	struct span pred_span; /* the predicate, '/' to '/' */
	struct ast_block body;
	uint32_t index; /* position in the script */
};

/* A member of a C struct/union definition. */
struct ast_cfield {
	struct span span;
	struct ast_typespec type;
	const char *name;      /* NULL for an anonymous nested record */
	struct ast_cdef *nested; /* inline struct/union definition, or NULL */
	int bit_width;         /* -1: not a bitfield */
};

enum ast_cdef_kind { CDEF_STRUCT, CDEF_UNION, CDEF_ENUM, CDEF_TYPEDEF };

struct ast_enumerator {
	const char *name;
	int64_t value;
	struct span span;
};

/* A C definition at the top of a script: struct/union/enum/typedef. */
struct ast_cdef {
	enum ast_cdef_kind kind;
	struct span span;
	const char *name; /* tag, or the typedef's new name; may be NULL */
	struct ast_cfield *fields; /* struct/union */
	uint32_t nfields;
	struct ast_enumerator *enums; /* enum */
	uint32_t nenums;
	struct ast_typespec aliased; /* typedef */
	/* struct/union __attribute__((packed)), ((aligned(N))): members at
	 * byte offsets; the alignment at least N (0: none given) */
	bool packed;
	uint32_t aligned;
};

/* A preprocessor line (#include, #define, ...), kept verbatim. */
struct ast_directive {
	struct span span;
	const char *text;
};

/* config = { key = value; ... } */
enum ast_config_kind { CONFIG_INT, CONFIG_STR, CONFIG_IDENT, CONFIG_BOOL };

struct ast_config_item {
	struct span span; /* key = value */
	const char *key;
	enum ast_config_kind kind;
	uint64_t num;    /* CONFIG_INT, CONFIG_BOOL */
	const char *str; /* CONFIG_STR, CONFIG_IDENT */
};

struct ast_config {
	struct span span;
	struct ast_config_item *items;
	uint32_t n;
};

/* macro name(params) { body }: params are E_VAR, E_MAP or E_IDENT. */
struct ast_macro {
	struct span span; /* 'macro' to the name */
	const char *name;
	struct ast_expr **params;
	uint32_t nparams;
	struct ast_block body;
};

/* import "path"; */
struct ast_import {
	struct span span;
	const char *path;
};

/* let @m = TYPE(N); at the top of a script (bpftrace 0.26). */
struct ast_mapdecl {
	struct span span;
	const char *map;       /* "@m" */
	const char *kind;      /* hash, lruhash, percpuhash, percpulruhash */
	struct span kind_span;
	uint64_t max_entries;
};

struct ast_program {
	struct ast_mapdecl *mapdecls;
	uint32_t nmapdecls;
	struct ast_probe *probes;
	uint32_t nprobes;
	struct ast_cdef **cdefs;
	uint32_t ncdefs;
	struct ast_directive *directives;
	uint32_t ndirectives;
	const struct src_file *file;
	struct ast_config *config; /* NULL: none */
	struct ast_macro *macros;
	uint32_t nmacros;
	struct ast_import *imports;
	uint32_t nimports;
};

/* Calls fn on every expression of e (children first, then e), or of
 * probe p's predicate and body: fn may rewrite the node it is given. A
 * comptime is walked as what sema decided it is once it has (its
 * result), as written until then. */
typedef void (*ast_expr_fn)(struct ast_expr *e, void *ctx);
void ast_walk_expr(struct ast_expr *e, ast_expr_fn fn, void *ctx);
void ast_walk_probe(struct ast_probe *p, ast_expr_fn fn, void *ctx);
void ast_walk_block(struct ast_block *b, ast_expr_fn fn, void *ctx);

/* Whether probe p (its predicate or body) uses builtin variable id
 * (enum builtin_id): providers skip the work a context feature costs
 * (DWARF lookups for uprobe args) when no probe asks for it. */
bool ast_probe_uses_builtin(const struct ast_probe *p, int id);

/* Moves a trailing expression of b (see ast_block.trailing) out of it
 * into *value, or a last if/else whose branches all end in an else (0.26:
 * an if is an expression, and so the block's value), made c ? a : b of
 * its blocks in a; NULL when b has neither. */
struct arena;
void ast_block_split_value(struct arena *a, struct ast_block *b,
			   struct ast_expr **value);

/* A deep copy of e, s or b in a (comptime records are not copied: a
 * copy is decided anew). *budget counts the nodes copied down; at 0 the
 * rest is shared with the original instead (the caller has failed by
 * then: macro expansion's hostile input). */
struct ast_expr *ast_clone_expr(struct arena *a, const struct ast_expr *e,
				uint32_t *budget);
struct ast_stmt *ast_clone_stmt(struct arena *a, const struct ast_stmt *s,
				uint32_t *budget);
void ast_clone_block(struct arena *a, struct ast_block *dst,
		     const struct ast_block *src, uint32_t *budget);

/* Stable, indented text form for `sonde -d ast` and the golden tests. */
void ast_dump(const struct ast_program *p, struct strbuf *out);

#endif
