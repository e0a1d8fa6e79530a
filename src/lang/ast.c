#include "ast.h"

#include <string.h>

#include "util/arena.h"
#include "util/strbuf.h"

const char *ast_op_str(enum ast_op op)
{
	static const char *const s[] = {
		[OP_NONE] = "", [OP_LOR] = "||", [OP_LAND] = "&&",
		[OP_BOR] = "|", [OP_BXOR] = "^", [OP_BAND] = "&",
		[OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=",
		[OP_GT] = ">", [OP_GE] = ">=", [OP_SHL] = "<<",
		[OP_SHR] = ">>", [OP_ADD] = "+", [OP_SUB] = "-",
		[OP_MUL] = "*", [OP_DIV] = "/", [OP_MOD] = "%",
		[OP_NEG] = "-", [OP_LNOT] = "!", [OP_BNOT] = "~",
		[OP_DEREF] = "*", [OP_ADDR] = "&", [OP_PLUS] = "+",
		[OP_PREINC] = "++", [OP_PREDEC] = "--", [OP_POSTINC] = "++",
		[OP_POSTDEC] = "--",
	};
	return s[op];
}

/* ---- dump ---- */

static void indent(struct strbuf *out, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_append(out, "  ");
}

static void quote(struct strbuf *out, const char *s, uint32_t len)
{
	sb_putc(out, '"');
	for (uint32_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '\n': sb_append(out, "\\n"); break;
		case '\t': sb_append(out, "\\t"); break;
		case '"': sb_append(out, "\\\""); break;
		case '\\': sb_append(out, "\\\\"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				sb_printf(out, "\\x%02x", c);
			else
				sb_putc(out, (char)c);
		}
	}
	sb_putc(out, '"');
}

static void dump_typespec(struct strbuf *out, const struct ast_typespec *t)
{
	sb_append(out, t->base ? t->base : "?");
	if (t->ptr_depth)
		sb_putc(out, ' ');
	for (int i = 0; i < t->ptr_depth; i++)
		sb_putc(out, '*');
	if (t->array_len)
		sb_printf(out, "[%u]", t->array_len);
	for (uint8_t i = 0; i < t->ninner; i++)
		sb_printf(out, "[%u]", t->inner[i]);
}

static void dump_expr(struct strbuf *out, const struct ast_expr *e, int d);
static void dump_stmt(struct strbuf *out, const struct ast_stmt *s, int d);

static void dump_list(struct strbuf *out, const struct ast_expr_list *l,
		      int d)
{
	for (uint32_t i = 0; i < l->n; i++)
		dump_expr(out, l->items[i], d);
}

static void dump_expr(struct strbuf *out, const struct ast_expr *e, int d)
{
	indent(out, d);
	switch (e->kind) {
	case E_INT:
		if (e->u.num.is_bool)
			sb_printf(out, "bool %s\n",
				  e->u.num.value ? "true" : "false");
		else if (e->u.num.is_char)
			sb_printf(out, "int %llu (char)\n",
				  (unsigned long long)e->u.num.value);
		else
			sb_printf(out, "int %llu\n",
				  (unsigned long long)e->u.num.value);
		break;
	case E_STRING:
		sb_append(out, "string ");
		quote(out, e->u.str.bytes, e->u.str.len);
		sb_putc(out, '\n');
		break;
	case E_BUILTIN:
		sb_printf(out, "builtin %s\n", e->u.name);
		break;
	case E_IDENT:
		sb_printf(out, "identifier %s\n", e->u.name);
		break;
	case E_POSITIONAL:
		if (e->u.pos.num < 0)
			sb_append(out, "positional $#\n");
		else
			sb_printf(out, "positional $%ld\n", e->u.pos.num);
		break;
	case E_VAR:
		sb_printf(out, "variable %s\n", e->u.name);
		break;
	case E_MAP:
		sb_printf(out, "map %s\n", e->u.map.name);
		dump_list(out, &e->u.map.keys, d + 1);
		break;
	case E_CALL:
		sb_printf(out, "call %s\n", e->u.call.name);
		dump_list(out, &e->u.call.args, d + 1);
		break;
	case E_UNARY: {
		enum ast_op op = e->u.unary.op;
		sb_printf(out, "unary %s%s\n", ast_op_str(op),
			  op == OP_POSTINC || op == OP_POSTDEC ? " (post)" : "");
		dump_expr(out, e->u.unary.operand, d + 1);
		break;
	}
	case E_BINARY:
		sb_printf(out, "binary %s\n", ast_op_str(e->u.binary.op));
		dump_expr(out, e->u.binary.left, d + 1);
		dump_expr(out, e->u.binary.right, d + 1);
		break;
	case E_TERNARY:
		sb_append(out, "?:\n");
		dump_expr(out, e->u.ternary.cond, d + 1);
		dump_expr(out, e->u.ternary.then, d + 1);
		dump_expr(out, e->u.ternary.otherwise, d + 1);
		break;
	case E_CAST:
		sb_append(out, "cast (");
		dump_typespec(out, &e->u.cast.to);
		sb_append(out, ")\n");
		dump_expr(out, e->u.cast.operand, d + 1);
		break;
	case E_FIELD:
		sb_printf(out, "%s %s\n", e->u.field.arrow ? "->" : ".",
			  e->u.field.name);
		dump_expr(out, e->u.field.base, d + 1);
		break;
	case E_INDEX:
		sb_append(out, "[]\n");
		dump_expr(out, e->u.index.base, d + 1);
		dump_expr(out, e->u.index.index, d + 1);
		break;
	case E_TUPLE:
		sb_append(out, e->u.list.names ? "record" : "tuple");
		for (uint32_t i = 0; e->u.list.names && i < e->u.list.n; i++)
			sb_printf(out, " %s", e->u.list.names[i]);
		sb_putc(out, '\n');
		dump_list(out, &e->u.list, d + 1);
		break;
	case E_TUPLE_INDEX:
		sb_printf(out, ".%u\n", e->u.tindex.index);
		dump_expr(out, e->u.tindex.base, d + 1);
		break;
	case E_TYPEARG:
		sb_append(out, "typeof ");
		dump_typespec(out, &e->u.size_of.type);
		sb_putc(out, '\n');
		if (e->u.size_of.type.of)
			dump_expr(out, e->u.size_of.type.of, d + 1);
		break;
	case E_SIZEOF:
		if (e->u.size_of.expr) {
			sb_append(out, e->u.size_of.info ? "typeinfo\n" :
							   "sizeof\n");
			dump_expr(out, e->u.size_of.expr, d + 1);
		} else {
			sb_append(out, e->u.size_of.info ? "typeinfo " :
							   "sizeof ");
			dump_typespec(out, &e->u.size_of.type);
			sb_putc(out, '\n');
		}
		break;
	case E_OFFSETOF:
		sb_append(out, "offsetof ");
		dump_typespec(out, &e->u.offset_of.type);
		for (uint32_t i = 0; i < e->u.offset_of.nfields; i++)
			sb_printf(out, "%s%s", i ? "." : " ",
				  e->u.offset_of.fields[i]);
		sb_putc(out, '\n');
		if (e->u.offset_of.type.of)
			dump_expr(out, e->u.offset_of.type.of, d + 1);
		break;
	case E_COMPTIME:
		sb_append(out, e->u.comptime.then ? "if comptime\n" :
						    "comptime\n");
		dump_expr(out, e->u.comptime.expr, d + 1);
		if (e->u.comptime.then) {
			dump_expr(out, e->u.comptime.then, d + 1);
			dump_expr(out, e->u.comptime.otherwise, d + 1);
		}
		break;
	case E_BLOCK:
		sb_append(out, "block expression\n");
		for (uint32_t i = 0; i < e->u.blockx.body.n; i++)
			dump_stmt(out, e->u.blockx.body.stmts[i], d + 1);
		if (e->u.blockx.value) {
			indent(out, d + 1);
			sb_append(out, "value\n");
			dump_expr(out, e->u.blockx.value, d + 2);
		}
		break;
	}
}

static void dump_block(struct strbuf *out, const char *label,
		       const struct ast_block *b, int d);

static void dump_stmt(struct strbuf *out, const struct ast_stmt *s, int d)
{
	switch (s->kind) {
	case S_EXPR:
		dump_expr(out, s->u.expr, d);
		return;
	case S_ASSIGN:
		indent(out, d);
		sb_printf(out, "assign %s=\n", ast_op_str(s->u.assign.op));
		dump_expr(out, s->u.assign.target, d + 1);
		dump_expr(out, s->u.assign.value, d + 1);
		return;
	case S_IF:
		indent(out, d);
		sb_append(out, "if\n");
		dump_expr(out, s->u.if_.cond, d + 1);
		dump_block(out, "then", &s->u.if_.then, d + 1);
		if (s->u.if_.otherwise) {
			indent(out, d + 1);
			sb_append(out, "else\n");
			dump_stmt(out, s->u.if_.otherwise, d + 2);
		}
		return;
	case S_UNROLL:
	case S_WHILE:
		indent(out, d);
		sb_append(out, s->kind == S_UNROLL ? "unroll\n" : "while\n");
		dump_expr(out, s->u.loop.cond, d + 1);
		dump_block(out, "body", &s->u.loop.body, d + 1);
		return;
	case S_BREAK:
		indent(out, d);
		sb_append(out, "break\n");
		return;
	case S_CONTINUE:
		indent(out, d);
		sb_append(out, "continue\n");
		return;
	case S_RETURN:
		indent(out, d);
		sb_append(out, "return\n");
		if (s->u.expr)
			dump_expr(out, s->u.expr, d + 1);
		return;
	case S_BLOCK:
		dump_block(out, "block", &s->u.block, d);
		return;
	case S_LET:
		indent(out, d);
		sb_append(out, "let\n");
		dump_expr(out, s->u.let.var, d + 1);
		if (s->u.let.has_type) {
			indent(out, d + 1);
			sb_printf(out, "type %s%.*s\n", s->u.let.type.base,
				  s->u.let.type.ptr_depth, "********");
		}
		if (s->u.let.value)
			dump_expr(out, s->u.let.value, d + 1);
		return;
	case S_FOR:
		indent(out, d);
		sb_append(out, "for\n");
		dump_expr(out, s->u.for_.var, d + 1);
		if (s->u.for_.map) {
			dump_expr(out, s->u.for_.map, d + 1);
		} else {
			indent(out, d + 1);
			sb_append(out, "range\n");
			dump_expr(out, s->u.for_.start, d + 2);
			dump_expr(out, s->u.for_.end, d + 2);
		}
		dump_block(out, "body", &s->u.for_.body, d + 1);
		return;
	}
}

static void dump_block(struct strbuf *out, const char *label,
		       const struct ast_block *b, int d)
{
	indent(out, d);
	sb_printf(out, "%s\n", label);
	for (uint32_t i = 0; i < b->n; i++)
		dump_stmt(out, b->stmts[i], d + 1);
}

static void dump_cdef(struct strbuf *out, const struct ast_cdef *c, int d)
{
	static const char *const kinds[] = { "struct", "union", "enum",
					     "typedef" };
	indent(out, d);
	sb_printf(out, "%s %s", kinds[c->kind], c->name ? c->name : "(anon)");
	if (c->kind == CDEF_TYPEDEF) {
		sb_append(out, " = ");
		dump_typespec(out, &c->aliased);
	}
	sb_putc(out, '\n');
	for (uint32_t i = 0; i < c->nenums; i++) {
		indent(out, d + 1);
		sb_printf(out, "%s = %lld\n", c->enums[i].name,
			  (long long)c->enums[i].value);
	}
	for (uint32_t i = 0; i < c->nfields; i++) {
		const struct ast_cfield *f = &c->fields[i];
		if (f->nested) {
			dump_cdef(out, f->nested, d + 1);
			if (f->name) {
				indent(out, d + 2);
				sb_printf(out, "named %s\n", f->name);
			}
			continue;
		}
		indent(out, d + 1);
		sb_append(out, "field ");
		dump_typespec(out, &f->type);
		sb_printf(out, " %s", f->name);
		if (f->bit_width >= 0)
			sb_printf(out, " : %d", f->bit_width);
		sb_putc(out, '\n');
	}
}

void ast_dump(const struct ast_program *p, struct strbuf *out)
{
	sb_append(out, "program\n");
	/* Quoted: a directive continued with backslash-newline would
	 * otherwise break the one-node-per-line form. */
	for (uint32_t i = 0; i < p->ndirectives; i++) {
		sb_append(out, "  directive ");
		quote(out, p->directives[i].text,
		      (uint32_t)strlen(p->directives[i].text));
		sb_putc(out, '\n');
	}
	for (uint32_t i = 0; i < p->ncdefs; i++)
		dump_cdef(out, p->cdefs[i], 1);
	for (uint32_t i = 0; i < p->nmapdecls; i++)
		sb_printf(out, "  mapdecl %s %s %llu\n", p->mapdecls[i].map,
			  p->mapdecls[i].kind,
			  (unsigned long long)p->mapdecls[i].max_entries);
	for (uint32_t i = 0; i < p->nprobes; i++) {
		const struct ast_probe *pr = &p->probes[i];
		sb_append(out, "  probe\n");
		for (uint32_t k = 0; k < pr->nattach; k++) {
			const struct attach_point *a = &pr->attach[k];
			sb_printf(out, "    attach %s", a->provider);
			for (uint32_t j = 0; j < a->nparts; j++) {
				sb_putc(out, j ? ':' : ' ');
				quote(out, a->parts[j],
				      (uint32_t)strlen(a->parts[j]));
			}
			if (a->name) {
				sb_append(out, " name ");
				quote(out, a->name, (uint32_t)strlen(a->name));
			}
			sb_putc(out, '\n');
		}
		if (pr->pred) {
			sb_append(out, "    predicate\n");
			dump_expr(out, pr->pred, 3);
		}
		dump_block(out, "body", &pr->body, 2);
	}
}

/* ---- copies ---- */

static void clone_list(struct arena *a, struct ast_expr_list *dst,
		       const struct ast_expr_list *src, uint32_t *budget)
{
	dst->n = src->n;
	dst->items = arena_alloc(a, sizeof(*dst->items) * (src->n + 1));
	for (uint32_t i = 0; i < src->n; i++)
		dst->items[i] = ast_clone_expr(a, src->items[i], budget);
}

/* Every kind is listed (no default), so that a new kind added to the AST
 * is a compile error here until it is copied. */
struct ast_expr *ast_clone_expr(struct arena *a, const struct ast_expr *e,
				uint32_t *budget)
{
	if (!e)
		return NULL;
	if (!*budget)
		return (struct ast_expr *)e;
	(*budget)--;
	struct ast_expr *c = arena_alloc(a, sizeof(*c));
	*c = *e;
	switch (e->kind) {
	case E_INT:
	case E_STRING:
	case E_BUILTIN:
	case E_IDENT:
	case E_POSITIONAL:
	case E_VAR:
		break;
	case E_OFFSETOF:
		c->u.offset_of.type.of = ast_clone_expr(a, e->u.offset_of.type.of,
							budget);
		break;
	case E_MAP:
		clone_list(a, &c->u.map.keys, &e->u.map.keys, budget);
		break;
	case E_CALL:
		clone_list(a, &c->u.call.args, &e->u.call.args, budget);
		break;
	case E_UNARY:
		c->u.unary.operand = ast_clone_expr(a, e->u.unary.operand,
						    budget);
		break;
	case E_BINARY:
		c->u.binary.left = ast_clone_expr(a, e->u.binary.left, budget);
		c->u.binary.right = ast_clone_expr(a, e->u.binary.right, budget);
		break;
	case E_TERNARY:
		c->u.ternary.cond = ast_clone_expr(a, e->u.ternary.cond, budget);
		c->u.ternary.then = ast_clone_expr(a, e->u.ternary.then, budget);
		c->u.ternary.otherwise = ast_clone_expr(a, e->u.ternary.otherwise,
							budget);
		break;
	case E_CAST:
		c->u.cast.operand = ast_clone_expr(a, e->u.cast.operand, budget);
		c->u.cast.to.of = ast_clone_expr(a, e->u.cast.to.of, budget);
		break;
	case E_FIELD:
		c->u.field.base = ast_clone_expr(a, e->u.field.base, budget);
		break;
	case E_INDEX:
		c->u.index.base = ast_clone_expr(a, e->u.index.base, budget);
		c->u.index.index = ast_clone_expr(a, e->u.index.index, budget);
		break;
	case E_TUPLE:
		clone_list(a, &c->u.list, &e->u.list, budget);
		break;
	case E_TUPLE_INDEX:
		c->u.tindex.base = ast_clone_expr(a, e->u.tindex.base, budget);
		break;
	case E_SIZEOF:
	case E_TYPEARG:
		c->u.size_of.expr = ast_clone_expr(a, e->u.size_of.expr, budget);
		c->u.size_of.type.of = ast_clone_expr(a, e->u.size_of.type.of,
						      budget);
		break;
	case E_BLOCK:
		ast_clone_block(a, &c->u.blockx.body, &e->u.blockx.body, budget);
		c->u.blockx.value = ast_clone_expr(a, e->u.blockx.value, budget);
		break;
	case E_COMPTIME:
		c->u.comptime.expr = ast_clone_expr(a, e->u.comptime.expr,
						    budget);
		c->u.comptime.then = ast_clone_expr(a, e->u.comptime.then,
						    budget);
		c->u.comptime.otherwise = ast_clone_expr(
			a, e->u.comptime.otherwise, budget);
		c->u.comptime.result = NULL;
		c->u.comptime.st = NULL;
		break;
	}
	return c;
}

struct ast_stmt *ast_clone_stmt(struct arena *a, const struct ast_stmt *s,
				uint32_t *budget)
{
	if (!s)
		return NULL;
	if (!*budget)
		return (struct ast_stmt *)s;
	(*budget)--;
	struct ast_stmt *c = arena_alloc(a, sizeof(*c));
	*c = *s;
	switch (s->kind) {
	case S_EXPR:
	case S_RETURN:
		c->u.expr = ast_clone_expr(a, s->u.expr, budget);
		break;
	case S_ASSIGN:
		c->u.assign.target = ast_clone_expr(a, s->u.assign.target,
						    budget);
		c->u.assign.value = ast_clone_expr(a, s->u.assign.value, budget);
		break;
	case S_IF:
		c->u.if_.cond = ast_clone_expr(a, s->u.if_.cond, budget);
		ast_clone_block(a, &c->u.if_.then, &s->u.if_.then, budget);
		c->u.if_.otherwise = ast_clone_stmt(a, s->u.if_.otherwise,
						    budget);
		break;
	case S_UNROLL:
	case S_WHILE:
		c->u.loop.cond = ast_clone_expr(a, s->u.loop.cond, budget);
		ast_clone_block(a, &c->u.loop.body, &s->u.loop.body, budget);
		break;
	case S_BREAK:
	case S_CONTINUE:
		break;
	case S_BLOCK:
		ast_clone_block(a, &c->u.block, &s->u.block, budget);
		break;
	case S_LET:
		c->u.let.var = ast_clone_expr(a, s->u.let.var, budget);
		c->u.let.value = ast_clone_expr(a, s->u.let.value, budget);
		c->u.let.type.of = ast_clone_expr(a, s->u.let.type.of, budget);
		break;
	case S_FOR:
		c->u.for_.var = ast_clone_expr(a, s->u.for_.var, budget);
		c->u.for_.map = ast_clone_expr(a, s->u.for_.map, budget);
		c->u.for_.start = ast_clone_expr(a, s->u.for_.start, budget);
		c->u.for_.end = ast_clone_expr(a, s->u.for_.end, budget);
		ast_clone_block(a, &c->u.for_.body, &s->u.for_.body, budget);
		break;
	}
	return c;
}

void ast_clone_block(struct arena *a, struct ast_block *dst,
		     const struct ast_block *src, uint32_t *budget)
{
	*dst = *src;
	dst->stmts = arena_alloc(a, sizeof(*dst->stmts) * (src->n + 1));
	for (uint32_t i = 0; i < src->n; i++)
		dst->stmts[i] = ast_clone_stmt(a, src->stmts[i], budget);
}

/* ---- walks ---- */

static void walk_list(struct ast_expr_list *l, ast_expr_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < l->n; i++)
		ast_walk_expr(l->items[i], fn, ctx);
}

void ast_walk_expr(struct ast_expr *e, ast_expr_fn fn, void *ctx)
{
	if (!e)
		return;
	switch (e->kind) {
	case E_MAP:
		walk_list(&e->u.map.keys, fn, ctx);
		break;
	case E_CALL:
		walk_list(&e->u.call.args, fn, ctx);
		break;
	case E_UNARY:
		ast_walk_expr(e->u.unary.operand, fn, ctx);
		break;
	case E_BINARY:
		ast_walk_expr(e->u.binary.left, fn, ctx);
		ast_walk_expr(e->u.binary.right, fn, ctx);
		break;
	case E_TERNARY:
		ast_walk_expr(e->u.ternary.cond, fn, ctx);
		ast_walk_expr(e->u.ternary.then, fn, ctx);
		ast_walk_expr(e->u.ternary.otherwise, fn, ctx);
		break;
	case E_CAST:
		ast_walk_expr(e->u.cast.operand, fn, ctx);
		break;
	case E_FIELD:
		ast_walk_expr(e->u.field.base, fn, ctx);
		break;
	case E_INDEX:
		ast_walk_expr(e->u.index.base, fn, ctx);
		ast_walk_expr(e->u.index.index, fn, ctx);
		break;
	case E_TUPLE:
		walk_list(&e->u.list, fn, ctx);
		break;
	case E_TUPLE_INDEX:
		ast_walk_expr(e->u.tindex.base, fn, ctx);
		break;
	case E_SIZEOF:
		ast_walk_expr(e->u.size_of.expr, fn, ctx);
		break;
	case E_TYPEARG:
		ast_walk_expr(e->u.size_of.type.of, fn, ctx);
		break;
	case E_OFFSETOF:
		ast_walk_expr(e->u.offset_of.type.of, fn, ctx);
		break;
	case E_BLOCK:
		ast_walk_block(&e->u.blockx.body, fn, ctx);
		ast_walk_expr(e->u.blockx.value, fn, ctx);
		break;
	case E_COMPTIME:
		if (e->u.comptime.result) {
			ast_walk_expr(e->u.comptime.result, fn, ctx);
			break;
		}
		ast_walk_expr(e->u.comptime.expr, fn, ctx);
		ast_walk_expr(e->u.comptime.then, fn, ctx);
		ast_walk_expr(e->u.comptime.otherwise, fn, ctx);
		break;
	default:
		break;
	}
	fn(e, ctx);
}

#define walk_block ast_walk_block

static void walk_stmt(struct ast_stmt *s, ast_expr_fn fn, void *ctx)
{
	if (!s)
		return;
	switch (s->kind) {
	case S_EXPR:
	case S_RETURN:
		ast_walk_expr(s->u.expr, fn, ctx);
		break;
	case S_ASSIGN:
		ast_walk_expr(s->u.assign.target, fn, ctx);
		ast_walk_expr(s->u.assign.value, fn, ctx);
		break;
	case S_IF:
		ast_walk_expr(s->u.if_.cond, fn, ctx);
		walk_block(&s->u.if_.then, fn, ctx);
		walk_stmt(s->u.if_.otherwise, fn, ctx);
		break;
	case S_UNROLL:
	case S_WHILE:
		ast_walk_expr(s->u.loop.cond, fn, ctx);
		walk_block(&s->u.loop.body, fn, ctx);
		break;
	case S_BLOCK:
		walk_block(&s->u.block, fn, ctx);
		break;
	case S_LET:
		ast_walk_expr(s->u.let.var, fn, ctx);
		ast_walk_expr(s->u.let.value, fn, ctx);
		break;
	case S_FOR:
		ast_walk_expr(s->u.for_.var, fn, ctx);
		ast_walk_expr(s->u.for_.map, fn, ctx);
		ast_walk_expr(s->u.for_.start, fn, ctx);
		ast_walk_expr(s->u.for_.end, fn, ctx);
		walk_block(&s->u.for_.body, fn, ctx);
		break;
	default:
		break;
	}
}

void ast_walk_block(struct ast_block *b, ast_expr_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < b->n; i++)
		walk_stmt(b->stmts[i], fn, ctx);
}

void ast_walk_probe(struct ast_probe *p, ast_expr_fn fn, void *ctx)
{
	ast_walk_expr(p->pred, fn, ctx);
	walk_block(&p->body, fn, ctx);
}

struct uses {
	int id;
	bool found;
};

static void note_use(struct ast_expr *e, void *ctx)
{
	struct uses *u = ctx;
	/* (sema sets a function call's id too: kstack(N) is BI_KSTACK) */
	u->found |= (e->kind == E_BUILTIN || e->kind == E_CALL) &&
		    e->builtin == u->id;
}

bool ast_probe_uses_builtin(const struct ast_probe *p, int id)
{
	struct uses u = { id, false };
	/* the walk only reads */
	ast_walk_probe((struct ast_probe *)p, note_use, &u);
	return u.found;
}

/* Whether st is an if whose every branch has an else (a plain block
 * statement is none: it has no condition). */
static bool full_if(const struct ast_stmt *st)
{
	if (!st || st->kind != S_IF)
		return false;
	while (st && st->kind == S_IF)
		st = st->u.if_.otherwise;
	return st && st->kind == S_BLOCK;
}

static struct ast_expr *block_value_expr(struct arena *a,
					 const struct ast_block *body,
					 struct span sp)
{
	struct ast_expr *e = arena_alloc(a, sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->kind = E_BLOCK;
	e->span = sp;
	e->u.blockx.body = *body;
	ast_block_split_value(a, &e->u.blockx.body, &e->u.blockx.value);
	return e;
}

/* The if/else chain st (full_if) as c ? { a } : { b }. */
static struct ast_expr *if_value(struct arena *a, const struct ast_stmt *st)
{
	struct ast_expr *e = arena_alloc(a, sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->kind = E_TERNARY;
	e->span = st->span;
	e->u.ternary.cond = st->u.if_.cond;
	e->u.ternary.then = block_value_expr(a, &st->u.if_.then,
					     st->u.if_.then.span);
	const struct ast_stmt *o = st->u.if_.otherwise;
	e->u.ternary.otherwise = o->kind == S_IF ? if_value(a, o) :
				 block_value_expr(a, &o->u.block, o->span);
	return e;
}

void ast_block_split_value(struct arena *a, struct ast_block *b,
			   struct ast_expr **value)
{
	*value = NULL;
	if (!b->n)
		return;
	if (!b->trailing) {
		if (a && b->stmts && full_if(b->stmts[b->n - 1]))
			*value = if_value(a, b->stmts[--b->n]);
		return;
	}
	*value = b->stmts[--b->n]->u.expr;
	b->trailing = false;
}
