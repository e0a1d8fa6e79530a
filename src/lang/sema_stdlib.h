/*
 * Typing rules of bpftrace 0.26's standard library (sema_stdlib.c), which
 * the builtin registry names.
 */
#ifndef SONDE_SEMA_STDLIB_H
#define SONDE_SEMA_STDLIB_H

#include "lang/ast.h"
/* the compile-time questions the registry also names */
#include "lang/sema_comptime.h"

struct sema;

/* Typing rules of sema_stdlib.c (0.26's standard library). */
const struct type *sema_ty_getopt(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_ncpus(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target);
const struct type *sema_ty_usermode(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target);
const struct type *sema_ty_pid_ns(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_nsecs(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target);
const struct type *sema_ty_name_of(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target);
const struct type *sema_ty_strlen(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
/* str_concat()'s string: bpftrace's string[1024] */
#define SEMA_STR_CONCAT_SIZE 1024
const struct type *sema_ty_str_concat(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target);
const struct type *sema_ty_config(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_is_kind(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target);
const struct type *sema_ty_probetype(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target);
const struct type *sema_ty_has_cpid(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target);
const struct type *sema_ty_kfunc_exist(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target);
const struct type *sema_ty_write_user(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target);
const struct type *sema_ty_percpu_kaddr(struct sema *s, struct ast_expr *e,
					struct ast_expr *target);
const struct type *sema_ty_socket_cookie(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target);
const struct type *sema_ty_comm_of(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target);
const struct type *sema_ty_probe_name(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target);
/* e of type t, where a string is wanted: `probe` becomes its name as a
 * string (its type returned); any other e keeps t. */
const struct type *sema_probe_string(struct sema *s, struct ast_expr *e,
				     const struct type *t);
const struct type *sema_ty_strstr(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_fail(struct sema *s, struct ast_expr *e,
				struct ast_expr *target);
const struct type *sema_ty_static_assert(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target);

#endif
